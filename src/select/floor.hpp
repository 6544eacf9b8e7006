#pragma once
// The floor under selection without a database entry (docs/design.md, "Selection has a floor"): one of our families
// runs a problem only where the committed sweep measured that family's rule choice faster than cuBLASLt's default,
// with ranges apart, at every one of the problem's nearest measured neighbours; everywhere else cuBLASLt's own
// heuristic runs it. The measurements are the rule: a set of sweep points (data/floor-h200.json, embedded in the
// library), each a problem with every family's outcome against cublaslt-default, and two fitted constants (how many
// neighbours must agree and how near they must be). On a GPU other than the one that measured the points the floor
// takes no family at all.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/problem.hpp"
#include "receipt/receipt.hpp"
#include "select/identity.hpp"

namespace tilewise::select {

// One family's rule choice on one sweep problem, against cublaslt-default in the same receipt.
struct Outcome {
  double speedup = 0;  // cublaslt-default's median over the family's
  std::string claim;   // receipt::Comparison's: "faster" or "slower" (ranges over the repeats apart), or "none"
  std::string config;  // the configuration the family's rule ran there (canonical)
  // Whether the family's rule still chooses `config` for the point's problem: set by mark_current() (load_floor()),
  // not kept in the file. A measurement of a configuration the rule no longer runs says nothing of what would run; it
  // counts as not faster, so a rule that changed since the sweep makes the floor take less, never more.
  bool current = true;
  bool operator==(const Outcome&) const = default;
};

struct FloorPoint {
  Problem problem;
  std::map<std::string, Outcome> families;  // the families whose rule ran the problem correctly
  bool operator==(const FloorPoint&) const = default;
};

// The problems that may stand as each other's neighbours: the same dtype, layout and vendor-alignment class (every
// leading dimension a multiple of 8 elements or not: cuBLASLt's slow kernels for unaligned strides are another
// regime, and a win there is labelled as such, never carried over to aligned problems).
struct FloorClass {
  DType dtype;
  Layout layout;
  bool aligned;
  auto operator<=>(const FloorClass&) const = default;
};
FloorClass floor_class(const Problem& p);
bool vendor_aligned(const Problem& p);  // lda, ldb and ldc all multiples of 8 elements

struct FloorRule {
  std::string gpu;  // where the points were measured ("NVIDIA H200"); the rule holds on that GPU alone
  int sm_count = 0;
  std::string cc;
  int neighbours = 3;   // nearest points of the class that measured the family; all must be faster
  double radius = 1.0;  // in log2 units over (M, N, K): the farthest a neighbour may be
  std::vector<std::string> receipts;  // the sweep receipts the points come from
  std::vector<FloorPoint> points;
  bool operator==(const FloorRule&) const = default;
};

// Sets each outcome's `current` by asking its family's rule, on `rule.sm_count` SMs, for the point's problem (an
// outcome of a family the registry does not know is not current).
void mark_current(FloorRule& rule);
int count_not_current(const FloorRule& rule);

// What the floor says of one family on one problem: taken or not, and the neighbours that decided it.
struct FloorVerdict {
  bool taken = false;
  double score = 0;              // the least speedup among the neighbours, when taken
  std::vector<size_t> neighbours;  // indices into points, nearest first
  std::string why;               // when not taken
};
FloorVerdict judge(const FloorRule& rule, const Problem& p, const std::string& family);

// Among `candidates` (families whose own rule runs p), the one the floor takes with the best score, or nothing
// (cuBLASLt). A rule measured under another GPU than `running` takes none (null `running`: the rule's own GPU).
std::optional<std::string> floor_pick(const FloorRule& rule, const Problem& p, const std::vector<std::string>& candidates,
                                      const Identity* running = nullptr);
bool holds_on(const FloorRule& rule, const Identity& running);

// The rule shipped with the library (data/floor-h200.json), loaded once (load_floor).
const FloorRule& shipped_floor();

// /2 records each outcome's configuration; a /1 file (before it did) is refused with the command that re-fits it.
inline constexpr const char* kFloorSchema = "tilewise.floor/2";
nlohmann::json to_json(const FloorRule& r);
// The file's fields alone, every outcome left current: what to_json wrote. Throws Error naming the field.
FloorRule parse_floor(const nlohmann::json& j, const std::string& origin);
// A floor as selection uses it: parsed, then marked (mark_current). Every floor the library or the tool reads comes
// through here.
FloorRule load_floor(const nlohmann::json& j, const std::string& origin);
FloorRule read_floor(const std::string& path);  // load_floor of the file

// The points of sweep receipts: for each result, every arm named as a family in `family_arms` ({"sm90", "sm90"},
// {"gemv", "gemv"}) that ran correctly, with the configuration it recorded, against the result's `baseline` arm
// (cublaslt-default); marked (mark_current) on the SMs of the receipt's machine. Results whose baseline did not run are
// left out. A problem in several receipts is one point: a later receipt's outcome of a family replaces an earlier
// one's, so outcomes that went stale can be re-timed alone.
std::vector<FloorPoint> floor_points(const std::vector<receipt::Receipt>& receipts,
                                     const std::map<std::string, std::string>& family_arms,
                                     const std::string& baseline = "cublaslt-default");

}  // namespace tilewise::select
