#include "core/gzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "core/error.hpp"

namespace tilewise {

namespace {

std::string zlib_says(const z_stream& z, int status) {
  return z.msg ? std::string(z.msg) : fmt::format("zlib status {}", status);
}

// Bytes after a whole member that do not make another: named with where the stream ended.
std::string after_stream(const std::string& origin, size_t after, size_t end, const char* are_not) {
  return fmt::format("{}: not valid gzip (the {} byte{} after the gzip stream, which ends at byte {}, {} not {})",
                     origin, after, after == 1 ? "" : "s", end, after == 1 ? "is" : "are", are_not);
}

}  // namespace

std::string gunzip(std::string_view bytes, const std::string& origin, int64_t max_bytes) {
  if (bytes.empty()) throw Error(fmt::format("{}: not valid gzip (it is empty)", origin));
  z_stream z{};
  if (const int status = inflateInit2(&z, 15 + 16); status != Z_OK)  // +16: a gzip header and trailer, not zlib's
    throw Error(fmt::format("{}: cannot inflate ({})", origin, zlib_says(z, status)));
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, inflateEnd);
  // Whether the member being read got past its header: bytes after the last member that are not a header are named
  // as such, not as a corrupt stream.
  gz_header header{};
  inflateGetHeader(&z, &header);
  size_t fed = 0;         // bytes handed to zlib
  size_t member_end = 0;  // where the last whole member ended; 0 while none has
  std::string out;
  std::string chunk(size_t(64) << 10, '\0');  // each call inflates into this, then what it made is appended
  for (;;) {
    if (z.avail_in == 0 && fed < bytes.size()) {  // avail_in is 32 bits: a larger input goes in pieces
      const size_t piece = std::min(bytes.size() - fed, size_t(1) << 30);
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + fed));
      z.avail_in = uInt(piece);
      fed += piece;
    }
    z.next_out = reinterpret_cast<Bytef*>(chunk.data());
    z.avail_out = uInt(chunk.size());
    const int status = inflate(&z, Z_NO_FLUSH);
    const size_t made = chunk.size() - z.avail_out;
    if (int64_t(out.size() + made) > max_bytes) throw Error(fmt::format("{}: inflates past {} bytes", origin, max_bytes));
    out.append(chunk.data(), made);
    if (status == Z_OK) continue;
    if (status == Z_STREAM_END) {
      const size_t read = fed - z.avail_in;
      if (read == bytes.size()) return out;
      member_end = read;  // another member follows, as in `cat a.gz b.gz`
      inflateReset(&z);
      header = {};
      inflateGetHeader(&z, &header);
      continue;
    }
    // With room to write, no progress means the input ended inside a member; after a whole one, inside the header
    // of what may not be a member at all (a newline or a zero byte appended).
    if (status == Z_BUF_ERROR && member_end > 0 && header.done == 0)
      throw Error(after_stream(origin, bytes.size() - member_end, member_end, "another whole gzip member"));
    if (status == Z_BUF_ERROR) throw Error(fmt::format("{}: truncated gzip stream", origin));
    if (status == Z_MEM_ERROR) throw Error(fmt::format("{}: out of memory while inflating", origin));
    if (status == Z_DATA_ERROR && member_end > 0 && header.done != 1)  // -1: no gzip header at all
      throw Error(after_stream(origin, bytes.size() - member_end, member_end, "another gzip member"));
    throw Error(fmt::format("{}: not valid gzip ({})", origin, zlib_says(z, status)));
  }
}

std::string gzip(std::string_view bytes) {
  z_stream z{};
  if (const int status = deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
      status != Z_OK)
    throw Error(fmt::format("cannot start compressing ({})", zlib_says(z, status)));
  const std::unique_ptr<z_stream, int (*)(z_stream*)> end(&z, deflateEnd);
  // One call takes the whole input into an output as large as zlib's bound: both must fit its 32-bit counts.
  const uLong bound = deflateBound(&z, uLong(bytes.size()));
  if (bound > std::numeric_limits<uInt>::max())
    throw Error(fmt::format("cannot compress {} bytes in one piece", bytes.size()));
  std::string out(bound, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = uInt(bytes.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  if (const int status = deflate(&z, Z_FINISH); status != Z_STREAM_END)  // the bound leaves room for all of it
    throw Error(fmt::format("cannot compress ({})", zlib_says(z, status)));
  out.resize(z.total_out);
  return out;
}

}  // namespace tilewise
