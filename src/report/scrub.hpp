#pragma once
// The GPU machine's temporary folders (its /tmp/..., a round's round-state/...) name nothing a reader can open, and
// receipts carry them in arm names, commands and configurations. The page shows such a path by its file name alone:
// "selected:tune:round-state/fresh/database.json" reads "selected:tune:database.json".
#include <string>
#include <string_view>

#include "receipt/receipt.hpp"

namespace tilewise::report {

// The text with every path under a temporary folder cut to its last component. A path is a run of characters
// other than white space and , ; : = ' " ( ) < > [ ] { }; it is temporary where it starts with /tmp/ or
// round-state/, or holds /tmp/ or /round-state/.
std::string without_temporary_folders(std::string_view text);

// Every string in the receipt (arm names, command, notes, configurations, messages) so. Throws Error naming `path`
// where two of its arms would then read the same.
void drop_temporary_folders(receipt::Receipt& r, const std::string& path);

}  // namespace tilewise::report
