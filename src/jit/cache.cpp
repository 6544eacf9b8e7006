#include "jit/cache.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nvrtc.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <exception>
#include <new>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/file.hpp"
#include "jit/cache_folder.hpp"
#include "jit/nvrtc.hpp"

namespace tilewise::jit {

namespace {

constexpr std::string_view kMagic = "tilewise.jit/2";

// Names entries: SipHash under a fixed, public key is a hash like any other here. What guards an entry is the keyed
// digest the folder checks (jit/cache_folder.hpp), under its secret key.
std::string digest(std::string_view bytes) {
  constexpr std::string_view naming_key("tilewise.jit.naming.key.00000000", 32);
  return fmt::format("{:016x}{:016x}", siphash24(naming_key.substr(0, 16), bytes),
                     siphash24(naming_key.substr(16, 16), bytes));
}

std::string sources_digest(const std::vector<KernelSource>& sources) {
  std::string all;
  for (const KernelSource& k : sources) all += k.name + '\0' + k.text + '\0';
  return digest(all);
}

// Every kernel source, so that editing any header a kernel includes makes a new key.
const std::string& kernel_sources_digest() {
  static const std::string d = sources_digest(kernel_sources());
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

std::string entry_name(const std::string& key) { return key + ".cubin"; }

std::string serialize(const std::string& key, const Built& b) {
  return fmt::format("key {}\nlowered {}\nlog_bytes {}\ncubin_bytes {}\n\n", key, b.lowered_name, b.log.size(),
                     b.cubin.size()) +
         b.log + std::string(b.cubin.begin(), b.cubin.end());
}

// The entry for `key`, or nothing when the folder has no verified entry by that name or it does not parse.
std::optional<Built> read_entry(const CacheFolder& folder, const std::string& key) {
  const std::optional<std::string> text = folder.read(entry_name(key));
  if (!text) return std::nullopt;
  const size_t end = text->find("\n\n");
  if (end == std::string::npos) return std::nullopt;
  std::istringstream header(text->substr(0, end));
  std::string field, stored_key;
  Built b;
  size_t log_bytes = 0, cubin_bytes = 0;
  if (!(header >> field >> stored_key) || field != "key" || stored_key != key) return std::nullopt;
  if (!(header >> field >> b.lowered_name) || field != "lowered") return std::nullopt;
  if (!(header >> field >> log_bytes) || field != "log_bytes") return std::nullopt;
  if (!(header >> field >> cubin_bytes) || field != "cubin_bytes") return std::nullopt;
  const std::string_view payload = std::string_view(*text).substr(end + 2);
  if (log_bytes > payload.size() || payload.size() - log_bytes != cubin_bytes) return std::nullopt;
  b.log = payload.substr(0, log_bytes);
  b.cubin.assign(payload.begin() + std::ptrdiff_t(log_bytes), payload.end());
  b.usage = parse_ptxas_usage(b.log);
  b.from_cache = true;
  return b;
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
// handlers. Returns whether any worker ran: where fork is refused, nothing is built here and the caller compiles
// in-process.
bool compile_in_workers(const std::vector<KernelBuild>& builds, const std::vector<size_t>& missing,
                        const Progress& progress) {
  const size_t workers = std::min(size_t(usable_cores()), missing.size());
  if (workers < 2) return false;
  struct Counters {
    std::atomic<size_t> next{0}, finished{0};
  };
  void* shared = mmap(nullptr, sizeof(Counters), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return false;
  static_assert(std::atomic<size_t>::is_always_lock_free, "the workers share the counters through memory alone");
  auto* counters = new (shared) Counters;
  std::vector<pid_t> pids;
  const pid_t parent = getpid();
  for (size_t w = 0; w < workers; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      // A worker dies with the process that forked it (killed by a signal, or gone for any reason), so stopping
      // `tilewise compile` never leaves compiles running; the check after catches a parent gone before the call.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      for (size_t k = counters->next++; k < missing.size(); k = counters->next++) {
        try {
          build(builds[missing[k]]);
        } catch (...) {  // the parent compiles it again and reports the error
        }
        ++counters->finished;
      }
      _exit(0);
    }
    if (pid > 0) pids.push_back(pid);
  }
  const bool ran = !pids.empty();
  // Polled rather than waited for, so that a long build tells how far it has got.
  for (size_t told = 0; !pids.empty();) {
    std::erase_if(pids, [](pid_t pid) {
      const pid_t r = waitpid(pid, nullptr, WNOHANG);
      return r == pid || (r < 0 && errno != EINTR);
    });
    if (const size_t finished = counters->finished; progress && finished != told)
      progress(told = finished, missing.size());
    if (!pids.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  munmap(shared, sizeof(Counters));
  return ran;
}

}  // namespace

SourcesIdentity kernel_sources_identity() {
  const std::string& folder = kernel_sources_folder();
  // A folder holding the tool's own sources (the checkout's kernels/, as the device scripts set it) is no override.
  if (folder.empty() || kernel_sources_digest() == sources_digest(embedded_kernel_sources()))
    return {kernel_sources_digest(), ""};
  return {kernel_sources_digest(), folder};
}

std::string cache_key(const KernelBuild& b) {
  std::string text = fmt::format("{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}\x1f{}", kMagic, kernel_sources_digest(), b.kernel_file,
                                 b.name_expression, b.arch, nvrtc_version(), b.config_text);
  for (const std::string& o : compile_options(b)) text += "\x1f" + o;
  return digest(text);
}

std::string ResourceUsage::faults() const {
  std::vector<std::string> found;
  if (registers <= 0) found.push_back("NO PTXAS REPORT");
  if (spills()) found.push_back("SPILLS OR LOCAL MEMORY");
  if (wgmma_serialized) found.push_back("SERIALIZED WGMMA");
  return fmt::format("{}", fmt::join(found, ", "));
}

ResourceUsage parse_ptxas_usage(const std::string& log) {
  ResourceUsage u;
  std::smatch m;
  if (std::regex_search(log, m, std::regex(R"(Used (\d+) registers)"))) u.registers = std::stoi(m[1].str());
  u.stack_frame_bytes = match_int(log, std::regex(R"((\d+) bytes stack frame)"));
  u.spill_store_bytes = match_int(log, std::regex(R"((\d+) bytes spill stores)"));
  u.spill_load_bytes = match_int(log, std::regex(R"((\d+) bytes spill loads)"));
  u.shared_bytes = match_int(log, std::regex(R"((\d+) bytes smem)"));
  u.wgmma_serialized = log.find("wgmma.mma_async instructions are serialized") != std::string::npos;
  return u;
}

Built build(const KernelBuild& b) {
  const std::string key = cache_key(b);
  const CacheFolder folder;
  if (std::optional<Built> cached = read_entry(folder, key)) return *std::move(cached);
  CompileRequest req;
  req.name = fmt::format("{} [{}]", b.kernel_file, b.config_text);
  req.source = fmt::format("#include \"{}\"\n", b.kernel_file);
  req.name_expressions = {b.name_expression};
  req.arch = b.arch;
  req.options = compile_options(b);
  Compiled c = compile(req);
  Built out{std::move(c.cubin), c.lowered_names.at(0), std::move(c.log), {}, false};
  out.usage = parse_ptxas_usage(out.log);
  folder.write(entry_name(key), serialize(key, out));
  return out;
}

std::vector<Built> build_all(const std::vector<KernelBuild>& builds, const Progress& progress) {
  std::vector<std::optional<Built>> found(builds.size());
  std::vector<std::string> keys(builds.size());
  std::vector<size_t> missing;  // one index per key the cache lacks: a build asked for twice is compiled once
  std::set<std::string> missing_keys;
  const CacheFolder folder;
  for (size_t i = 0; i < builds.size(); ++i) {
    keys[i] = cache_key(builds[i]);
    if (!(found[i] = read_entry(folder, keys[i])) && missing_keys.insert(keys[i]).second) missing.push_back(i);
  }
  const bool in_workers = compile_in_workers(builds, missing, progress);

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
    if (!in_workers && progress && missing_keys.erase(keys[i]))
      progress(missing.size() - missing_keys.size(), missing.size());
  }
  if (first_error) std::rethrow_exception(first_error);
  return out;
}

}  // namespace tilewise::jit
