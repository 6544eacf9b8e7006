#include "jit/cache.hpp"

#include <fmt/format.h>
#include <nvrtc.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <new>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "jit/nvrtc.hpp"

namespace tilewise::jit {

namespace {

constexpr std::string_view kMagic = "tilewise.jit/1";

uint64_t fnv1a(std::string_view bytes, uint64_t h) {
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::string digest(std::string_view bytes) {
  return fmt::format("{:016x}{:016x}", fnv1a(bytes, 0xcbf29ce484222325ull), fnv1a(bytes, 0x84222325cbf29ce4ull));
}

// Every kernel source, so that editing any header a kernel includes makes a new key.
const std::string& kernel_sources_digest() {
  static const std::string d = [] {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::recursive_directory_iterator(kernels_dir()))
      if (e.is_regular_file()) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::string all;
    for (const auto& f : files) {
      std::ifstream in(f, std::ios::binary);
      all += f.filename().string() + '\0' + std::string(std::istreambuf_iterator<char>(in), {}) + '\0';
    }
    return digest(all);
  }();
  return d;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::vector<std::string> compile_options(const KernelBuild& b) {
  std::vector<std::string> opts = {"--ptxas-options=-v", "-lineinfo"};
  opts.insert(opts.end(), b.options.begin(), b.options.end());
  return opts;
}

std::filesystem::path entry_path(const std::string& key) { return cache_dir() / (key + ".cubin"); }

std::string serialize(const std::string& key, const Built& b) {
  const std::string payload = b.log + std::string(b.cubin.begin(), b.cubin.end());
  return fmt::format("{}\nkey {}\nlowered {}\nlog_bytes {}\ncubin_bytes {}\nchecksum {}\n\n", kMagic, key, b.lowered_name,
                     b.log.size(), b.cubin.size(), digest(payload)) +
         payload;
}

// The entry for `key`, or nothing when it is missing or does not read back whole.
std::optional<Built> read_entry(const std::string& key) {
  std::ifstream in(entry_path(key), std::ios::binary);
  if (!in) return std::nullopt;
  const std::string text(std::istreambuf_iterator<char>(in), {});
  const size_t end = text.find("\n\n");
  if (end == std::string::npos) return std::nullopt;
  std::istringstream header(text.substr(0, end));
  std::string magic, field, stored_key, checksum;
  Built b;
  size_t log_bytes = 0, cubin_bytes = 0;
  if (!std::getline(header, magic) || magic != kMagic) return std::nullopt;
  if (!(header >> field >> stored_key) || field != "key" || stored_key != key) return std::nullopt;
  if (!(header >> field >> b.lowered_name) || field != "lowered") return std::nullopt;
  if (!(header >> field >> log_bytes) || field != "log_bytes") return std::nullopt;
  if (!(header >> field >> cubin_bytes) || field != "cubin_bytes") return std::nullopt;
  if (!(header >> field >> checksum) || field != "checksum") return std::nullopt;
  const std::string payload = text.substr(end + 2);
  if (payload.size() != log_bytes + cubin_bytes || digest(payload) != checksum) return std::nullopt;
  b.log = payload.substr(0, log_bytes);
  b.cubin.assign(payload.begin() + std::ptrdiff_t(log_bytes), payload.end());
  b.usage = parse_ptxas_usage(b.log);
  b.from_cache = true;
  return b;
}

// Written beside the entry and renamed over it, so a reader sees either no entry or a whole one.
void write_entry(const std::string& key, const Built& b) {
  std::error_code ec;
  std::filesystem::create_directories(cache_dir(), ec);
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path final_path = entry_path(key);
  const std::filesystem::path tmp = final_path.string() + fmt::format(".tmp.{}.{}", getpid(), counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    const std::string bytes = serialize(key, b);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;  // a cache that cannot be written only costs a compile next time
    }
  }
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

int match_int(const std::string& log, const std::regex& re) {
  std::smatch m;
  return std::regex_search(log, m, re) ? std::stoi(m[1].str()) : 0;
}

int usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

// NVRTC serializes much of a compile inside one process: two threads on two cores built 1.3x as fast as one, sixteen
// on sixteen no faster than one, while separate processes scale with the cores. So the builds the cache lacks are
// compiled by forked workers (one per usable core), which take the next build from a counter they share, store it
// in the cache and leave by _exit: a child of a process with a CUDA context must not touch CUDA or run its exit
// handlers. Where fork is refused, nothing is built here and the caller compiles in-process.
void compile_in_workers(const std::vector<KernelBuild>& builds, const std::vector<size_t>& missing) {
  const size_t workers = std::min(size_t(usable_cores()), missing.size());
  if (workers < 2) return;
  void* shared = mmap(nullptr, sizeof(std::atomic<size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return;
  static_assert(std::atomic<size_t>::is_always_lock_free, "the workers share the counter through memory alone");
  auto* next = new (shared) std::atomic<size_t>(0);
  std::vector<pid_t> pids;
  for (size_t w = 0; w < workers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      for (size_t k = (*next)++; k < missing.size(); k = (*next)++) try {
          build(builds[missing[k]]);
        } catch (...) {  // the parent compiles it again and reports the error
        }
      _exit(0);
    }
    if (pid > 0) pids.push_back(pid);
  }
  for (const pid_t pid : pids)
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  munmap(shared, sizeof(std::atomic<size_t>));
}

}  // namespace

std::filesystem::path cache_dir() {
  if (const char* dir = std::getenv("TILEWISE_CACHE_DIR"); dir && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "tilewise";
  return std::filesystem::temp_directory_path() / "tilewise-cache";
}

std::string cache_key(const KernelBuild& b) {
  std::string text = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", kMagic, kernel_sources_digest(), b.kernel_file,
                                 b.name_expression, b.arch, nvrtc_version(), b.config_text);
  for (const std::string& o : compile_options(b)) text += "\x1f" + o;
  return digest(text);
}

ResourceUsage parse_ptxas_usage(const std::string& log) {
  ResourceUsage u;
  std::smatch m;
  if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)"))) u.registers = std::stoi(m[1].str());
  u.stack_frame_bytes = match_int(log, std::regex(R"((\d+) bytes stack frame)"));
  u.spill_store_bytes = match_int(log, std::regex(R"((\d+) bytes spill stores)"));
  u.spill_load_bytes = match_int(log, std::regex(R"((\d+) bytes spill loads)"));
  u.shared_bytes = match_int(log, std::regex(R"((\d+) bytes smem)"));
  return u;
}

Built build(const KernelBuild& b) {
  const std::string key = cache_key(b);
  if (std::optional<Built> cached = read_entry(key)) return *std::move(cached);
  CompileRequest req;
  req.name = fmt::format("{} [{}]", b.kernel_file, b.config_text);
  req.source = fmt::format("#include \"{}\"\n", b.kernel_file);
  req.name_expressions = {b.name_expression};
  req.arch = b.arch;
  req.options = compile_options(b);
  Compiled c = compile(req);
  Built out{std::move(c.cubin), c.lowered_names.at(0), std::move(c.log), {}, false};
  out.usage = parse_ptxas_usage(out.log);
  write_entry(key, out);
  return out;
}

std::vector<Built> build_all(const std::vector<KernelBuild>& builds) {
  std::vector<std::optional<Built>> found(builds.size());
  std::vector<size_t> missing;  // one index per key the cache lacks: a build asked for twice is compiled once
  std::set<std::string> missing_keys;
  for (size_t i = 0; i < builds.size(); ++i) {
    const std::string key = cache_key(builds[i]);
    if (!(found[i] = read_entry(key)) && missing_keys.insert(key).second) missing.push_back(i);
  }
  compile_in_workers(builds, missing);

  // Every entry read back: a worker's build from the cache, a failure (or one a worker could not store) compiled
  // again here, so that its error carries its own message.
  std::vector<Built> out(builds.size());
  std::exception_ptr first_error;
  for (size_t i = 0; i < builds.size(); ++i) {
    if (found[i]) {
      out[i] = *std::move(found[i]);
      continue;
    }
    try {
      out[i] = build(builds[i]);
      out[i].from_cache = false;  // built by this call, whichever process compiled it
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  return out;
}

}  // namespace tilewise::jit
