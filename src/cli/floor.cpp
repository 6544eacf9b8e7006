#include "cli/floor.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/sweep.hpp"
#include "receipt/check.hpp"
#include "select/floor_fit.hpp"
#include "select/json_file.hpp"

namespace tilewise::cli {

namespace {

void refuse_existing(const std::string& path, bool overwrite) {
  if (std::filesystem::exists(path) && !overwrite)
    throw Error(fmt::format("{} exists; it is replaced only with --overwrite", path));
}

// Valid receipts only, all from one GPU: the floor holds where it was measured.
std::vector<receipt::Receipt> read_receipts(const std::vector<std::string>& paths, select::FloorRule& identity) {
  std::vector<receipt::Receipt> out;
  for (const std::string& path : paths) {
    const receipt::FileVerdict verdict = receipt::check_file(path);
    if (!verdict.valid)
      throw Error(fmt::format("{}: not a valid receipt ({}); the floor is fitted to valid receipts only", path,
                              verdict.problems.empty() ? "unreadable" : verdict.problems.front()));
    receipt::Receipt r = receipt::read_file(path);
    const receipt::Machine& m = r.machine;
    if (identity.gpu.empty()) identity.gpu = m.gpu, identity.sm_count = m.sm_count, identity.cc = m.cc;
    if (m.gpu != identity.gpu || m.sm_count != identity.sm_count || m.cc != identity.cc)
      throw Error(fmt::format("{}: measured on {} ({} SMs, cc {}), the others on {} ({} SMs, cc {}): one floor is for "
                              "one GPU",
                              path, m.gpu, m.sm_count, m.cc, identity.gpu, identity.sm_count, identity.cc));
    identity.receipts.push_back(path);
    out.push_back(std::move(r));
  }
  return out;
}

const std::map<std::string, std::string> family_arms{{"sm90", "sm90"}, {"gemv", "gemv"}};

}  // namespace

FloorCommands::FloorCommands(CLI::App& app) {
  sweep_ = app.add_subcommand("sweep", "write the seeded sweep of GEMM problems the floor is fitted to, as a suite "
                                       "(no GPU needed)");
  sweep_->group(kNoGpu);
  sweep_->add_option("--seed", seed_, "the generator's seed (recorded in the suite)")->required();
  sweep_->add_option("--count", count_, "problems drawn")->capture_default_str()->check(CLI::Range(1, 1000000));
  sweep_->add_option("--part", part_, "all, fit (even indices) or judge (odd)")->capture_default_str();
  sweep_->add_option("-o,--output", output_, "suite file")->required();
  sweep_->add_flag("--overwrite", overwrite_, "replace an existing file");

  auto* floor = app.add_subcommand("floor", "the floor under selection: its rule fitted to sweep receipts");
  floor->group(kNoGpu);
  fit_ = floor->add_subcommand("fit", "fit the floor on one half of a sweep's receipts, judge it on the other, and "
                                       "write the rule (all points) and a report (no GPU needed)");
  floor->require_subcommand(1);
  fit_->add_option("--fit", fit_receipts_, "receipts of the fitted half (repeatable)")->required();
  fit_->add_option("--judge", judge_receipts_, "receipts of the judged half (repeatable)")->required();
  fit_->add_option("-o,--output", output_, "the rule's JSON (data/floor-h200.json)")->required();
  fit_->add_option("--report", report_, "also write the markdown report there");
  fit_->add_flag("--overwrite", overwrite_, "replace existing files");
}

std::optional<int> FloorCommands::run() {
  if (*sweep_) {
    refuse_existing(output_, overwrite_);
    const SweepPart part = parse_sweep_part(part_);
    const std::vector<SweepProblem> problems = sweep(seed_, count_, part);
    select::write_text_file_atomically(sweep_suite_text(problems, seed_, count_, part), output_);
    fmt::print("{}: {} problems of seed {}\n", output_, problems.size(), seed_);
    return 0;
  }
  if (*fit_) {
    refuse_existing(output_, overwrite_);
    if (!report_.empty()) refuse_existing(report_, overwrite_);
    select::FloorRule base;
    const std::vector<select::FloorPoint> fit_points =
        select::floor_points(read_receipts(fit_receipts_, base), family_arms);
    const std::vector<select::FloorPoint> judged =
        select::floor_points(read_receipts(judge_receipts_, base), family_arms);
    if (fit_points.empty() || judged.empty()) throw Error("the fitted and the judged half each need measured problems");
    const select::FloorFit fit = select::fit_floor(base, fit_points);
    const select::FloorScore score = select::score_floor(fit.rule, judged);
    const std::string report = select::floor_report(fit, score, int(judged.size()));
    select::FloorRule shipped = fit.rule;  // the constants fitted on one half, the points of both
    shipped.points.insert(shipped.points.end(), judged.begin(), judged.end());
    select::write_json_file_atomically(select::to_json(shipped), output_);
    if (!report_.empty()) select::write_text_file_atomically(report, report_);
    fmt::print("{}\nrule: {} ({} points)\n", report, output_, shipped.points.size());
    return 0;
  }
  return std::nullopt;
}

}  // namespace tilewise::cli
