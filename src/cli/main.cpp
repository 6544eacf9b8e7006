// tilewise: the command line. Every command is a thin client of the library layers below it.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <set>

#include "bench/runner.hpp"
#include "cli/check.hpp"
#include "cli/compile.hpp"
#include "cli/fit.hpp"
#include "cli/floor.hpp"
#include "cli/lists.hpp"
#include "cli/options.hpp"
#include "cli/tune.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/suite.hpp"
#include "device/clocks.hpp"
#include "device/cuda.hpp"
#include "device/machine.hpp"
#include "families/gemv/weight_file.hpp"
#include "protocol/protocol.hpp"
#include "receipt/check.hpp"
#include "receipt/derive.hpp"
#include "report/headline.hpp"
#include "report/page.hpp"
#include "report/table.hpp"
#include "select/choice_table.hpp"
#include "select/database_file.hpp"
#include "select/machine_database.hpp"
#include "select/shipped.hpp"
#include "tilewise_version.hpp"

namespace tw = tilewise;
using tilewise::cli::split_list;

namespace {


int cmd_info(const CLI::App& app) {
  const tw::receipt::Machine libs = tw::device::library_versions();
  fmt::print("tilewise {} ({}{})\n", tw::build::version, tw::build::commit, tw::build::dirty ? ", dirty tree" : "");
  fmt::print("CUDA runtime {}, cuBLASLt {}, NVRTC {}\n", libs.cuda_runtime, libs.cublaslt, libs.nvrtc);
  try {
    tw::device::require_gpu();
  } catch (const tw::Error& e) {
    fmt::print("{}\ncommands that work without a GPU: {}\n", e.what(),
               fmt::join(tw::cli::commands_in(app, tw::cli::kNoGpu), ", "));
    return 0;
  }
  tw::device::Nvml nvml(tw::device::pci_bus_id(0));
  const tw::receipt::Machine m = tw::device::describe_machine(nvml);
  fmt::print("GPU {}: compute capability {}, {} SMs, {:.0f} MB L2, {} KB shared memory per block (opt-in), {:.1f} GiB\n",
             m.gpu, m.cc, m.sm_count, m.l2_bytes / 1e6, m.smem_per_block_optin / 1024, m.memory_bytes / 1073741824.0);
  fmt::print("driver {}\n", m.driver);
  if (!nvml.available()) {
    fmt::print("clocks: unavailable ({})\n", nvml.why_unavailable());
    return 0;
  }
  const tw::receipt::ClockSample s = nvml.sample(0);
  fmt::print("clocks now: SM {} MHz (max {}), memory {} MHz (max {}), {:.0f} W of {:.0f} W, {} C", s.sm_mhz,
             m.sm_clock_max_mhz, s.mem_mhz, m.mem_clock_max_mhz, s.power_w, m.power_limit_w, s.temp_c);
  const auto reasons = tw::receipt::reason_names(s.reasons);
  fmt::print("{}\n", reasons.empty() ? "" : fmt::format(", reasons: {}", fmt::join(reasons, " ")));
  return 0;
}

// Exits 1 when the library refuses any problem, after every line's verdict.
int cmd_suite(const std::vector<std::string>& files, const std::vector<tw::DType>& dtypes,
              const std::vector<tw::Layout>& layouts) {
  bool refused = false;
  for (const std::string& f : files) {
    // As every command takes the suite: a line's own dtype, layout and pad (the sweeps') over the command line's.
    const std::vector<tw::SuiteCase> cases = tw::expand_suites({f}, {}, dtypes, layouts);
    std::set<int> lines;
    for (const tw::SuiteCase& c : cases) lines.insert(c.entry.line);
    fmt::print("{}: {} problems\n", f, lines.size());
    for (const tw::SuiteCase& c : cases) {
      const tw::Problem p = tw::make_problem(c);
      std::string status = "ok", megabytes = "-";
      try {
        tw::validate(p);
        megabytes = fmt::format("{:.1f}", tw::receipt::rotation_set_bytes(p) / 1e6);
      } catch (const tw::Error& err) {
        status = err.what();
        refused = true;
      }
      fmt::print("  {:<14} {:<5} {} {:>6} {:>6} {:>6}{}  {:>9} MB  {}\n", p.name, tw::to_string(p.dtype),
                 tw::to_string(p.layout), p.M, p.N, p.K, c.entry.pad ? fmt::format(" pad={}", c.entry.pad) : "",
                 megabytes, status);
    }
  }
  return refused ? 1 : 0;
}

// What selection runs for each suite problem (no GPU), from the databases the library searches, in its order: the
// per-machine database first-use tuning keeps (where it exists), --database, the shipped one. A database is read as
// it is: the library refuses one measured on another machine when it loads it, which only the machine running it can
// tell. Exits 1 when the library refuses any problem, after the rest's choices.
int cmd_choose(const std::vector<std::string>& suites, const std::vector<std::string>& only,
               const std::vector<tw::DType>& dtypes, const std::vector<tw::Layout>& layouts,
               const std::string& database, const std::optional<std::string>& floor_path, int sm_count,
               bool use_machine, bool use_shipped, bool why) {
  // A floor file is read first, so that a bad one is refused before anything is printed.
  std::optional<tw::select::FloorRule> floor;
  if (floor_path) {
    if (floor_path->empty()) throw tw::Error("--floor names no file");
    floor = tw::select::read_floor(*floor_path);
  }
  // What the library refuses (fp8 NN, a size past int32) it runs nothing for: no choice is shown for it.
  std::vector<tw::Problem> problems;
  std::vector<std::string> refused;
  for (const tw::SuiteCase& c : tw::expand_suites(suites, only, dtypes, layouts)) {
    const tw::Problem p = tw::make_problem(c);
    try {
      tw::validate(p);
      problems.push_back(p);
    } catch (const tw::Error& e) {
      refused.push_back(fmt::format("  {} {} {}: {}", p.name, tw::to_string(p.dtype), tw::to_string(p.layout), e.what()));
    }
  }
  const auto measured_on = [](const tw::select::Database& db) {
    std::vector<std::string> gpus;
    for (const tw::select::Identity& id : db.identities)
      gpus.push_back(fmt::format("{} ({} SMs)", id.gpu, id.sm_count));
    return fmt::format("{} problems, measured on {}; not checked against a GPU here", db.records.size(),
                       fmt::join(gpus, ", "));
  };
  std::string machine_path;
  if (use_machine) try {
      machine_path = tw::select::machine_database_path();
    } catch (const tw::Error&) {  // neither TILEWISE_DB nor HOME: the library has none to read either
    }
  std::optional<tw::select::Database> machine, db;
  if (!machine_path.empty() && tw::files::exists(machine_path, "the per-machine database (TILEWISE_DB)")) {
    machine = tw::select::read_database(machine_path);
    fmt::print("machine database {}: {} (--no-machine-database leaves it out)\n", machine_path, measured_on(*machine));
  }
  if (!database.empty()) {
    db = tw::select::read_database(database);
    fmt::print("database {}: {}\n", database, measured_on(*db));
  }
  // The rules size grids for the machine the databases were measured on, unless told otherwise.
  for (const auto* d : {&machine, &db})
    if (sm_count == 0 && *d && (*d)->identities.size() == 1) sm_count = (*d)->identities.front().sm_count;
  if (sm_count == 0 && floor) sm_count = floor->sm_count;
  if (sm_count == 0) sm_count = 132;  // an H100 SXM or H200
  if (floor)
    fmt::print("floor {}: {} points, in place of the one built into the library; the library takes them only on {} "
               "({} SMs, cc {})\n",
               *floor_path, floor->points.size(), floor->gpu, floor->sm_count, floor->cc);
  const tw::select::Database* shipped = use_shipped ? &tw::select::shipped_database() : nullptr;
  if (shipped)
    fmt::print("shipped database data/database-h200.json: {} problems (used where the GPU is an H200)\n",
               shipped->records.size());
  const std::vector<tw::select::NamedDatabase> searched = {
      {"machine database " + machine_path, machine ? &*machine : nullptr},
      {"database " + database, db ? &*db : nullptr},
      {"shipped database data/database-h200.json", shipped}};
  fmt::print("rules for {} SMs\n{}", sm_count,
             tw::select::choice_table(problems, searched, tw::select::Rules{sm_count, floor ? &*floor : nullptr}, why));
  if (refused.empty()) return 0;
  fmt::print("{} refused, as the library refuses them:\n{}\n", refused.size(), fmt::join(refused, "\n"));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tilewise: GEMM kernels, selection, tuning and receipts for one GPU"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(tw::build::version));

  auto* info = app.add_subcommand("info", "the device, its clocks and the library versions");
  info->group(tw::cli::kNoGpu);

  auto* check = app.add_subcommand("check", "validate receipts, tuning campaigns and databases; exits non-zero if any is "
                                           "invalid");
  check->group(tw::cli::kNoGpu);
  std::vector<std::string> check_files;
  bool check_quiet = false;
  check->add_option("files", check_files, "receipt, campaign, database or floor JSON files (x.json.gz: compressed)")
      ->required();
  check->add_flag("-q,--quiet", check_quiet, "print only the invalid files and the count");

  std::string dtypes_text = "bf16", layouts_text = "TN";
  auto* suite = app.add_subcommand("suite", "parse suites and show each problem's validation (no GPU needed)");
  suite->group(tw::cli::kNoGpu);
  std::vector<std::string> suite_files;
  suite->add_option("suites", suite_files, "suite files")->required();
  suite->add_option("--dtypes", dtypes_text, "comma-separated: bf16, fp16, fp8");
  suite->add_option("--layouts", layouts_text, "comma-separated: TN, NN");

  auto* choose = app.add_subcommand("choose", "what selection runs for each suite problem and where that comes from: a "
                                               "database's entry, else the floor's pick or cuBLASLt (no GPU needed)");
  choose->group(tw::cli::kNoGpu);
  std::vector<std::string> choose_suites;
  std::string choose_only, choose_database, choose_floor;
  int choose_sms = 0;
  bool choose_no_machine = false, choose_no_shipped = false, choose_why = false;
  choose->add_option("--suite", choose_suites, "suite file (repeatable)")->required();
  choose->add_option("--dtypes", dtypes_text, "comma-separated: bf16, fp16, fp8")->capture_default_str();
  choose->add_option("--layouts", layouts_text, "comma-separated: TN, NN")->capture_default_str();
  choose->add_option("--only", choose_only, "comma-separated problem names to keep");
  choose->add_option("--database", choose_database, "a tuned database (tilewise tune --database), searched before the "
                                                    "shipped one");
  choose->add_flag("--no-machine-database", choose_no_machine,
                   "leave out the per-machine database first-use tuning keeps ($TILEWISE_DB, else under the cache "
                   "folder), which the library searches first where it exists");
  choose->add_flag("--no-shipped", choose_no_shipped, "leave out the database shipped for the H200");
  auto* choose_floor_option =
      choose->add_option("--floor", choose_floor,
                         "a floor file (tilewise floor fit) in place of the one built into the library, to see what a "
                         "refitted floor would choose before it is built in (the databases are still searched first: "
                         "with --no-shipped and --no-machine-database it chooses as the bench arm "
                         "selected:floor:<file> does)");
  choose->add_flag("--why", choose_why,
                   "under each choice the floor made, what it says of each family and why; under a database's, which "
                   "database");
  choose->add_option("--sms", choose_sms,
                     "the GPU's SM count the rules size grids for (default: the databases' machine, else 132)")
      ->check(CLI::Range(1, 1024));

  auto* fit = app.add_subcommand("fit", "fit the sm90 first rule's constants to the sm90:sweep results of receipts "
                                       "(no GPU needed)");
  fit->group(tw::cli::kNoGpu);
  std::vector<std::string> fit_files;
  fit->add_option("receipts", fit_files, "receipt files with sm90:sweep results")->required();
  bool fit_hold_swapped = false;
  fit->add_flag("--hold-swapped", fit_hold_swapped,
                "keep the swapped tiles' rate at the shipped one instead of fitting it");

  auto* compile = app.add_subcommand("compile", "build sm90 configurations for suites (no GPU) and report registers, "
                                                 "spills and shared memory; exits non-zero on any spill");
  compile->group(tw::cli::kNoGpu);
  tw::cli::CompileOptions co;
  std::string compile_only;
  compile->add_option("--suite", co.suites, "suite file (repeatable)")->required();
  compile->add_option("--dtypes", dtypes_text, "comma-separated: bf16, fp16, fp8")->capture_default_str();
  compile->add_option("--layouts", layouts_text, "comma-separated: TN, NN")->capture_default_str();
  compile->add_option("--only", compile_only, "comma-separated problem names to keep");
  auto* first_rule_flag = compile->add_flag("--first-rule", co.first_rule_only,
                    "only each family's own rule: sm90's first shape rule and the decode GEMV's default");
  auto* first_use_flag = compile->add_flag("--first-use", co.first_use,
                    "only the kernels first-use tuning builds (each family's rule and sm90's rule candidates), so "
                    "tuning in an application finds them in the JIT cache");
  auto* sweep_flag =
      compile->add_flag("--sweep", co.sweep,
                        "only what sm90:sweep times (sm90's rule candidates and the rungs the rule has not rated yet), "
                        "so a sweep on the GPU finds them in the JIT cache")
          ->excludes(first_rule_flag)
          ->excludes(first_use_flag);
  auto* config_option =
      compile->add_option("--config", co.configs, "only this configuration where feasible (repeatable)");
  auto* every_option = compile->add_option("--every", co.every, "keep every n-th feasible configuration")
                           ->capture_default_str()
                           ->check(tw::cli::at_least_one());
  compile->add_flag("--all", co.all,
                    "every feasible configuration, however many (without this or an option above, more than 1,000 "
                    "instantiations are refused: one problem's feasible set takes days to build)")
      ->excludes(first_rule_flag)
      ->excludes(first_use_flag)
      ->excludes(sweep_flag)
      ->excludes(config_option)
      ->excludes(every_option);
  compile->add_option("--cubin-dir", co.cubin_dir, "also write each cubin there (for cuobjdump -sass)");
  compile->add_flag("--overwrite", co.overwrite, "replace cubins already in --cubin-dir");

  auto* bench = app.add_subcommand("bench", "measure arms on suites under the protocol and write a receipt");
  bench->group(tw::cli::kGpu);
  tw::bench::Options o;
  std::string arms_text = "cublaslt,cublaslt-default", only_text;
  bool warm = false, overwrite = false;
  std::string protocol_path;
  bench->add_option("--protocol", protocol_path,
                    "a committed protocol file: it sets the instrument and its predictions are judged in the receipt");
  bench->add_option("--suite", o.suites, "suite file (repeatable)");
  bench->add_option("--dtypes", dtypes_text, "comma-separated: bf16, fp16, fp8")->capture_default_str();
  bench->add_option("--layouts", layouts_text, "comma-separated: TN, NN")->capture_default_str();
  bench->add_option("--arms", arms_text, "comma-separated arms")->capture_default_str();
  bench->add_option("--baseline", o.baseline, "the arm others are compared with")->capture_default_str();
  bench->add_option("--only", only_text, "comma-separated problem names to keep");
  auto* cold = bench->add_flag("--cold", o.cold, "rotate buffer sets so the working set is at least 4x the L2");
  bench->add_flag("--warm", warm, "one buffer set (the default)")->excludes(cold);
  bench->add_option("--repeats", o.repeats, "whole-measurement repeats, arms interleaved")
      ->capture_default_str()
      ->check(tw::cli::at_least_one());
  bench->add_option("--replays", o.replays, "timed graph replays per repeat (their median is the repeat's figure)")
      ->capture_default_str()
      ->check(tw::cli::at_least_one());
  bench->add_option("--selection-rounds", o.selection_rounds, "interleaved rounds for timing an arm's candidates")
      ->capture_default_str()
      ->check(tw::cli::at_least_one());
  bench->add_option("--warmup-s", o.warmup_s, "clock warm-up before the first timed region (receipts need >= 10)")
      ->capture_default_str()
      ->check(tw::cli::finite_number(0));
  bench->add_option("--rewarm-ms", o.rewarm_ms,
                    "how long the baseline arm's own graph is replayed to re-warm before each problem's timed region")
      ->capture_default_str()
      ->check(tw::cli::finite_number(0));
  bench->add_option("--graph-ms", o.graph_target_ms, "about how long one graph replay runs")
      ->capture_default_str()
      ->check(tw::cli::finite_number(0, true));
  bench->add_option("--pad", o.pad, "extra elements on every leading dimension")
      ->capture_default_str()
      ->check(CLI::Range(int64_t(0), int64_t(1) << 30));
  bench->add_option("--seed", o.seed, "random seed (default: from the clock; recorded in the receipt)")
      ->check(tw::cli::whole<uint64_t>());
  bench->add_option("-o,--output", o.output, "receipt path")->required();
  bench->add_flag("--overwrite", overwrite, "replace an existing receipt at the output path");

  auto* headline = app.add_subcommand("headline", "per suite, orientation and dtype: an arm against cuBLASLt's default "
                                                   "and best, from valid receipts, as a markdown table (no GPU)");
  headline->group(tw::cli::kNoGpu);
  std::vector<std::string> headline_files;
  std::string headline_arm = "selected", headline_baseline = "cublaslt-default", headline_best = "cublaslt";
  headline->add_option("receipts", headline_files, "receipt JSON files (an invalid one is refused)")->required();
  auto* headline_arm_option =
      headline->add_option("--arm", headline_arm, "the arm: this name, or it with options (selected:...)")
          ->capture_default_str();
  std::string headline_fastest_of;
  headline->add_option("--fastest-of", headline_fastest_of,
                       "in place of --arm: per problem the fastest by median of these arms (comma-separated), chosen "
                       "after the fact: an upper bound on a selector among them")
      ->excludes(headline_arm_option);
  headline->add_option("--baseline", headline_baseline, "the arm of the first ratio column (cuBLASLt's default)")
      ->capture_default_str();
  headline->add_option("--best", headline_best, "the arm of the second (cuBLASLt's best candidate; '-' where absent)")
      ->capture_default_str();
  bool headline_pooled = false, headline_by_dtype = false, headline_by_class = false;
  auto* by_orientation = headline->add_flag("--by-orientation", headline_pooled,
                                            "one row per orientation and ldc class, pooled over the receipts, dtypes "
                                            "and layouts");
  headline->add_flag("--by-dtype", headline_by_dtype,
                     "one row per suite, orientation, dtype and ldc class, pooled over the receipts and layouts "
                     "(the report page's headline)")
      ->excludes(by_orientation);
  headline->add_flag("--by-class", headline_by_class,
                     "sweep problems only (tilewise sweep): one row per orientation, alignment class, token band and "
                     "ldc class, pooled over the receipts, dtypes and layouts")
      ->excludes(by_orientation)
      ->excludes("--by-dtype");

  auto* report = app.add_subcommand("report", "write a static page (HTML, inline SVG) from receipts");
  report->group(tw::cli::kNoGpu);
  std::vector<std::string> report_files;
  std::string report_dir;
  report->add_option("receipts", report_files, "receipt JSON files")->required();
  report->add_option("-o,--output", report_dir,
                     "output folder: index.html, which links each receipt where it lies, and tables/ (CSV, markdown)")
      ->required();
  bool report_overwrite = false;
  report->add_flag("--overwrite", report_overwrite, "replace an existing page and its tables");

  auto* quantize = app.add_subcommand(
      "quantize", "quantize a raw weight file (N rows of K bf16/fp16) into a decode GEMV format, or --dequantize back; "
                  "exits 1 when a weight does not come back as it went in (NaN, Inf, a scale past fp16)");
  quantize->group(tw::cli::kNoGpu);
  tw::gemv::QuantizeRequest qr;
  std::string q_format = "q8_0", q_dtype = "bf16", q_to = "f32";
  bool dequantize = false;
  quantize->add_option("input", qr.input, "raw weight file (with --dequantize: a packed file)")->required();
  quantize->add_option("-o,--output", qr.output, "output file")->required();
  // A packed file's header says its format, type and shape: with --dequantize those options would be ignored.
  CLI::Option* packing[] = {
      quantize->add_option("--format", q_format, "bf16, fp16, q8_0 (int8), int4g32, int4g128 (int4), fp8")
          ->capture_default_str(),
      quantize->add_option("--dtype", q_dtype, "input type: bf16 or fp16")->capture_default_str(),
      quantize->add_option("--rows", qr.rows, "N, the output channels (rows of W)")->check(tw::cli::whole<int64_t>(1)),
      quantize->add_option("--cols", qr.cols, "K, the input features (contiguous in each row)")
          ->check(tw::cli::whole<int64_t>(1)),
      quantize->add_flag("--cpu", qr.cpu, "the CPU reference even where a GPU is present (the two agree bit for bit)")};
  CLI::Option* unpacking = quantize->add_flag("--dequantize", dequantize, "turn a packed file back into raw weights");
  for (CLI::Option* o : packing) unpacking->excludes(o);
  quantize->add_option("--to", q_to, "with --dequantize: f32, bf16 or fp16")->capture_default_str()->needs(unpacking);
  quantize->add_flag("--overwrite", qr.overwrite, "replace an existing output file (never the input)");

  tw::cli::TuneCommands tune_commands(app);    // `tune` and `db merge`
  tw::cli::FloorCommands floor_commands(app);  // `sweep` and `floor fit`

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // A first word that names no command: CLI11 would only say that a subcommand is required.
    const std::vector<CLI::App*> commands = app.get_subcommands([](const CLI::App*) { return true; });
    if (argc > 1 && argv[1][0] != '-' &&
        std::none_of(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->check_name(argv[1]); })) {
      std::vector<std::string> names;
      for (const CLI::App* c : commands) names.push_back(c->get_name());
      fmt::print(stderr, "tilewise: no command '{}'; the commands: {}\n", argv[1], fmt::join(names, ", "));
      return 2;
    }
    const int status = app.exit(e);  // prints the help, or what is wrong with the command line
    return status == 0 ? 0 : 2;      // a command line that cannot be taken is refused like any other input
  }

  try {
    auto dtypes = [&] { return tw::cli::parse_dtypes(dtypes_text); };
    auto layouts = [&] { return tw::cli::parse_layouts(layouts_text); };
    if (const auto status = tune_commands.run()) return *status;
    if (const auto status = floor_commands.run()) return *status;
    if (*info) return cmd_info(app);
    if (*check) return tw::cli::run_check(check_files, check_quiet);
    if (*suite) return cmd_suite(suite_files, dtypes(), layouts());
    if (*choose)
      return cmd_choose(choose_suites, split_list(choose_only, "--only"), dtypes(), layouts(), choose_database,
                        choose_floor_option->count() ? std::optional(choose_floor) : std::nullopt, choose_sms,
                        !choose_no_machine, !choose_no_shipped, choose_why);
    if (*fit) return tw::cli::run_fit(fit_files, fit_hold_swapped);
    if (*compile) {
      co.dtypes = dtypes();
      co.layouts = layouts();
      co.only = split_list(compile_only, "--only");
      return tw::cli::run_compile(co);
    }
    if (*quantize) {
      const auto report = [](const tw::gemv::FileSummary& s) {
        fmt::print("{}\n", s.text);
        return s.faithful ? 0 : 1;
      };
      if (dequantize) return report(tw::gemv::dequantize_file(qr.input, qr.output, q_to, qr.overwrite));
      if (!quantize->count("--rows") || !quantize->count("--cols"))
        throw tw::Error("give the weights' shape: --rows N --cols K");
      qr.format = tw::gemv::parse_format(q_format == "int8" ? "q8_0" : q_format == "int4" ? "int4g128" : q_format);
      qr.dtype = tw::parse_dtype(q_dtype);
      return report(tw::gemv::quantize_file(qr));
    }
    if (*headline) {
      const auto receipts = tw::receipt::read_valid_receipts(headline_files, "its figures back nothing");
      const tw::report::Grouping grouping = headline_pooled     ? tw::report::Grouping::by_orientation
                                            : headline_by_dtype ? tw::report::Grouping::by_dtype
                                            : headline_by_class ? tw::report::Grouping::by_sweep_class
                                                                : tw::report::Grouping::by_suite;
      const tw::report::HeadlineArm arm = !headline->count("--fastest-of")
                                              ? tw::report::HeadlineArm(headline_arm)
                                              : tw::report::HeadlineArm::fastest_of(
                                                    split_list(headline_fastest_of, "--fastest-of"));
      const auto rows = tw::report::headline(receipts, arm, headline_baseline, headline_best, grouping);
      std::set<std::string> arms;
      for (const auto& [path, r] : receipts) arms.merge(tw::receipt::arm_names(r));
      // The default best arm may be missing ("-" in its column); one asked for by name and absent is a misspelling.
      if (headline->count("--best") && !arms.count(headline_best))
        throw tw::Error(
            fmt::format("no receipt has the arm --best {}; their arms: {}", headline_best, fmt::join(arms, ", ")));
      if (rows.empty()) {  // an empty table would read as a run with nothing to say
        throw tw::Error(fmt::format("no problem in these receipts has both {} and {} timed{}; their arms: {}",
                                    arm.label(), headline_baseline,
                                    grouping == tw::report::Grouping::by_sweep_class ? " among the sweep's problems" : "",
                                    fmt::join(arms, ", ")));
      }
      int repeated = 0;
      for (const tw::report::HeadlineRow& row : rows) repeated += row.repeated;
      if (repeated)  // said, so that a count smaller than the receipts' results is not a surprise
        fmt::print(stderr, "headline: {} result{} left out: a more recent receipt measured the same problem{}, and a "
                           "problem counts once in a row\n", repeated, repeated == 1 ? "" : "s", repeated == 1 ? "" : "s");
      fmt::print("{}", tw::report::headline_markdown(rows, arm.label(), headline_baseline, headline_best));
      return 0;
    }
    if (*report) {
      tw::report::write_page(report_files, report_dir,
                             report_overwrite ? tw::files::Existing::replace : tw::files::Existing::refuse);
      fmt::print("report: {}/index.html\n", report_dir);
      return 0;
    }
    if (*bench) {
      o.dtypes = dtypes();
      o.layouts = layouts();
      o.arms = split_list(arms_text, "--arms");
      o.only = split_list(only_text, "--only");
      if (!protocol_path.empty()) {
        for (const char* flag : {"--suite", "--dtypes", "--layouts", "--arms", "--baseline", "--only", "--cold", "--warm",
                                 "--repeats"})
          if (bench->count(flag))
            throw tw::Error(fmt::format("--protocol sets the instrument; {} cannot be given with it", flag));
        const tw::protocol::ProtocolFile pf = tw::protocol::load_protocol(protocol_path);
        const std::string commit = tw::protocol::frozen_commit(pf);
        const tw::bench::Options& in = pf.instrument;
        o.suites = in.suites, o.only = in.only, o.dtypes = in.dtypes, o.layouts = in.layouts;
        o.arms = in.arms, o.baseline = in.baseline, o.cold = in.cold, o.repeats = in.repeats;
        o.preregistration = tw::receipt::Preregistration{protocol_path, commit, pf.question, pf.predictions};
      }
      if (bench->count("--seed") == 0)
        o.seed = uint64_t(std::chrono::system_clock::now().time_since_epoch().count());
      for (int i = 0; i < argc; ++i) o.command += (i ? " " : "") + std::string(argv[i]);
      // Before the GPU is taken: the receipt is first written after a 10 s warm-up and the first problem.
      tw::files::refuse_input_as_output(o.output, tw::bench::input_files(o));
      tw::files::check_output(o.output, overwrite ? tw::files::Existing::replace : tw::files::Existing::refuse);
      const auto t0 = std::chrono::steady_clock::now();
      const tw::bench::ProgressFn progress = [&](size_t done, size_t total, const tw::receipt::Result* r,
                                                 const std::string& note) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        fmt::print(stderr, "[{:>4}/{}] {:>6.0f} s  {}\n", done, total, s,
                   r ? tw::report::summary_line(*r) : "skipped: " + note);
      };
      const tw::receipt::Receipt r = tw::bench::run(o, progress);
      tw::report::print_table(std::cout, r);
      fmt::print("receipt: {}\n", o.output);
      return r.valid ? 0 : 1;
    }
  } catch (const tw::device::NoGpu& e) {
    fmt::print(stderr, "tilewise: {}; 'tilewise info' names the commands that work without one\n", e.what());
    return 2;
  } catch (const tw::Error& e) {
    fmt::print(stderr, "tilewise: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    // Nothing the code foresaw (a library's own exception, memory running out): still a message and a status.
    fmt::print(stderr, "tilewise: unexpected error: {}\n", e.what());
    return 2;
  } catch (...) {
    fmt::print(stderr, "tilewise: unexpected error of an unknown kind\n");
    return 2;
  }
  return 0;
}
