#include "cli/tune.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <set>

#include "cli/lists.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/suite.hpp"
#include "receipt/check.hpp"
#include "receipt/receipt.hpp"
#include "select/api.hpp"
#include "select/database_file.hpp"
#include "select/confirm.hpp"
#include "select/decide.hpp"
#include "select/merge.hpp"
#include "tune/campaign.hpp"
#include "families/registry.hpp"
#include "tune/campaign_check.hpp"
#include "tune/contributions.hpp"
#include "tune/mode_compare.hpp"
#include "tune/to_database.hpp"

namespace tilewise::cli {

namespace {


// Prints each round as it starts, so a long round on the terminal is not mistaken for a hang.
class Announced : public tune::Measure {
 public:
  explicit Announced(tune::Measure& inner) : inner_(inner) {}
  std::vector<tune::Timing> measure(const tune::Case& c, const std::vector<tune::Config>& candidates) override {
    fmt::print(stderr, "         {}: building, checking and timing {} candidates\n", c.id, candidates.size());
    return inner_.measure(c, candidates);
  }

 private:
  tune::Measure& inner_;
};

std::string case_line(const tune::CaseResult& r) {
  if (r.status == tune::Status::failed) return fmt::format("{}: FAILED: {}", r.c.id, r.error);
  const std::vector<double> t = tune::trajectory(r);
  std::string rounds;
  for (const tune::Round& round : r.rounds)
    rounds += fmt::format("\n           {:<8} {:>5} legal {:>5} timed {:>5} dropped {:>6.1f} s  {}", round.group,
                          round.legal, round.timed, round.dropped, round.wall_s,
                          round.adopted ? fmt::format("adopted {}", round.winner) : "held" + (round.note.empty() ? "" : ": " + round.note));
  if (r.mode == "grid")
    return fmt::format("{}: grid best {:.2f} us: {}{}", r.c.id, r.best_us, r.best, rounds);
  return fmt::format("{}: {:.2f} us -> {:.2f} us ({:.3f}x): {}{}", r.c.id, t.front(), t.back(), t.front() / t.back(),
                     r.best, rounds);
}

// The database as select::write_database writes it, through a writer that may refuse an existing file.
void write_database(const select::Database& db, const std::string& path, files::Existing existing) {
  files::write(path, select::to_json(db).dump(1) + "\n", existing);
}

}  // namespace

std::vector<tune::Case> tune_cases(const TuneOptions& o) {
  for (const std::string& f : o.families)
    if (!families::find_family(f))
      throw Error(fmt::format("--family '{}': the tuner knows {}", f, fmt::join(families::family_names(), ", ")));
  std::vector<tune::Case> cases;
  std::map<std::string, std::string> declined;  // a family's last reason to leave a problem out
  for (const SuiteCase& sc : expand_suites(o.suites, o.only, o.dtypes, o.layouts)) {
    const SuiteEntry& e = sc.entry;
    const Problem p = make_problem(e.name, e.M, e.N, e.K, sc.dtype, sc.layout);
    try {
      validate(p);
    } catch (const Error&) {
      continue;  // a combination nothing supports (fp8 NN)
    }
    for (const std::string& f : o.families) {
      if (const auto why = families::family(f).declines(p)) {  // a family that takes only some problems (gemv)
        declined[f] = *why;
        continue;
      }
      cases.push_back({fmt::format("{} {} {} {}", e.name, to_string(sc.dtype), to_string(sc.layout), f), f, p});
    }
  }
  for (const std::string& f : o.families)
    if (std::none_of(cases.begin(), cases.end(), [&](const tune::Case& c) { return c.family == f; }))
      throw Error(fmt::format("the suites, dtypes and layouts given make no case for the family {}{}", f,
                              declined.count(f) ? fmt::format(" ({})", declined[f]) : ""));
  return cases;
}

int run_tune(const TuneOptions& o) {
  if (o.suites.empty()) throw Error("give at least one suite (--suite FILE)");
  if (o.campaign.empty()) throw Error("give the campaign file (--campaign FILE); it is created or continued");
  const std::vector<tune::Case> cases = tune_cases(o);
  if (cases.empty()) throw Error("the suites, dtypes and layouts given make no case");
  if ((!o.start.empty() || !o.hold.empty()) && o.families.size() != 1)
    throw Error(fmt::format("--start and --hold name one family's fields: give one --family, not {}",
                            fmt::join(o.families, ",")));
  const families::Family& tuned = families::family(o.families.front());
  // Parsed once, so a bad field is an error before any GPU work; one infeasible for a case fails that case.
  const std::optional<std::string> start = o.start.empty() ? std::nullopt : std::optional(tuned.canonical(o.start));
  // A misspelt field fails here, not after the harness has warmed the GPU up.
  tune::check_held(tuned.field_names(), o.hold);
  // So does a campaign file that cannot be continued, or a database that cannot be written.
  if (files::exists(o.campaign, "the campaign file")) tune::require_sound(tune::read_campaign(o.campaign), o.campaign);
  if (!o.database.empty()) {
    std::vector<std::string> inputs = o.suites;
    inputs.push_back(o.campaign);
    files::refuse_input_as_output(o.database, inputs);
    files::check_output(o.database, o.overwrite ? files::Existing::replace : files::Existing::refuse);
  }
  bench::TuneMeasureOptions mo = o.measure;
  mo.progress = [](const std::string& line) { fmt::print(stderr, "           {}\n", line); };
  bench::TuneMeasure harness(mo);
  Announced measure(harness);
  const select::Identity identity = running_identity();
  const tune::TunableFor tunable_for = [&](const tune::Case& c) {
    return tune::hold(families::family(c.family).tunable(c.problem, harness.resources(), start), o.hold);
  };
  tune::CampaignOptions co;
  co.mode = o.mode;
  co.grid.cap = o.grid_cap;

  // One case at a time through the campaign, so each is reported as it finishes; the file keeps the rest.
  const auto t0 = std::chrono::steady_clock::now();
  tune::Campaign campaign;
  for (size_t i = 0; i < cases.size(); ++i) {
    campaign = tune::run_campaign(o.campaign, {cases[i]}, tunable_for, measure, identity, co);
    const auto r = std::find_if(campaign.cases.begin(), campaign.cases.end(),
                                [&](const tune::CaseResult& x) { return x.c.id == cases[i].id; });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print(stderr, "[{:>4}/{}] {:>6.0f} s  {}\n", i + 1, cases.size(), s, case_line(*r));
  }

  std::set<std::string> ids;
  for (const tune::Case& c : cases) ids.insert(c.id);
  int failed = 0;
  for (const std::string& family : o.families) {
    std::vector<tune::CaseResult> mine;
    for (const tune::CaseResult& r : campaign.cases)
      if (ids.count(r.c.id) && r.c.family == family) {
        mine.push_back(r);
        failed += r.status == tune::Status::failed;
      }
    const std::vector<tune::Contribution> rows = tune::contributions(mine);
    if (rows.empty()) continue;
    fmt::print("\n{}: per-round speedup over the kernel entering the round ({} cases)\n{}", family, rows.back().cases,
               tune::format_contributions(rows));
  }
  if (!o.database.empty()) {
    const select::Database db = tune::to_database(campaign, o.campaign);
    select::write_database(db, o.database);
    fmt::print("database: {} ({} problems)\n", o.database, db.records.size());
  }
  fmt::print("campaign: {} ({} of {} cases failed)\n", o.campaign, failed, cases.size());
  return failed ? 1 : 0;
}

int run_campaign_report(const std::vector<std::string>& files, const std::string& database, bool overwrite) {
  files::refuse_repeated_inputs(files);  // a file given twice would re-tune each of its cases by itself
  if (!database.empty()) {
    files::refuse_input_as_output(database, files);
    files::check_output(database, overwrite ? files::Existing::replace : files::Existing::refuse);
  }
  // A case re-tuned in a later file replaces the earlier result: the files are taken in the order given, the latest
  // last, and every replacement is named.
  std::vector<tune::Campaign> campaigns;
  std::map<std::string, size_t> latest;  // case id -> the file whose result is taken
  std::vector<std::string> problems;
  for (size_t i = 0; i < files.size(); ++i) {
    campaigns.push_back(tune::read_campaign(files[i]));
    for (const std::string& p : tune::check_campaign(campaigns.back())) problems.push_back(files[i] + ": " + p);
    for (const tune::CaseResult& r : campaigns.back().cases) {
      const auto [at, fresh] = latest.emplace(r.c.id, i);
      if (fresh) continue;
      fmt::print("case '{}': re-tuned in {}, which replaces {}\n", r.c.id, files[i], files[at->second]);
      at->second = i;
    }
  }
  std::vector<tune::CaseResult> cases;
  std::vector<select::Named> databases;
  for (size_t i = 0; i < files.size(); ++i) {
    tune::Campaign taken = campaigns[i];
    std::erase_if(taken.cases, [&](const tune::CaseResult& r) { return latest.at(r.c.id) != i; });
    cases.insert(cases.end(), taken.cases.begin(), taken.cases.end());
    databases.push_back({files[i], tune::to_database(taken, files[i])});
  }
  std::vector<std::string> families;
  for (const tune::CaseResult& r : cases)
    if (std::find(families.begin(), families.end(), r.c.family) == families.end()) families.push_back(r.c.family);
  const std::vector<std::string> up = tune::rises(cases);
  for (const std::string& family : families) {
    std::vector<tune::CaseResult> mine;
    int finished = 0, failed = 0;
    for (const tune::CaseResult& r : cases)
      if (r.c.family == family) {
        mine.push_back(r);
        finished += r.status == tune::Status::finished;
        failed += r.status == tune::Status::failed;
      }
    fmt::print("{}: {} cases, {} finished, {} failed, {} unfinished\n", family, mine.size(), finished, failed,
               int(mine.size()) - finished - failed);
    const std::vector<tune::Contribution> rows = tune::contributions(mine);
    if (!rows.empty())
      fmt::print("per-round speedup over the kernel entering the round; \"all rounds\": warm start over final\n{}",
                 tune::format_contributions(rows));
    if (const std::vector<std::string> back = tune::went_back(mine); !back.empty())
      fmt::print("went back to the warm start in the confirm round (the rounds' wins did not hold beside it): {}\n",
                 fmt::join(back, ", "));
    if (const tune::Retimed again = tune::retimed(mine); again.adoptions > 0)
      fmt::print("winners timed again in the next round: {} adoptions, median {:.3f}x their own time, {} more than 5% "
                 "slower\n",
                 again.adoptions, again.median, again.slower_5pct);
    fmt::print("\n");
  }
  if (!problems.empty()) {
    fmt::print("the campaigns do not hold their figures; no database is written from them:\n");
    for (const std::string& p : problems) fmt::print("  {}\n", p);
  } else if (!database.empty()) {
    const select::Database db = select::merge(databases);
    write_database(db, database, overwrite ? files::Existing::replace : files::Existing::refuse);
    fmt::print("database: {} ({} problems, finished cases only)\n", database, db.records.size());
  }
  if (up.empty()) {
    fmt::print("latency non-increasing through every round of every finished descent case\n");
    return problems.empty() ? 0 : 1;
  }
  fmt::print("latency ROSE in {} round(s):\n", up.size());
  for (const std::string& line : up) fmt::print("  {}\n", line);
  return 1;
}

int run_mode_comparison(const std::vector<std::string>& descent_files, const std::string& grid_file) {
  std::vector<std::string> all = descent_files;
  all.push_back(grid_file);
  files::refuse_repeated_inputs(all);
  const auto sound = [](const std::string& path) {
    tune::Campaign c = tune::read_campaign(path);
    tune::require_sound(c, path);
    return c;
  };
  std::vector<tune::CaseResult> descent;
  for (const std::string& path : descent_files) {
    const tune::Campaign c = sound(path);
    descent.insert(descent.end(), c.cases.begin(), c.cases.end());
  }
  fmt::print("{}", tune::format_mode_comparison(tune::compare_modes(descent, sound(grid_file).cases)));
  return 0;
}

int run_db_merge(const std::vector<std::string>& inputs, const std::vector<std::string>& overlays,
                 const std::string& output, const std::vector<std::string>& deciding_receipts,
                 const select::Preference& prefer, const std::vector<std::string>& confirming_receipts,
                 const std::vector<std::string>& rechecking_receipts, bool overwrite) {
  std::vector<std::string> all = inputs;
  for (const auto* more : {&overlays, &deciding_receipts, &confirming_receipts, &rechecking_receipts})
    all.insert(all.end(), more->begin(), more->end());
  files::refuse_repeated_inputs(all);  // a database merged with itself, or a receipt that judges twice
  files::refuse_input_as_output(output, all);
  const files::Existing existing = overwrite ? files::Existing::replace : files::Existing::refuse;
  files::check_output(output, existing);
  const auto read = [](const std::vector<std::string>& paths) {
    std::vector<select::Named> named;
    for (const std::string& path : paths) named.push_back({path, select::read_database(path)});
    return named;
  };
  select::Database db = select::merge(read(inputs), read(overlays));
  // Valid receipts only, each once: a decision or a judgement stands on their figures.
  for (const auto& [path, r] : receipt::read_valid_receipts(deciding_receipts, "a decision stands on valid receipts")) {
    select::Decided d = select::decide(std::move(db), r, path, prefer);
    db = std::move(d.db);
    fmt::print("{}: {} problems decided side by side; {} it has left undecided (fewer than two families timed)\n",
               path, d.decisions.size(), d.undecided);
    for (const select::Decision& decision : d.decisions) {
      std::string times;
      for (const auto& [family, us] : decision.timed) times += fmt::format("  {} {:.2f} us", family, us);
      fmt::print("  {:<60} {:<9}{}\n", decision.key, decision.family, times);
    }
  }
  const auto judge = [&db](const std::vector<std::string>& paths, select::Keep keep) {
    if (paths.empty()) return;
    const auto receipts = receipt::read_valid_receipts(paths, "a judgement stands on valid receipts");
    select::Confirmed c = select::confirm(std::move(db), receipts, keep);
    db = std::move(c.db);
    const bool faster = keep == select::Keep::faster;
    fmt::print("{} entries judged against cublaslt-default, {} dropped ({} with ranges apart):\n", c.judged.size(),
               c.dropped, faster ? "not faster" : "slower");
    for (const select::Confirmation& j : c.judged)
      if (faster ? j.claim != "faster" : j.claim == "slower")
        fmt::print("  {:<60} {:<9} {:.3f}x ({})\n", j.key, j.family, j.speedup, j.claim);
  };
  judge(confirming_receipts, select::Keep::faster);
  judge(rechecking_receipts, select::Keep::not_slower);
  write_database(db, output, existing);
  fmt::print("database: {} ({} problems from {} files)\n", output, db.records.size(), inputs.size());
  return 0;
}

TuneCommands::TuneCommands(CLI::App& app) {
  tune_ = app.add_subcommand("tune", "tune sm90, gemv and cuBLASLt configurations per problem (resumable campaign) "
                                     "and write the database selection loads");
  tune_->group(kGpu);
  tune_->add_option("--suite", o_.suites, "suite file (repeatable)")->required();
  tune_->add_option("--dtypes", dtypes_, "comma-separated: bf16, fp16, fp8")->capture_default_str();
  tune_->add_option("--layouts", layouts_, "comma-separated: TN, NN")->capture_default_str();
  tune_->add_option("--only", only_, "comma-separated problem names to keep");
  tune_->add_option("--family", o_.families,
                    "sm90, cublaslt or gemv (repeatable or comma-separated; default sm90); gemv takes the problems "
                    "with M <= 16 and leaves the others out")
      ->delimiter(',');
  tune_->add_option("--mode", o_.mode, "descent (monotone, one group a round) or grid (one-shot, capped)")
      ->capture_default_str()
      ->check(CLI::IsMember(tune::kCampaignModes));  // before any GPU work
  tune_->add_option("--grid-cap", o_.grid_cap, "grid mode: at most this many legal candidates")
      ->capture_default_str()
      ->check(at_least_one());
  tune_->add_option("--repeats", o_.measure.repeats, "interleaved repeats per round")
      ->capture_default_str()
      ->check(at_least_one());
  tune_->add_option("--replays", o_.measure.replays, "timed graph replays per repeat")
      ->capture_default_str()
      ->check(at_least_one());
  tune_->add_option("--graph-ms", o_.measure.graph_target_ms, "about how long one graph replay runs")
      ->capture_default_str()
      ->check(finite_number(0, true));
  tune_->add_option("--warmup-s", o_.measure.warmup_s, "clock warm-up before the first round")
      ->capture_default_str()
      ->check(finite_number(0));
  tune_->add_option("--chunk", o_.measure.chunk, "candidates built and timed together")
      ->capture_default_str()
      ->check(at_least_one());
  tune_->add_option("--drop-margin", o_.measure.drop_margin,
                    "time a candidate no further once a repeat has it this fraction over the incumbent (negative: "
                    "never)")
      ->capture_default_str()
      ->check(finite_number());
  tune_->add_flag("--cold", o_.measure.cold, "rotate buffer sets so the working set is at least 4x the L2");
  tune_->add_option("--seed", o_.measure.seed, "operand fills")->capture_default_str()->check(whole<uint64_t>());
  tune_->add_option("--campaign", o_.campaign, "campaign file: created, or continued where it stopped")->required();
  tune_->add_option("--database", o_.database, "write the finished cases here as a database");
  tune_->add_flag("--overwrite", o_.overwrite, "replace an existing database at that path");
  tune_->add_option("--start", o_.start,
                    "descend from this configuration of the one --family given (sm90: block_m=64,block_n=64,...; "
                    "fields left out keep their defaults) instead of its rule, in every case; one infeasible for a "
                    "case fails that case");
  tune_->add_option("--hold", o_.hold,
                    "fields of the one --family given that every case keeps at its warm start's values "
                    "(comma-separated, e.g. swap with --start): the descent moves along the others only")
      ->delimiter(',');

  report_ = app.add_subcommand("campaign", "what finished campaigns measured: cases, per-round contributions, and "
                                           "whether latency ever rose (no GPU needed)");
  report_->group(kNoGpu);
  report_->add_option("campaigns", report_files_,
                      "campaign files, oldest first: a case re-tuned in a later file is taken from it, and the report "
                      "says so")
      ->required();
  report_->add_option("--database", report_database_,
                      "also write their finished cases as one database (a case in several files: the last file's)");
  report_->add_flag("--overwrite", report_overwrite_, "replace an existing database at that path");
  report_->add_option("--grid", report_grid_, "a grid campaign to set beside the descent campaigns, case by case")
      ->excludes("--database");

  auto* db = app.add_subcommand("db", "tuned databases");
  db->group(kNoGpu);
  db->require_subcommand(1);
  merge_ = db->add_subcommand("merge", "merge databases; the same problem and family measured on one machine keeps "
                                       "the faster, across machines it is a conflict");
  merge_->add_option("inputs", merge_inputs_, "database files")->required();
  merge_->add_option("-o,--output", merge_output_, "merged database (never one of the inputs)")->required();
  merge_->add_flag("--overwrite", merge_overwrite_, "replace an existing file at the output path");
  merge_->add_option("--overlay", merge_overlays_,
                     "a database whose entries replace the inputs' for the same problem and family whatever the "
                     "times: one tuned under another protocol (cold over warm), whose times do not compare (repeatable)");
  merge_->add_option("--decide", merge_receipts_,
                     "a bench receipt that timed each family's entry side by side (arms selected:DB, one per "
                     "family's database): per problem, only the family faster there is kept (repeatable)");
  merge_->add_option("--confirm", merge_confirming_,
                     "a bench receipt made with the merged database (arm selected): an entry it ran stays only where "
                     "it was faster than cublaslt-default with ranges apart (repeatable)");
  merge_->add_option("--recheck", merge_rechecking_,
                     "a later bench receipt made with an already confirmed database (arm selected): an entry it ran "
                     "is dropped where it was slower than cublaslt-default with ranges apart; ties stay (repeatable)");
  merge_->add_option("--prefer", merge_prefer_.family,
                     "with --decide: keep this family (sm90, cublaslt, gemv) unless another ran faster by more than "
                     "--margin")
      ->check(CLI::IsMember(families::family_names()));
  merge_->add_option("--margin", merge_prefer_.margin, "with --prefer: the fraction another family must win by")
      ->check(CLI::Range(0.0, 0.5))
      ->needs("--prefer");
}

std::optional<int> TuneCommands::run() {
  if (*merge_) {
    if (!merge_prefer_.family.empty() && merge_receipts_.empty()) throw Error("--prefer decides nothing without --decide");
    return run_db_merge(merge_inputs_, merge_overlays_, merge_output_, merge_receipts_, merge_prefer_,
                        merge_confirming_, merge_rechecking_, merge_overwrite_);
  }
  if (*report_ && !report_grid_.empty()) return run_mode_comparison(report_files_, report_grid_);
  if (*report_) return run_campaign_report(report_files_, report_database_, report_overwrite_);
  if (!*tune_) return std::nullopt;
  o_.dtypes = parse_dtypes(dtypes_);
  o_.layouts = parse_layouts(layouts_);
  o_.only = split_list(only_, "--only");
  return run_tune(o_);
}

}  // namespace tilewise::cli
