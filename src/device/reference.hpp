#pragma once
// Correct before fast: the fp32-accumulate GPU reference of one operand set, the metrics an arm's output is judged
// by, and an fp64 CPU check of the reference itself on sampled elements.
#include <optional>

#include "device/cuda.hpp"
#include "device/operands.hpp"
#include "receipt/receipt.hpp"

namespace tilewise::device {

struct OutputError {
  std::optional<double> rel_err;  // ||out - ref|| / ||ref||; absent when any element is NaN or infinite
  std::optional<double> max_abs_err;
  uint64_t non_finite = 0;
};

// Weights a quantized arm computes with in place of one operand of the problem, dequantized to fp32 rows of K (row
// stride K): B's N rows, or with `a` A's M rows (TN only: nn.Linear's orientation, where A holds the weights).
struct Replaced {
  const float* rows = nullptr;
  bool a = false;
};

class Reference {
 public:
  // Computes op(A) op(B) of `set` on the GPU in fp32.
  Reference(const Problem& p, const OperandSet& set, cudaStream_t stream);
  // The same with one operand replaced by fp32 weights, which must outlive the reference. A quantized arm computes
  // with its dequantized weights, so it is judged against them (check_fp64 reads them too). Throws Error for A
  // replaced in NN or no weights.
  Reference(const Problem& p, const OperandSet& set, Replaced weights, cudaStream_t stream);

  static int64_t bytes(const Problem& p) { return p.M * p.N * 4; }

  // Judges an output (the problem's C type, leading dimension ldc) against the reference.
  OutputError compare(const void* c, cudaStream_t stream) const;

  // Recomputes samples_side^2 elements (rows x columns spread over C) in fp64 on the CPU from the same inputs.
  receipt::ReferenceCheck check_fp64(const OperandSet& set, int samples_side = 16) const;

 private:
  Problem p_;
  Replaced replaced_;
  Buffer ref_;
  Buffer sums_;
};

}  // namespace tilewise::device
