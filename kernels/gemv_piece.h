#pragma once
// What one lane of the mma engines reads of one row (a "piece"), and what it feeds (kernels/gemv_mma.cuh).
#include "gemv.cuh"

namespace tilewise::kernels::gemv {

template <int WF, int XT>
struct MmaPiece {
  static constexpr bool grouped = WF == w_q8_0 || WF == w_int4_g128;  // scaled per group in fp32 after each piece
  static constexpr int bytes = WF == w_q8_0 ? 8 : 16;                  // a lane's load from one row
  static constexpr int elems = WeightFormat<WF>::elems * bytes / 16;
  static constexpr int x_bytes = XT == x_fp8 ? 1 : 2;
  static constexpr int x_vecs = elems * x_bytes / 16;                 // 16-byte loads of x matching one piece: 1, 2 or 4
  static constexpr int steps = XT == x_fp8 ? elems / 8 : elems / 4;   // mmas one piece feeds: a lane gives 8 or 4 k a row
  // A grouped format's four lanes of a row read one group: slices of K are whole groups.
  static_assert(!grouped || WeightFormat<WF>::group == 4 * elems, "four pieces make one group");
  // What both mma engines take (src/families/gemv/config.cpp, mma_infeasible, says why the rest is refused).
  static_assert((WF == w_bf16 && XT == x_bf16) || (WF == w_fp16 && XT == x_fp16) || WF == w_fp8 || (grouped && XT != x_fp8),
                "the mma engines take 16-bit weights of the activation's type, fp8, or Q8_0 and int4 g128 with 16-bit x");
};

}  // namespace tilewise::kernels::gemv
