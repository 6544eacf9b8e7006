#include "cli/compile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/error.hpp"
#include "core/file.hpp"
#include "core/problem.hpp"
#include "core/suite.hpp"
#include "families/registry.hpp"
#include "families/sm90/feasibility.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/heuristic.hpp"
#include "jit/cache.hpp"
#include "select/choice.hpp"

namespace tilewise::cli {

namespace {

constexpr int kSmCount = 132;  // an H200's: the rules size their grids for it, as without a GPU they do everywhere
// Past this many instantiations the whole feasible set is built only when asked for (--all): one problem's is some
// 283,000, days of building, which a command given no option once began without a word.
constexpr size_t kUnaskedBuilds = 1000;

struct Job {
  jit::KernelBuild build;
  std::string what;  // "bf16 TN block_m=..."
  int dynamic_shared = 0;
};

// The distinct instantiations the options name: configurations depend on a problem only through its type, its A
// layout and the feasibility rules, so problems that share them share builds.
std::vector<Job> jobs_for(const CompileOptions& o) {
  std::map<std::string, Job> unique;
  std::map<std::string, std::string> never_feasible;  // a configuration asked for by name -> why it cannot run
  for (const std::string& text : o.configs) never_feasible[text] = "no problem matched";
  for (const SuiteCase& sc : expand_suites(o.suites, o.only, o.dtypes, o.layouts)) {
    if (sc.dtype == DType::fp8_e4m3 && sc.layout == Layout::NN) continue;
    const Problem p = make_problem(sc);
    validate(p);  // a size past what kernels index is named, not reported as a problem no family takes
    std::vector<sm90::Config> configs;
    if (o.first_rule_only || o.first_use) {  // every family's rule: sm90's first rule and the GEMV's default
      std::vector<select::Choice> choices = select::rule_choices(p, kSmCount);
      if (o.first_use)  // and the rest of what first-use tuning builds (select/first_use.hpp)
        for (const families::Family* f : families::all_families())
          for (std::string& c : f->rule_candidates(p, kSmCount)) choices.push_back({std::string(f->name()), std::move(c), "", 0});
      for (const select::Choice& c : choices)
        for (families::Instantiation& in : families::family(c.family).instantiations(p, c.config)) {
          Job j{std::move(in.build), "", in.dynamic_shared_bytes};
          j.what = c.family + " " + j.build.config_text;
          unique.emplace(j.build.name_expression, std::move(j));
        }
      continue;
    }
    try {
      if (!o.configs.empty()) {
        for (const std::string& text : o.configs) {
          const sm90::Config c = sm90::parse_config(text);
          if (const auto why = sm90::infeasible(c, p)) {
            if (never_feasible.count(text)) never_feasible[text] = describe(p) + ": " + *why;
          } else {
            configs.push_back(c);
            never_feasible.erase(text);
          }
        }
      } else if (o.sweep) {
        sm90::Limits limits;
        limits.sm_count = kSmCount;
        configs = sm90::sweep_candidates(p, limits);
      } else {
        configs = sm90::feasible_set(p);
      }
    } catch (const Unsupported&) {
      continue;  // a stride TMA cannot load: nothing in the family builds for it
    }
    for (size_t i = 0; i < configs.size(); i += size_t(std::max(1, o.every))) {
      Job j{sm90::kernel_build(configs[i], p), "", sm90::shared_bytes(configs[i])};
      j.what = j.build.config_text;
      unique.emplace(j.build.name_expression, std::move(j));
    }
  }
  for (const auto& [text, why] : never_feasible)
    throw Error(fmt::format("configuration '{}' runs none of the problems asked for ({})", text, why));
  std::vector<Job> out;
  for (auto& [_, j] : unique) out.push_back(std::move(j));
  return out;
}

// "block_m=256,...,split=1 for bf16 TN" -> "block_m256.....split1.bf16.TN.cubin": one file name per instantiation.
std::filesystem::path cubin_name(const std::string& what) {
  std::string name;
  for (char ch : what) {
    if (ch == '=') continue;
    name += (ch == ',' || ch == ' ') ? '.' : ch;
  }
  size_t at;
  while ((at = name.find(".for.")) != std::string::npos) name.replace(at, 5, ".");
  return name + ".cubin";
}

std::string cubin_path(const std::string& dir, const Job& j) {
  return (std::filesystem::path(dir) / cubin_name(j.what)).string();
}

// "45 s", "12 min", "3.1 h": a duration as a person reads it.
std::string readable(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

}  // namespace

int run_compile(const CompileOptions& o) {
  const std::vector<Job> jobs = jobs_for(o);
  if (jobs.empty())
    throw Error("nothing to build: the family takes none of these problems in these dtypes and layouts (fp8 runs TN "
                "only; a stride TMA cannot load has no sm90 configuration)");
  const bool chosen = o.all || o.first_rule_only || o.first_use || o.sweep || !o.configs.empty() || o.every > 1;
  if (!chosen && jobs.size() > kUnaskedBuilds)
    throw Error(fmt::format("{} instantiations make the whole feasible set of these problems (one problem's alone "
                            "takes days to build): say what to build with --first-rule, --first-use, --sweep, "
                            "--config C or --every N, or give --all",
                            jobs.size()));
  if (!o.cubin_dir.empty()) {  // before the build, not after minutes of it
    std::error_code ec;
    std::filesystem::create_directories(o.cubin_dir, ec);
    if (ec || !std::filesystem::is_directory(o.cubin_dir))
      throw Error(fmt::format("--cubin-dir {}: cannot make that folder ({})", o.cubin_dir,
                              ec ? ec.message() : "not a folder"));
  }
  const files::Existing existing = o.overwrite ? files::Existing::replace : files::Existing::refuse;
  // Over a file already there (an earlier run's cubin, or anything else the folder holds) only with --overwrite, and
  // refused before minutes of building.
  if (!o.cubin_dir.empty())
    for (const Job& j : jobs) files::check_output(cubin_path(o.cubin_dir, j), existing);
  std::vector<jit::KernelBuild> builds;
  for (const Job& j : jobs) builds.push_back(j.build);
  fmt::print(stderr, "compiling {} instantiations into {} ...\n", builds.size(), jit::cache_dir().string());
  const auto t0 = std::chrono::steady_clock::now();
  // How far a long build has got, every 10 s and at its end; a build the cache holds whole prints none.
  auto told = t0;
  const jit::Progress progress = [&](size_t finished, size_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (finished < total && now - told < std::chrono::seconds(10)) return;
    told = now;
    const double s = std::chrono::duration<double>(now - t0).count();
    const double left = s * double(total - finished) / double(finished);
    fmt::print(stderr, "[{}/{}] after {}{}\n", finished, total, readable(s),
               finished < total ? fmt::format(", about {} to go", readable(left)) : "");
  };
  const std::vector<jit::Built> built = jit::build_all(builds, progress);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  int bad = 0, cached = 0;
  size_t width = 13;
  for (const Job& j : jobs) width = std::max(width, j.what.size());
  fmt::print("{:<{}} {:>4} {:>6} {:>6} {:>8} {:>6}  {}\n", "configuration", width, "regs", "spill", "stack", "smem KB",
             "wgmma", "");
  for (size_t i = 0; i < jobs.size(); ++i) {
    const jit::ResourceUsage& u = built[i].usage;
    const std::string faults = u.faults();
    bad += faults.empty() ? 0 : 1;
    cached += built[i].from_cache ? 1 : 0;
    if (!o.cubin_dir.empty())
      files::write(cubin_path(o.cubin_dir, jobs[i]), std::string_view(built[i].cubin.data(), built[i].cubin.size()),
                   existing);
    fmt::print("{:<{}} {:>4} {:>6} {:>6} {:>8.1f} {:>6}  {}\n", jobs[i].what, width, u.registers,
               u.spill_store_bytes + u.spill_load_bytes, u.stack_frame_bytes,
               (jobs[i].dynamic_shared + u.shared_bytes) / 1024.0, u.wgmma_serialized ? "serial" : "async",
               faults);
  }
  fmt::print("{} built ({} from the cache) in {:.1f} s; {} with spills, local memory or serialized wgmma\n",
             built.size(), cached, seconds, bad);
  return bad ? 1 : 0;
}

}  // namespace tilewise::cli
