#include "jit/cache_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/error.hpp"
#include "jit/cache.hpp"

namespace tilewise::jit {

namespace {

constexpr std::string_view kEntryMagic = "tilewise.jit.entry/2";
constexpr size_t kKeyBytes = 32;
// The largest cubin of the kernel set is under 2 MB; an entry past this is not one of ours.
constexpr int64_t kMaxEntryBytes = int64_t(64) << 20;

uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

uint64_t little_endian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
  return v;
}

std::string home() {
  if (const char* h = std::getenv("HOME"); h && *h) return h;
  // Not a shared temporary folder: anyone could have made that first and filled it.
  if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_dir && *pw->pw_dir) return pw->pw_dir;
  throw Error("no folder for the JIT cache: HOME is unset and the password database names no home; set "
              "TILEWISE_CACHE_DIR to a folder of your own");
}

// The folder itself: ours, and writable by us alone. Group or other read bits alone are taken away (no one else could
// have written there); a folder another user owns, or others can write, is refused.
void check_folder(int fd, const std::filesystem::path& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error(fmt::format("JIT cache {}: cannot stat ({})", path.string(), std::strerror(errno)));
  if (st.st_uid != geteuid())
    throw Error(fmt::format("JIT cache {} belongs to uid {}, not to you (uid {}): its entries cannot be trusted; set "
                            "TILEWISE_CACHE_DIR to a folder of your own",
                            path.string(), st.st_uid, geteuid()));
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw Error(fmt::format("JIT cache {} can be written by others (mode {:04o}): its entries cannot be trusted; remove "
                            "it, or set TILEWISE_CACHE_DIR to a folder of your own",
                            path.string(), st.st_mode & 07777));
  if ((st.st_mode & 077) != 0 && ::fchmod(fd, 0700) != 0)
    throw Error(fmt::format("JIT cache {}: cannot make it private ({})", path.string(), std::strerror(errno)));
}

// A regular file of ours with one link: nothing else in the folder is read.
bool ours(const files::Opened& f) { return f.st.st_uid == geteuid() && f.st.st_nlink == 1; }

std::string read_key(int dir, const std::filesystem::path& path) {
  const std::string shown = (path / "key").string();
  const files::Opened f = files::open_regular(dir, "key", shown, files::Links::refuse);
  if (!ours(f) || (f.st.st_mode & 077) != 0 || f.st.st_size != std::streamoff(kKeyBytes))
    throw Error(fmt::format("{}: owner, mode, links or size are not those it was made with", shown));
  return files::read_opened(f, shown, kKeyBytes);
}

}  // namespace

std::filesystem::path cache_dir() {
  if (const char* dir = std::getenv("TILEWISE_CACHE_DIR"); dir && *dir) return dir;
  return std::filesystem::path(home()) / ".cache" / "tilewise";
}

uint64_t siphash24(std::string_view key, std::string_view bytes) {
  const uint64_t k0 = little_endian(key.data(), 8), k1 = little_endian(key.data() + 8, 8);
  uint64_t v0 = k0 ^ 0x736f6d6570736575ull, v1 = k1 ^ 0x646f72616e646f6dull;
  uint64_t v2 = k0 ^ 0x6c7967656e657261ull, v3 = k1 ^ 0x7465646279746573ull;
  const auto rounds = [&](int n) {
    for (int i = 0; i < n; ++i) {
      v0 += v1, v1 = rotl(v1, 13), v1 ^= v0, v0 = rotl(v0, 32);
      v2 += v3, v3 = rotl(v3, 16), v3 ^= v2;
      v0 += v3, v3 = rotl(v3, 21), v3 ^= v0;
      v2 += v1, v1 = rotl(v1, 17), v1 ^= v2, v2 = rotl(v2, 32);
    }
  };
  const size_t whole = bytes.size() / 8 * 8;
  for (size_t i = 0; i < whole; i += 8) {
    const uint64_t m = little_endian(bytes.data() + i, 8);
    v3 ^= m, rounds(2), v0 ^= m;
  }
  const uint64_t last = (uint64_t(bytes.size()) << 56) | little_endian(bytes.data() + whole, bytes.size() - whole);
  v3 ^= last, rounds(2), v0 ^= last;
  v2 ^= 0xff, rounds(4);
  return v0 ^ v1 ^ v2 ^ v3;
}

CacheFolder::CacheFolder() : path_(cache_dir()) {
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  if (::mkdir(path_.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(fmt::format("JIT cache {}: cannot create it ({})", path_.string(), std::strerror(errno)));
  fd_ = files::Fd(::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd_) throw Error(fmt::format("JIT cache {}: cannot open it ({})", path_.string(), std::strerror(errno)));
  check_folder(fd_.get(), path_);
  try {
    key_ = read_key(fd_.get(), path_);
  } catch (const Error& e) {
    struct stat st {};
    if (::fstatat(fd_.get(), "key", &st, AT_SYMLINK_NOFOLLOW) == 0)
      throw Error(fmt::format("JIT cache {}: its key is not a key this cache made ({}); remove the folder to start it "
                              "again",
                              path_.string(), e.what()));
    try {
      files::write_at(fd_.get(), "key", files::random_bytes(kKeyBytes), files::Existing::refuse, 0600,
                      (path_ / "key").string());
    } catch (const Error&) {  // another process made it first: theirs is read below
    }
    key_ = read_key(fd_.get(), path_);
  }
}

std::string CacheFolder::digest(const std::string& name, std::string_view payload) const {
  std::string text = name;
  text += '\0';
  text += payload;
  const std::string_view key(key_);
  return fmt::format("{:016x}{:016x}", siphash24(key.substr(0, 16), text), siphash24(key.substr(16, 16), text));
}

std::optional<std::string> CacheFolder::read(const std::string& name) const {
  const std::string shown = (path_ / name).string();
  std::string bytes;
  try {
    const files::Opened f = files::open_regular(fd_.get(), name, shown, files::Links::refuse);
    if (!ours(f)) return std::nullopt;
    bytes = files::read_opened(f, shown, kMaxEntryBytes);
  } catch (const Error&) {  // missing, a link, a FIFO, a device, too large: rebuilt
    return std::nullopt;
  }
  const size_t line = bytes.find('\n');
  if (line == std::string::npos) return std::nullopt;
  const std::string head = bytes.substr(0, line), payload = bytes.substr(line + 1);
  if (head != fmt::format("{} {}", kEntryMagic, digest(name, payload))) return std::nullopt;
  return payload;
}

void CacheFolder::write(const std::string& name, std::string_view payload) const {
  const std::string bytes = fmt::format("{} {}\n", kEntryMagic, digest(name, payload)) + std::string(payload);
  try {
    files::write_at(fd_.get(), name, bytes, files::Existing::replace, 0600, (path_ / name).string());
  } catch (const Error&) {
  }
}

}  // namespace tilewise::jit
