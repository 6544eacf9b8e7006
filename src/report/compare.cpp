#include "report/compare.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <regex>
#include <sstream>
#include <tuple>

#include "core/suite.hpp"

namespace tilewise::report {

namespace {

using receipt::ArmResult;
using receipt::Receipt;

constexpr const char* peers_tool = "tilewise-peers";
constexpr const char* tilewise_tool = "tilewise";

void add_unique(std::vector<std::string>& to, const std::string& s) {
  if (!s.empty() && std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

int arm_rank(const std::string& arm) {
  // A name ending in ':' ranks every arm it begins.
  static const std::vector<std::string> fixed = {"sm90",  "selected", "gemv:", "cublaslt", "cublaslt-default",
                                                 "torch", "triton"};
  const auto it = std::find_if(fixed.begin(), fixed.end(), [&](const std::string& f) {
    return f == arm || (f.ends_with(':') && arm.starts_with(f));
  });
  return int(it - fixed.begin());  // others rank after every fixed name
}

// Where a receipt sits on the page: the tie-breaker wherever two receipts were created in the same second.
size_t page_index(const std::vector<PageReceipt>& receipts, const PageReceipt* p) {
  return size_t(p - receipts.data());
}

// Seconds since 1970, or the least value where `created` cannot be read: such a receipt counts as the oldest.
int64_t created_or_oldest(const PageReceipt* p) {
  return utc_seconds(p->receipt.created).value_or(std::numeric_limits<int64_t>::min());
}

// Most recent first; equal times go to the receipt later on the page.
void most_recent_first(std::vector<Source>& sources, const std::vector<PageReceipt>& receipts) {
  std::stable_sort(sources.begin(), sources.end(), [&](const Source& a, const Source& b) {
    return std::pair{created_or_oldest(a.receipt), page_index(receipts, a.receipt)} >
           std::pair{created_or_oldest(b.receipt), page_index(receipts, b.receipt)};
  });
}

bool has_figure(const ArmResult& a) { return a.correct && a.error.empty() && a.us_median && *a.us_median > 0; }

// --- side by side ---

struct Group {
  std::string suite, gpu;
  bool cold = false;
  std::vector<const PageReceipt*> receipts;
};

std::vector<Group> groups_of(const std::vector<PageReceipt>& receipts) {
  std::vector<Group> groups;
  std::vector<std::string> suites;  // in the order first seen, which orders the tables
  for (const PageReceipt& p : receipts) {
    std::vector<std::string> names = suites_of(p.receipt.command);
    if (names.empty()) names = {no_suite};
    for (const std::string& suite : names) {
      add_unique(suites, suite);
      const auto same = [&](const Group& g) {
        return g.suite == suite && g.gpu == p.receipt.machine.gpu && g.cold == p.receipt.protocol.cold;
      };
      auto it = std::find_if(groups.begin(), groups.end(), same);
      if (it == groups.end())
        it = groups.insert(groups.end(), Group{suite, p.receipt.machine.gpu, p.receipt.protocol.cold, {}});
      it->receipts.push_back(&p);
    }
  }
  std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) {
    return std::find(suites.begin(), suites.end(), a.suite) < std::find(suites.begin(), suites.end(), b.suite);
  });
  return groups;
}

using ArmSources = std::map<std::string, std::vector<Source>>;  // arm -> every receipt's entry for it

SideTable side_table(const Group& g, const std::vector<PageReceipt>& receipts) {
  SideTable table{g.suite, g.gpu, g.cold, g.receipts, {}, {}};
  std::map<ProblemKey, ArmSources> by_problem;
  std::vector<std::string> names;  // problem names in the order first seen, which orders the rows
  for (const PageReceipt* p : g.receipts) {
    for (const std::string& arm : p->receipt.protocol.arms) add_unique(table.arms, arm);
    for (size_t i = 0; i < p->receipt.results.size(); ++i) {
      const receipt::Result& res = p->receipt.results[i];
      // A receipt over several suites has a group in each; a result that names its suite shows in that one only.
      if (!res.suite.empty() && res.suite != g.suite) continue;
      add_unique(names, res.problem.name);
      for (const ArmResult& a : res.arms) {
        add_unique(table.arms, a.arm);
        by_problem[key_of(res.problem)][a.arm].push_back({p, i, &a});
      }
    }
  }
  table.arms = arm_order(table.arms);
  for (auto& [key, arms] : by_problem) {
    if (arms.size() < 2) continue;
    SideRow row{key, std::vector<std::optional<SideCell>>(table.arms.size())};
    for (auto& [arm, sources] : arms) {
      most_recent_first(sources, receipts);
      const size_t column = size_t(std::find(table.arms.begin(), table.arms.end(), arm) - table.arms.begin());
      row.cells[column] = SideCell{sources.front(), {sources.begin() + 1, sources.end()}};
    }
    table.rows.push_back(std::move(row));
  }
  const auto order = [&](const SideRow& r) {
    return std::tuple{std::find(names.begin(), names.end(), r.problem.name) - names.begin(),
                      r.problem.dtype,
                      r.problem.layout,
                      r.problem.M,
                      r.problem.N,
                      r.problem.K};
  };
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [&](const SideRow& a, const SideRow& b) { return order(a) < order(b); });
  return table;
}

// --- cross-check ---

// Where the same problem was measured under the same conditions: the GPU, the buffer mode and the problem.
using PairKey = std::tuple<std::string, bool, ProblemKey>;

// Every correct entry of `arm` in the valid receipts of `tool`, by pair key; invalid receipts that have one are
// noted in `left_out`.
std::map<PairKey, std::vector<Source>> entries(const std::vector<PageReceipt>& receipts, const std::string& tool,
                                               const std::string& arm, std::vector<const PageReceipt*>& left_out) {
  std::map<PairKey, std::vector<Source>> out;
  for (const PageReceipt& p : receipts) {
    if (p.receipt.tool.name != tool) continue;
    for (size_t i = 0; i < p.receipt.results.size(); ++i)
      for (const ArmResult& a : p.receipt.results[i].arms) {
        if (a.arm != arm || !has_figure(a)) continue;
        if (!p.verdict.valid) {
          if (std::find(left_out.begin(), left_out.end(), &p) == left_out.end()) left_out.push_back(&p);
          continue;
        }
        const Receipt& r = p.receipt;
        out[{r.machine.gpu, r.protocol.cold, key_of(r.results[i].problem)}].push_back({&p, i, &a});
      }
  }
  return out;
}

uint64_t created_distance(const Source& a, const Source& b) {
  const auto x = utc_seconds(a.receipt->receipt.created), y = utc_seconds(b.receipt->receipt.created);
  if (!x || !y) return std::numeric_limits<uint64_t>::max();
  return uint64_t(*x > *y ? *x - *y : *y - *x);
}

// The pair closest in `created`; ties go to receipts later on the page.
std::pair<Source, Source> closest_pair(const std::vector<Source>& torch, const std::vector<Source>& vendor) {
  std::pair best{torch.front(), vendor.front()};
  uint64_t best_distance = created_distance(best.first, best.second);
  for (const Source& t : torch)
    for (const Source& v : vendor)
      if (const uint64_t d = created_distance(t, v); d <= best_distance) {
        best = {t, v};
        best_distance = d;
      }
  return best;
}

CrossRow cross_row(const ProblemKey& key, const Source& torch, const Source& vendor) {
  CrossRow row{key, torch, vendor};
  const double vendor_us = *vendor.arm->us_median;
  row.ratio = *torch.arm->us_median / vendor_us;
  row.long_kernel = vendor_us >= long_kernel_us;
  row.flagged = row.long_kernel && (row.ratio < agree_low || row.ratio > agree_high);
  const int torch_mhz = torch.arm->clock.sm_mhz_median, vendor_mhz = vendor.arm->clock.sm_mhz_median;
  if (torch_mhz > 0 && vendor_mhz > 0) row.cycle_ratio = row.ratio * torch_mhz / vendor_mhz;
  return row;
}

void count(CrossCheck& c) {
  for (const CrossRow& row : c.rows) {
    c.long_kernels += row.long_kernel;
    c.within += row.long_kernel && !row.flagged;
    c.outside += row.flagged;
    c.outside_within_in_cycles +=
        row.flagged && row.cycle_ratio && *row.cycle_ratio >= agree_low && *row.cycle_ratio <= agree_high;
  }
}

}  // namespace

