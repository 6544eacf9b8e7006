#include "families/gemv/quantized_copies.hpp"

#include <algorithm>

#include "device/operands.hpp"

namespace tilewise::gemv {

QuantizedCopies quantize_copies(const families::Workbench& wb, const Problem& p, Format format, const Reorder& reorder,
                                bool weights_in_a) {
  const PackedLayout layout = packed_layout(format, p.N, p.K);
  const int n = wb.operands.count();
  int sets = n;
  if (wb.cold) {
    const int64_t need = device::cold_working_set_bytes(wb.l2_bytes);
    sets = int(std::max<int64_t>(n, (need + layout.bytes() - 1) / layout.bytes()));
  }
  QuantizedCopies out;
  out.dequantized = device::Buffer(size_t(p.N * p.K) * sizeof(float));
  for (int i = 0; i < sets; ++i) {
    const device::OperandSet& set = wb.operands.set(i % n);
    PackedWeights rows = quantize((weights_in_a ? set.a : set.b).get(), p.dtype, p.N, p.K, p.ldb, format, wb.stream);
    if (i == 0) dequantize(rows.layout, rows.q.get(), rows.scales.get(), out.dequantized.as<float>(), wb.stream);
    if (reorder) {
      out.copies.push_back(reorder(rows, wb.stream));
      TW_CUDA(cudaStreamSynchronize(wb.stream));  // before `rows` is freed
    } else {
      out.copies.push_back(std::move(rows));
    }
  }
  TW_CUDA(cudaStreamSynchronize(wb.stream));
  out.weight_bytes = layout.bytes();
  // The operand sets' tokens and outputs as the problem holds them (p may be its swapped view, whose C is not).
  const Problem& held = wb.problem;
  out.working_set = int64_t(sets) * layout.bytes() + int64_t(n) * ((weights_in_a ? b_bytes(held) : a_bytes(held)) + c_bytes(held));
  return out;
}

}  // namespace tilewise::gemv
