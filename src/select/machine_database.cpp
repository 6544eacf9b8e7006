#include "select/machine_database.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/file.hpp"
#include "select/database_file.hpp"
#include "select/json_file.hpp"

namespace tilewise::select {

namespace {

std::string from_environment(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// An exclusive flock on `path`.lock for the scope: released by the kernel if the holder dies, so a crashed writer
// never leaves the database locked.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : path_(path + ".lock") {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error(fmt::format("{}: cannot open the lock file", path_));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) {
        ::close(fd_);
        throw Error(fmt::format("{}: cannot lock", path_));
      }
  }
  ~FileLock() { ::close(fd_); }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  std::string path_;
  int fd_ = -1;
};

std::string suite_line(const Problem& p) {
  const Problem packed = make_problem("", p.M, p.N, p.K, p.dtype, p.layout, 0);
  const int64_t pad = p.lda - packed.lda;
  const bool even = p.ldb - packed.ldb == pad && p.ldc - packed.ldc == pad && pad >= 0;
  const std::string name = fmt::format("m{}n{}k{}_{}_{}{}", p.M, p.N, p.K, to_string(p.dtype), to_string(p.layout),
                                       even && pad ? fmt::format("_pad{}", pad) : even ? "" : "_ld");
  std::string line = fmt::format("{} {} {} {} dtype={} layout={}", name, p.M, p.N, p.K, to_string(p.dtype),
                                 to_string(p.layout));
  if (even && pad) line += fmt::format(" pad={}", pad);
  if (!even) line += fmt::format("  # seen with lda={} ldb={} ldc={}", p.lda, p.ldb, p.ldc);
  return line;
}

}  // namespace

std::string machine_database_path() {
  if (std::string db = from_environment("TILEWISE_DB"); !db.empty()) return db;
  if (std::string cache = from_environment("XDG_CACHE_HOME"); !cache.empty()) return cache + "/tilewise/database.json";
  if (std::string home = from_environment("HOME"); !home.empty()) return home + "/.cache/tilewise/database.json";
  throw Error("first-use tuning has nowhere to keep its database: set TILEWISE_DB (or HOME)");
}

std::string recorded_suite_path() {
  if (std::string suite = from_environment("TILEWISE_SUITE"); !suite.empty()) return suite;
  return (std::filesystem::path(machine_database_path()).parent_path() / "signatures.txt").string();
}

void record_tuned(const std::string& path, const Identity& id, const Problem& p, const Choice& winner,
                  const std::string& source) {
  const FileLock lock(path);
  Database db = files::exists(path, "the per-machine database (TILEWISE_DB)") ? read_database(path) : Database{};
  if (auto r = db.records.find(signature(p)); r != db.records.end())
    if (auto e = r->second.families.find(winner.family);
        e != r->second.families.end() && !(identity_of(db, e->second) == id))
      r->second.families.erase(e);
  add(db, id, p, winner.family, winner.config, winner.us, source);
  write_database(db, path);
}

void record_signature(const std::string& path, const Problem& p) {
  const FileLock lock(path);
  const std::string line = suite_line(p);
  const std::string name = line.substr(0, line.find(' '));
  {
    std::ifstream in(path);
    for (std::string have; std::getline(in, have);)
      if (have.substr(0, have.find(' ')) == name) return;
  }
  std::ofstream out(path, std::ios::app);
  out << line << '\n';
  if (!out.flush()) throw Error(fmt::format("{}: cannot append", path));
}

}  // namespace tilewise::select