std::vector<std::string> suites_of(const std::string& command) {
  std::istringstream in(command);
  std::vector<std::string> tokens, suites;
  for (std::string t; in >> t;) tokens.push_back(t);
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].starts_with("--suite=")) add_unique(suites, suite_name(tokens[i].substr(8)));
    if (tokens[i] != "--suite") continue;
    for (size_t j = i + 1; j < tokens.size() && !tokens[j].starts_with("-"); ++j)  // CLI11 takes several paths
      add_unique(suites, suite_name(tokens[j]));
  }
  return suites;
}

std::optional<int64_t> utc_seconds(const std::string& created) {
  static const std::regex form(R"((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?Z)");
  std::smatch m;
  if (!std::regex_match(created, m, form)) return std::nullopt;
  const auto number = [&](int i) { return std::stoi(m[i].str()); };
  namespace ch = std::chrono;
  const ch::year_month_day day{ch::year(number(1)), ch::month(unsigned(number(2))), ch::day(unsigned(number(3)))};
  if (!day.ok() || number(4) > 23 || number(5) > 59 || number(6) > 60) return std::nullopt;
  return int64_t(ch::sys_days(day).time_since_epoch().count()) * 86400 + number(4) * 3600 + number(5) * 60 + number(6);
}

std::vector<std::string> arm_order(std::vector<std::string> arms) {
  std::sort(arms.begin(), arms.end(), [](const std::string& a, const std::string& b) {
    return std::pair{arm_rank(a), a} < std::pair{arm_rank(b), b};
  });
  arms.erase(std::unique(arms.begin(), arms.end()), arms.end());
  return arms;
}

