#pragma once
// gzip-compressed documents (a committed receipt stored as x.json.gz), written whole and inflated in memory under a bound (read_json's is
// a plain file's), so that a small file that inflates without end (a gzip bomb) is refused instead of filling memory.
#include <cstdint>
#include <string>
#include <string_view>

namespace tilewise {

// The bytes a gzip stream holds; several members one after another (`cat a.gz b.gz`) inflate as one, as gzip reads
// them. Throws Error "origin: not valid gzip (...)" for an empty input, a stream zlib refuses, or bytes after the last
// member that begin no other; "origin: truncated gzip stream" where the input ends inside a member; and
// "origin: inflates past max_bytes bytes" (max_bytes >= 0) as soon as the output would.
std::string gunzip(std::string_view bytes, const std::string& origin, int64_t max_bytes);
// `bytes` as one gzip member (best compression, no name or time in the header, so equal input gives equal output).
std::string gzip(std::string_view bytes);

}  // namespace tilewise
