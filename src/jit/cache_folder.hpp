#pragma once
// The JIT cache's folder, which runs only what this cache built (docs/reliability.md, "The JIT cache"):
//   - the folder is created 0700, and used only while it belongs to the user running and no one else can write it;
//     with HOME unset it is the user's home from the password database, never a shared temporary folder;
//   - it holds a secret key (`key`, 0600, random bytes made at its creation), and every entry carries a keyed digest
//     (SipHash-2-4, twice, under the key's two halves) of its name, its ptxas log and its cubin: an entry this cache
//     did not write, or one edited since (a forged cubin, a register count changed in the log), does not verify;
//   - an entry is opened without following a link or blocking on a FIFO, and read only when it is a regular file of
//     the user's with one link and a bounded size; anything else is rebuilt and replaced, never loaded;
//   - entries are written through files::write_at: an exclusive temporary file under a random name, renamed over.
// The trust boundary this leaves is the user's own account: what runs as the user (or root) can read the key.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/file.hpp"

namespace tilewise::jit {

// SipHash-2-4 of `bytes` under the 16-byte `key` (Aumasson and Bernstein, 2012).
uint64_t siphash24(std::string_view key, std::string_view bytes);

class CacheFolder {
 public:
  // Opens (creating it where missing) and checks cache_dir() (jit/cache.hpp); throws Error naming the folder and the fix when it
  // belongs to someone else, others can write it, or its key is not one this cache made.
  CacheFolder();

  const std::filesystem::path& path() const { return path_; }
  // The entry `name` as written, or nothing when it is missing or anything but a verified entry of this cache.
  std::optional<std::string> read(const std::string& name) const;
  // Stores `payload` as `name`; a failed write costs only a compile next time, so it is not an error.
  void write(const std::string& name, std::string_view payload) const;

 private:
  std::string digest(const std::string& name, std::string_view payload) const;

  std::filesystem::path path_;
  files::Fd fd_;
  std::string key_;  // 32 bytes
};

}  // namespace tilewise::jit
