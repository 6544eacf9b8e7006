#include "select/choice.hpp"

#include "core/error.hpp"
#include "families/gemv/config.hpp"
#include "families/gemv/heuristic.hpp"
#include "families/sm90/heuristic.hpp"

namespace tilewise::select {

std::optional<Choice> from_database(const Database& db, const Problem& p) {
  const auto record = db.records.find(signature(p));
  if (record == db.records.end() || record->second.families.empty()) return std::nullopt;
  const std::pair<const std::string, Entry>* best = nullptr;
  for (const auto& kv : record->second.families)
    if (!best || kv.second.us < best->second.us) best = &kv;
  return Choice{best->first, best->second.config, "database", best->second.us};
}

bool gemv_by_rule(const Problem& p, int sm_count) {
  if (p.M > 8 || p.layout != Layout::TN || (p.dtype != DType::bf16 && p.dtype != DType::fp16)) return false;
  try {
    gemv::default_config(p, gemv::native_format(p.dtype), sm_count);
    return true;
  } catch (const Unsupported&) {
    return false;
  }
}

Choice heuristic_choice(const Problem& p, int sm_count) {
  if (gemv_by_rule(p, sm_count))
    return {"gemv", gemv::to_string(gemv::default_config(p, gemv::native_format(p.dtype), sm_count)), "heuristic", 0};
  try {
    sm90::Limits limits;
    limits.sm_count = sm_count;
    return {"sm90", sm90::to_string(sm90::first_rule(p, limits)), "heuristic", 0};
  } catch (const Unsupported&) {
    return {"cublaslt", "", "heuristic", 0};
  }
}

Choice choose(const Database* db, const Problem& p, int sm_count) {
  if (db)
    if (auto hit = from_database(*db, p)) return *hit;
  return heuristic_choice(p, sm_count);
}

}  // namespace tilewise::select
