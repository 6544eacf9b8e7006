#pragma once
// Every file a command reads or writes goes through here, under one set of rules (docs/reliability.md):
//   - an input is a regular file of a bounded size: a folder, a FIFO or a device is refused by name, and opening a
//     FIFO never blocks;
//   - an output is written to a temporary file created exclusively (O_EXCL) under an unpredictable name beside it,
//     then moved into place, so a crash leaves the old file or the new one, a planted link is never written through,
//     and an existing file is replaced only when asked.
// The functions taking a folder descriptor (`at`) work inside an already opened folder; the JIT cache uses them so
// that every entry it touches is in the folder whose owner and mode it checked.
#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilewise::files {

// JSON, TOML and suite files larger than this are refused rather than read into memory.
inline constexpr int64_t kMaxTextBytes = int64_t(1) << 30;

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release();
  explicit operator bool() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

enum class Links { follow, refuse };

struct Opened {
  Fd fd;
  struct stat st {};
};

// Opens `name` (relative to the folder `at`; AT_FDCWD for a path) for reading. Throws Error "shown: why" when it is
// missing, a symbolic link under Links::refuse, or not a regular file.
Opened open_regular(int at, const std::string& name, const std::string& shown, Links links);
// The whole of an opened file; throws Error when it holds more than `max_bytes` or changes size while read.
std::string read_opened(const Opened& f, const std::string& shown, int64_t max_bytes);

// The whole of the regular file `path`, following links; throws Error "path: why".
std::string read(const std::string& path, int64_t max_bytes = kMaxTextBytes);

// Whether anything is at `path` (a link counts as what it points at). Throws Error "path: `what` cannot be reached
// (why)" where the answer is not known (a loop of links, a folder that may not be searched): std::filesystem's own
// exception there named neither the file's purpose nor a way out.
bool exists(const std::string& path, std::string_view what);

enum class Existing { refuse, replace };

// Writes `bytes` as `name` in the open folder `at` with permissions `mode` (less the umask), through an exclusive
// temporary file. Under Existing::refuse an existing `name` is left as it was and the call throws Error naming it;
// under Existing::replace whatever is at `name` is replaced (the JIT cache, in a folder only it writes).
void write_at(int at, const std::string& name, std::string_view bytes, Existing existing, mode_t mode,
              const std::string& shown);
// The same for a user's path: its folder must exist, and what it replaces (with Existing::replace) may only be a file
// or a link (the link itself): a folder, FIFO or device there is refused by name.
// A name ending in .json.gz is written gzip-compressed, as read_json reads it; other names are written as given.
void write(const std::string& path, std::string_view bytes, Existing existing);

// Throws Error unless `path` can be written: its folder exists and is writable, and nothing but a file or a link is
// at `path`; under Existing::refuse also when anything is. Called before long work (a benchmark, a tuning run) so
// that it fails in the first second.
void check_output(const std::string& path, Existing existing);

// Throws Error when `output` is the same file as one of `inputs` (compared by device and inode, so another spelling
// or a link to the file counts; by resolved path where one does not exist yet): an output never replaces what it was
// made from.
void refuse_input_as_output(const std::string& output, const std::vector<std::string>& inputs);
// Whether two paths name one file: by device and inode where both exist, else by their resolved paths.
bool same_file(const std::string& a, const std::string& b);
// Throws Error when two of `inputs` are the same file (as refuse_input_as_output compares them): a receipt given
// twice would count its problems twice.
void refuse_repeated_inputs(const std::vector<std::string>& inputs);

// Bytes from the kernel's random source (a secret key), and sixteen hex digits of them (a name no other process can
// predict).
std::string random_bytes(size_t n);
std::string random_hex();

}  // namespace tilewise::files
