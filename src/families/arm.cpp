#include "families/arm.hpp"

namespace tilewise::families {

device::OutputError checked_run(const Workbench& wb, const device::Launch& launch) {
  wb.operands.poison_output(0, wb.stream);
  launch(0, wb.stream);
  TW_CUDA(cudaGetLastError());
  return wb.reference.compare(wb.operands.set(0).c.get(), wb.stream);
}

}  // namespace tilewise::families