ProblemKey key_of(const Problem& p) { return {p.name, p.M, p.N, p.K, p.dtype, p.layout}; }

std::vector<SideTable> side_by_side(const std::vector<PageReceipt>& receipts) {
  std::vector<SideTable> tables;
  for (const Group& g : groups_of(receipts)) tables.push_back(side_table(g, receipts));
  return tables;
}

CrossChecks cross_check(const std::vector<PageReceipt>& receipts) {
  CrossChecks out;
  const auto torch = entries(receipts, peers_tool, "torch", out.left_out);
  const auto vendor = entries(receipts, tilewise_tool, "cublaslt-default", out.left_out);
  std::vector<CrossRow> rows;
  for (const auto& [key, vendor_sources] : vendor)
    if (const auto t = torch.find(key); t != torch.end()) {
      const auto [torch_source, vendor_source] = closest_pair(t->second, vendor_sources);
      rows.push_back(cross_row(std::get<2>(key), torch_source, vendor_source));
    }
  std::stable_sort(rows.begin(), rows.end(), [&](const CrossRow& a, const CrossRow& b) {
    return std::pair{page_index(receipts, a.vendor.receipt), a.vendor.result} <
           std::pair{page_index(receipts, b.vendor.receipt), b.vendor.result};
  });
  for (CrossRow& row : rows) {
    const std::string& gpu = row.vendor.receipt->receipt.machine.gpu;
    auto it = std::find_if(out.gpus.begin(), out.gpus.end(), [&](const CrossCheck& c) { return c.gpu == gpu; });
    if (it == out.gpus.end()) it = out.gpus.insert(out.gpus.end(), CrossCheck{gpu, {}});
    it->rows.push_back(std::move(row));
  }
  for (CrossCheck& c : out.gpus) count(c);
  return out;
}

}  // namespace tilewise::report
