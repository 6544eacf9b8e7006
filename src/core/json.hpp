#pragma once
// JSON documents read from files (receipts, databases, campaigns, floors), stored plain or gzip-compressed (x.json.gz),
// with errors a person can act on: malformed text as file:line:column, a number beyond the range of a double (1e400)
// named as such, never an exception of the parser's own escaping a command.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace tilewise {

// Throws Error "origin:line:column: not valid JSON (...)" or "origin: not valid JSON (...)", and Error naming the
// place of a number no field can hold: one under -2^63 or from 2^64 up (1e300 too), or one with a fraction past 2^31
// in size (whole numbers written as doubles, 1e10, come back as integers, so that reading one into an integer field
// is defined).
nlohmann::json parse_json(std::string_view text, const std::string& origin);
// files::read (a regular file of bounded size), inflated where `path` ends in ".gz" (gunzip, core/gzip.hpp: what it
// holds is bounded as a plain file is, and a bad stream is an Error naming the file), then parse_json; a line and
// column in its errors are the inflated text's.
nlohmann::json read_json(const std::string& path);
// The name of a document's file less its extension, a compressed file's too: "a/x.json" and "a/x.json.gz" are "x".
std::string document_stem(const std::string& path);

}  // namespace tilewise
