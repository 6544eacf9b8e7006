#include "cli/floor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "core/sweep.hpp"
#include "families/registry.hpp"
#include "receipt/check.hpp"
#include "select/floor.hpp"
#include "select/floor_fit.hpp"

namespace tilewise::cli {

namespace {

// Valid receipts only, all from one GPU: the floor holds where it was measured.
std::vector<receipt::Receipt> read_receipts(const std::vector<std::string>& paths, select::FloorRule& identity) {
  std::vector<receipt::Receipt> out;
  for (auto& [path, r] : receipt::read_valid_receipts(paths, "the floor is fitted to valid receipts only")) {
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

const std::map<std::string, std::string> family_arms = families::rule_arms();

}  // namespace

FloorCommands::FloorCommands(CLI::App& app) {
  sweep_ = app.add_subcommand("sweep", "write the seeded sweep of GEMM problems the floor is fitted to, as a suite "
                                       "(no GPU needed)");
  sweep_->group(kNoGpu);
  sweep_->add_option("--seed", seed_, "the generator's seed (recorded in the suite)")
      ->required()
      ->check(whole<uint64_t>());
  sweep_->add_option("--count", count_, "problems drawn")->capture_default_str()->check(CLI::Range(1, 1000000));
  sweep_->add_option("--part", part_, "all, fit (even indices) or judge (odd)")->capture_default_str();
  sweep_->add_option("-o,--output", output_, "suite file")->required();
  sweep_->add_flag("--overwrite", overwrite_, "replace an existing file");

  auto* floor = app.add_subcommand("floor", "the floor under selection: its rule fitted to sweep receipts");
  floor->group(kNoGpu);
  fit_ = floor->add_subcommand("fit", "fit the floor on one half of a sweep's receipts, judge it on the other, and "
                                       "write the rule (all points) and a report (no GPU needed)");
  floor->require_subcommand(1);
  fit_->add_option("--fit", fit_receipts_, "receipts of the fitted half (repeatable; a problem timed in several "
                                           "takes each family's outcome from the last that has it)")
      ->required();
  fit_->add_option("--judge", judge_receipts_, "receipts of the judged half (repeatable, as --fit)")->required();
  fit_->add_option("-o,--output", output_, "the rule's JSON (data/floor-h200.json)")->required();
  fit_->add_option("--report", report_, "also write the markdown report there");
  fit_->add_flag("--overwrite", overwrite_, "replace existing files");
}

std::optional<int> FloorCommands::run() {
  const files::Existing existing = overwrite_ ? files::Existing::replace : files::Existing::refuse;
  if (*sweep_) {
    files::check_output(output_, existing);
    const SweepPart part = parse_sweep_part(part_);
    const std::vector<SweepProblem> problems = sweep(seed_, count_, part);
    if (problems.empty())
      throw Error(fmt::format("the first {} problem of seed {} holds none of part {}: give --count 2 or more", count_,
                              seed_, part_));
    files::write(output_, sweep_suite_text(problems, seed_, count_, part), existing);
    fmt::print("{}: {} problems of seed {}\n", output_, problems.size(), seed_);
    return 0;
  }
  if (*fit_) {
    std::vector<std::string> inputs = fit_receipts_;
    inputs.insert(inputs.end(), judge_receipts_.begin(), judge_receipts_.end());
    files::refuse_repeated_inputs(inputs);  // a half twice, or a receipt in both halves: no judgement at all
    files::refuse_input_as_output(output_, inputs);
    files::check_output(output_, existing);
    if (!report_.empty()) {
      files::refuse_input_as_output(report_, inputs);
      if (files::same_file(output_, report_))
        throw Error(fmt::format("-o and --report name one file, {}: the report would replace the rule", report_));
      files::check_output(report_, existing);
    }
    select::FloorRule base;
    const std::vector<select::FloorPoint> fit_points =
        select::floor_points(read_receipts(fit_receipts_, base), family_arms);
    const std::vector<select::FloorPoint> judged =
        select::floor_points(read_receipts(judge_receipts_, base), family_arms);
    if (fit_points.empty() || judged.empty()) throw Error("the fitted and the judged half each need measured problems");
    // Receipts that time no family's rule beside cuBLASLt's default (a vendor-only run) would fit an empty floor.
    std::vector<std::string> arms;
    for (const auto& [arm, _] : family_arms) arms.push_back(arm);
    for (const auto& [half, points] : {std::pair{"fitted", &fit_points}, std::pair{"judged", &judged}})
      if (std::all_of(points->begin(), points->end(), [](const select::FloorPoint& p) { return p.families.empty(); }))
        throw Error(fmt::format("the {} half's receipts time no family's rule (an arm {}) beside cublaslt-default: "
                                "there is nothing to fit or judge",
                                half, fmt::join(arms, " or ")));
    // Another file of the same problems (a copy, a re-run) is no other half: the score would be the fit's own.
    if (const auto shared = select::shared_problems(fit_points, judged); !shared.empty()) {
      const auto& [fitted, judged_one] = shared.front();
      throw Error(fmt::format("the judged half shares {} of its {} problems with the fitted half ({}{}): a rule judged "
                              "on problems it was fitted to says nothing of others; judge it on the other part of the "
                              "sweep (tilewise sweep --part judge)",
                              shared.size(), judged.size(), describe(judged_one),
                              fitted.name == judged_one.name ? "" : fmt::format(", fitted as {}", fitted.name)));
    }
    const select::FloorFit fit = select::fit_floor(base, fit_points);
    const select::FloorScore score = select::score_floor(fit.rule, judged);
    const std::string report = select::floor_report(fit, score, judged);
    select::FloorRule shipped = fit.rule;  // the constants fitted on one half, the points of both
    shipped.points.insert(shipped.points.end(), judged.begin(), judged.end());
    files::write(output_, select::to_json(shipped).dump(1) + "\n", existing);
    if (!report_.empty()) files::write(report_, report, existing);
    fmt::print("{}\nrule: {} ({} points; {} outcomes not current, counted as not faster)\n", report, output_,
               shipped.points.size(), select::count_not_current(shipped));
    return 0;
  }
  return std::nullopt;
}

}  // namespace tilewise::cli
