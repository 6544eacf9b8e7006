#pragma once
// `tilewise tune`: a resumable tuning campaign over suites for the families sm90, cublaslt and gemv, timed by the bench
// harness (bench/tune_measure.hpp), written as a database selection loads; `tilewise campaign`, what campaigns
// measured; and `tilewise db merge`.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "bench/tune_measure.hpp"
#include "core/problem.hpp"
#include "families/sm90/family.hpp"
#include "select/decide.hpp"

namespace tilewise::cli {

struct TuneOptions {
  std::vector<std::string> suites, only;
  std::vector<DType> dtypes{DType::bf16};
  std::vector<Layout> layouts{Layout::TN};
  std::vector<std::string> families{std::string(sm90::kName)};
  std::string mode = "descent";
  int grid_cap = 10000;
  std::string campaign;  // the resumable campaign file
  std::string database;  // where the finished cases are written as a database; empty: not written
  bool overwrite = false;  // replace an existing database at that path (else refused before any GPU work)
  std::string start;     // a configuration of the one family tuned every case descends from; empty: its rule
  std::vector<std::string> hold;  // fields every case keeps at its warm start's values (tune::hold)
  bench::TuneMeasureOptions measure;
};

// Every suite problem x dtype x layout x family, id "name dtype layout family"; combinations no family can run
// (fp8 NN), and the problems a family declines (the gemv's beyond 16 tokens), are left out. Throws Error for an --only
// name no suite holds, an unknown family, or a family left with no case.
std::vector<tune::Case> tune_cases(const TuneOptions& o);

int run_tune(const TuneOptions& o);  // 0 when every case finished, 1 when some failed
// `tilewise db merge DB... -o OUT [--overlay DB]... [--decide RECEIPT]... [--prefer FAMILY --margin F]`: the union
// of the databases, the overlays' entries in place of theirs (select/merge.hpp);
// with receipts that timed each family's entry side by side, one family per problem, the faster there, or the
// preferred one where no other beat it by more than the margin (select/decide.hpp); then judged by the confirming
// receipts (an entry stays where each timed it faster than cuBLASLt's default) and the rechecking ones (an entry goes
// where one timed it slower) (select/confirm.hpp).
int run_db_merge(const std::vector<std::string>& inputs, const std::vector<std::string>& overlays, const std::string& output,
                 const std::vector<std::string>& deciding_receipts, const select::Preference& prefer,
                 const std::vector<std::string>& confirming_receipts, const std::vector<std::string>& rechecking_receipts,
                 bool overwrite);
// `tilewise campaign FILE... [--database DB [--overwrite]]`: each family's cases and per-round contributions, and the
// finished cases as one database (a campaign stopped at its deadline still yields one). A case in several files is
// taken from the last of them (a re-tune), and each such replacement is printed. 1, and no database, where a campaign
// does not hold its figures (tune/campaign_check.hpp) or a finished case's latency rose.
int run_campaign_report(const std::vector<std::string>& files, const std::string& database, bool overwrite);
// `tilewise campaign DESCENT... --grid GRID`: the grid beside the descent, case by case (final latency, wall time).
int run_mode_comparison(const std::vector<std::string>& descent_files, const std::string& grid_file);

// Adds the subcommands `tune`, `campaign` and `db` to the application; run() carries out the one given, if any, after parsing.
class TuneCommands {
 public:
  explicit TuneCommands(CLI::App& app);
  std::optional<int> run();

 private:
  CLI::App* tune_ = nullptr;
  CLI::App* merge_ = nullptr;
  CLI::App* report_ = nullptr;
  std::vector<std::string> report_files_;
  std::string report_database_, report_grid_;
  bool report_overwrite_ = false, merge_overwrite_ = false;
  TuneOptions o_;
  std::string dtypes_ = "bf16", layouts_ = "TN", only_;
  std::vector<std::string> merge_inputs_, merge_overlays_, merge_receipts_, merge_confirming_,
      merge_rechecking_;
  select::Preference merge_prefer_;
  std::string merge_output_;
};

}  // namespace tilewise::cli
