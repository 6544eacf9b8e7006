#include "core/file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "core/gzip.hpp"

namespace tilewise::files {

namespace {

std::string why(int err) { return std::strerror(err); }

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// The folder and the name of a path ("a/b.json" -> "a", "b.json"; "b.json" -> ".", "b.json").
std::pair<std::string, std::string> split(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string dir = p.parent_path().string();
  return {dir.empty() ? "." : dir, p.filename().string()};
}

Fd open_folder(const std::string& dir, const std::string& shown) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) throw Error(fmt::format("{}: its folder {} cannot be opened ({})", shown, dir, why(errno)));
  return fd;
}

}  // namespace

Fd& Fd::operator=(Fd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

int Fd::release() {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  for (size_t done = 0; done < n;) {
    const ssize_t got = getrandom(out.data() + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(fmt::format("no random bytes ({})", why(errno)));
    done += size_t(got);
  }
  return out;
}

std::string random_hex() {
  uint64_t r = 0;
  std::memcpy(&r, random_bytes(sizeof r).data(), sizeof r);
  return fmt::format("{:016x}", r);
}

Opened open_regular(int at, const std::string& name, const std::string& shown, Links links) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (links == Links::refuse ? O_NOFOLLOW : 0);
  Opened f{Fd(::openat(at, name.c_str(), flags)), {}};
  if (!f.fd) {
    const int err = errno;
    if (err == ELOOP && links == Links::refuse) throw Error(fmt::format("{}: is a symbolic link", shown));
    throw Error(fmt::format("{}: cannot open ({})", shown, why(err)));
  }
  if (::fstat(f.fd.get(), &f.st) != 0) throw Error(fmt::format("{}: cannot stat ({})", shown, why(errno)));
  if (!S_ISREG(f.st.st_mode)) throw Error(fmt::format("{}: is {}, not a file", shown, kind_of(f.st.st_mode)));
  const int fl = ::fcntl(f.fd.get(), F_GETFL);
  if (fl >= 0) ::fcntl(f.fd.get(), F_SETFL, fl & ~O_NONBLOCK);
  return f;
}

std::string read_opened(const Opened& f, const std::string& shown, int64_t max_bytes) {
  if (f.st.st_size > max_bytes)
    throw Error(fmt::format("{}: holds {} bytes, over the limit of {}", shown, int64_t(f.st.st_size), max_bytes));
  std::string out(size_t(f.st.st_size), '\0');
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(f.fd.get(), out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(fmt::format("{}: read error ({})", shown, why(errno)));
    if (n == 0) throw Error(fmt::format("{}: shrank while it was read", shown));
    done += size_t(n);
  }
  char extra;
  if (::read(f.fd.get(), &extra, 1) > 0) throw Error(fmt::format("{}: grew while it was read", shown));
  return out;
}

std::string read(const std::string& path, int64_t max_bytes) {
  return read_opened(open_regular(AT_FDCWD, path, path, Links::follow), path, max_bytes);
}

namespace {

// What an output may replace, asked or not: a file, or a link to a file or to nothing (the link itself, never what it
// points at). A device or a FIFO at the path is someone else's (`-o /dev/null --overwrite` run as root would replace
// the system's), and so is a link to one (`-o /dev/stdout`). `target` is what the path names with links followed
// (null where nothing is there).
void refuse_to_replace(const struct stat& st, const struct stat* target, const std::string& shown) {
  if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a folder", shown));
  if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
    throw Error(fmt::format("{}: is {}, not a file; an output replaces only a file", shown, kind_of(st.st_mode)));
  if (S_ISLNK(st.st_mode) && target && !S_ISREG(target->st_mode))
    throw Error(fmt::format("{}: is a link to {}, not to a file; an output replaces only a file or a link to one",
                            shown, kind_of(target->st_mode)));
}

}  // namespace

void write_at(int at, const std::string& name, std::string_view bytes, Existing existing, mode_t mode,
              const std::string& shown) {
  struct stat st {};
  if (existing == Existing::refuse && ::fstatat(at, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    throw Error(fmt::format("{} exists; it is replaced only with --overwrite", shown));
  std::string tmp;
  Fd fd;
  for (int attempt = 0; !fd && attempt < 8; ++attempt) {  // a name taken (planted, or another writer's) is skipped
    tmp = fmt::format(".{}.tmp-{}", name.substr(0, 200), random_hex());
    fd = Fd(::openat(at, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (!fd && errno != EEXIST) throw Error(fmt::format("{}: cannot write ({})", shown, why(errno)));
  }
  if (!fd) throw Error(fmt::format("{}: cannot create a temporary file beside it", shown));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      ::unlinkat(at, tmp.c_str(), 0);
      throw Error(fmt::format("{}: cannot write ({})", shown, why(err)));
    }
    done += size_t(n);
  }
  if (::close(fd.release()) != 0) {
    const int err = errno;
    ::unlinkat(at, tmp.c_str(), 0);
    throw Error(fmt::format("{}: cannot write ({})", shown, why(err)));
  }
  // Moving into place never replaces when refusing: renameat2's RENAME_NOREPLACE, or where the file system lacks it,
  // a hard link, which fails on an existing name as well.
  int rc = ::renameat2(at, tmp.c_str(), at, name.c_str(), existing == Existing::refuse ? RENAME_NOREPLACE : 0);
  if (rc != 0 && existing == Existing::refuse && (errno == EINVAL || errno == ENOSYS)) {
    rc = ::linkat(at, tmp.c_str(), at, name.c_str(), 0);
    if (rc == 0) ::unlinkat(at, tmp.c_str(), 0);
  }
  if (rc != 0) {
    const int err = errno;
    ::unlinkat(at, tmp.c_str(), 0);
    if (err == EEXIST) throw Error(fmt::format("{} exists; it is replaced only with --overwrite", shown));
    throw Error(fmt::format("{}: cannot write ({})", shown, why(err)));
  }
}

void write(const std::string& path, std::string_view bytes, Existing existing) {
  if (path.empty()) throw Error("an empty path names no file to write");
  const auto [dir, name] = split(path);
  if (name.empty() || name == "." || name == "..") throw Error(fmt::format("{}: names a folder, not a file", path));
  const Fd folder = open_folder(dir, path);
  struct stat st {}, target {};
  if (::fstatat(folder.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
    refuse_to_replace(st, ::fstatat(folder.get(), name.c_str(), &target, 0) == 0 ? &target : nullptr, path);
  // A .json.gz name holds the JSON compressed, as read_json reads it back.
  const bool compressed = name.ends_with(".json.gz");
  std::string packed;
  try {
    if (compressed) packed = gzip(bytes);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: {}", path, e.what()));
  }
  write_at(folder.get(), name, compressed ? std::string_view(packed) : bytes, existing, 0666, path);
}

void check_output(const std::string& path, Existing existing) {
  if (path.empty()) throw Error("an empty path names no file to write");
  const auto [dir, name] = split(path);
  if (name.empty() || name == "." || name == "..") throw Error(fmt::format("{}: names a folder, not a file", path));
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error(fmt::format("{}: its folder {} does not exist", path, dir));
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  struct stat target {};
  if (exists) refuse_to_replace(st, ::stat(path.c_str(), &target) == 0 ? &target : nullptr, path);
  if (::access(dir.c_str(), W_OK) != 0) throw Error(fmt::format("{}: its folder {} is not writable", path, dir));
  if (exists && existing == Existing::refuse)
    throw Error(fmt::format("{} exists; it is replaced only with --overwrite", path));
}

// By device and inode where both exist; by their resolved paths where one does not yet (a campaign file the run will
// create).
bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  std::error_code ea, eb;
  const auto ca = std::filesystem::weakly_canonical(a, ea), cb = std::filesystem::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

bool exists(const std::string& path, std::string_view what) {
  std::error_code ec;
  const bool there = std::filesystem::exists(path, ec);
  if (ec) throw Error(fmt::format("{}: {} cannot be reached ({})", path, what, ec.message()));
  return there;
}

void refuse_input_as_output(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (same_file(output, input))
      throw Error(fmt::format("{} is the input {}: an output never replaces what it is made from", output, input));
}

void refuse_repeated_inputs(const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    for (size_t j = i + 1; j < inputs.size(); ++j)
      if (same_file(inputs[i], inputs[j]))
        throw Error(fmt::format("{} and {} are one file, given twice: each input counts once", inputs[i], inputs[j]));
}

}  // namespace tilewise::files
