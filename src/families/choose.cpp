#include "families/choose.hpp"

#include "receipt/derive.hpp"

namespace tilewise::families {

Chosen choose_fastest(const Workbench& wb, const std::vector<nlohmann::json>& configs,
                      const std::function<void(size_t)>& use, const device::Launch& launch, bool time) {
  Chosen out;
  out.tried.assign(configs.size(), {});
  device::Timers timers(configs.size());
  for (size_t i = 0; i < configs.size(); ++i) {
    receipt::Candidate& record = out.tried[i];
    record.config = configs[i];
    try {
      use(i);  // the graph below captures this candidate
      const device::OutputError err = checked_run(wb, launch);
      record.rel_err = err.rel_err;
      record.correct = receipt::is_correct(err.rel_err, receipt::correctness_bound(wb.problem.dtype));
      if (record.correct && time)
        timers[i] = device::sized_graph_timer(launch, wb.operands.count(), wb.graph_target_ms / 2, wb.stream);
    } catch (const Error& e) {
      record.error = e.what();
    }
  }
  const std::vector<std::vector<double>> samples = device::time_interleaved(timers, wb.selection_rounds, 1);
  for (size_t i = 0; i < configs.size(); ++i) {
    if (samples[i].empty()) continue;
    out.tried[i].us = receipt::median(samples[i]);
    if (!out.tried[out.best].us || *out.tried[i].us < *out.tried[out.best].us) out.best = i;
  }
  if (!configs.empty()) try {
      use(out.best);
    } catch (const Error&) {  // every candidate failed to be made current: the arm says so
    }
  return out;
}

}  // namespace tilewise::families
