#pragma once
// The per-machine database first-use tuning keeps (docs/design.md): one JSON database file that several processes
// and threads add to at once. Every write takes an exclusive lock on `path.lock`, re-reads the file as it is then
// (another process may have added to it since), adds one result, and renames a complete new file into place, so no
// reader ever sees half a file and no writer loses another's entry; a writer that crashes leaves the last complete
// file and a temporary file beside it, never a torn database.
#include <string>

#include "core/problem.hpp"
#include "select/choice.hpp"
#include "select/identity.hpp"

namespace tilewise::select {

// $TILEWISE_DB; else $XDG_CACHE_HOME/tilewise/database.json; else $HOME/.cache/tilewise/database.json. Throws Error
// when none of them is set.
std::string machine_database_path();
// $TILEWISE_SUITE; else signatures.txt beside the machine database: where TILEWISE_TUNE=record writes.
std::string recorded_suite_path();

// Adds `winner` for p, measured under `id`, to the database at `path` (created with its folders when missing). An
// entry of the same signature and family measured under another identity is replaced (this machine has just
// retuned it); under the same identity the faster is kept. Throws Error naming the file when it cannot be read back
// (a corrupt file is left for a person to look at, never overwritten) or written.
void record_tuned(const std::string& path, const Identity& id, const Problem& p, const Choice& winner,
                  const std::string& source);

// Appends p to the suite at `path` as one line `tilewise tune --suite` reads (name M N K dtype= layout= pad=),
// unless a line of that name is already there. Leading dimensions padded unequally cannot be said in a suite line:
// the line then has a comment with the problem's own.
void record_signature(const std::string& path, const Problem& p);

}  // namespace tilewise::select
