#pragma once
// The mma engine's per-warp ring (gemv_mma.cuh with RING > 0): every lane copies its own pieces of a step with
// cp.async into the warp's slot of shared memory, RING steps ahead of the one it computes, so a warp's bytes are in
// flight from its first instruction on, in shared memory rather than registers. With the weights loaded into
// registers a warp pays HBM's latency once per step; at one token int4 g128 waits on it (results/
// profile-gemv-int4-m1.md; docs/notes/2026-12-04-int4-gemv-ring-plan.md).
//
// A slot holds one step (UNROLL pieces of each of the warp's COLS rows):
//   weights  [UNROLL][COLS / 8 row groups][32 lanes] x 16 bytes: lane (g, q)'s piece of row g + 8 r, as it loads it
//   x        [M tokens][4 UNROLL pieces][x_vecs] x 16 bytes: each token's elements matching the step's pieces
//   scales   [COLS rows][words] x 4 bytes (int4 g128 only): the step's UNROLL groups of each row, copied as whole
//            4-byte words from the even scale at or before the first (cp.async copies 4, 8 or 16 bytes)
// Pieces past the warp's slice are zero-filled (cp.async's source size 0), as the register path loads zeros.
// src/families/gemv/config.cpp's dynamic_shared_bytes() is this layout's size.
#include "gemv_piece.h"

namespace tilewise::kernels::gemv {

// cp.async of BYTES (4 or 16) with the first `valid` of them from global memory and the rest zeros.
template <int BYTES>
__device__ __forceinline__ void copy_async(void* shared, const void* global, int valid) {
  const unsigned dst = static_cast<unsigned>(__cvta_generic_to_shared(shared));
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(global), "r"(valid) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(global), "r"(valid) : "memory");
}
__device__ __forceinline__ void copy_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int PENDING>
__device__ __forceinline__ void copy_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(PENDING) : "memory");
}

template <int M, int WF, int XT, int COLS, int UNROLL>
struct RingSlot {
  using P = MmaPiece<WF, XT>;
  static constexpr int row_groups = COLS / 8;
  static constexpr int weight_bytes = UNROLL * row_groups * 32 * 16;
  static constexpr int x_chunks = 4 * UNROLL * P::x_vecs;  // 16-byte chunks of one token's x a step
  static constexpr int x_bytes = M * x_chunks * 16;
  static constexpr int words = P::grouped ? UNROLL / 2 + 1 : 0;  // 4-byte words of a row's scales a step
  static constexpr int scale_bytes = COLS * words * 4;
  static constexpr int bytes = (weight_bytes + x_bytes + scale_bytes + 15) / 16 * 16;
  static_assert(P::bytes == 16, "the ring copies 16-byte pieces (int4 g128 and fp8 weights)");
};

// Issues one step's copies into `slot`: the pieces base + 4 u + q of each row (row[r] is this lane's row g + 8 r),
// x's matching elements of each token, and for int4 g128 the groups base / 4 .. base / 4 + UNROLL - 1 of each of the
// warp's rows (first_row: the warp's row 0; rows past N read row N - 1, as the weights do). Pieces at or past c_end
// are zeros.
template <int M, int WF, int XT, int COLS, int UNROLL>
__device__ __forceinline__ void issue_step(unsigned char* slot, int base, int c_end, int lane, const unsigned char* const* row,
                                           const unsigned char* x, long long ldx, const unsigned short* scales,
                                           int first_row, int N, int groups) {
  using S = RingSlot<M, WF, XT, COLS, UNROLL>;
  using P = typename S::P;
  const int q = lane % 4;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u) {
    const int ci = base + 4 * u + q;
    const bool in = ci < c_end;
#pragma unroll
    for (int r = 0; r < S::row_groups; ++r)
      copy_async<16>(slot + ((u * S::row_groups + r) * 32 + lane) * 16, in ? row[r] + (long long)ci * 16 : row[r],
                     in ? 16 : 0);
  }
  unsigned char* xs = slot + S::weight_bytes;
#pragma unroll
  for (int i = lane; i < M * S::x_chunks; i += 32) {
    const int m = i / S::x_chunks, c = i % S::x_chunks, piece = base + c / P::x_vecs;
    const bool in = piece < c_end;
    const unsigned char* src = x + ((long long)m * ldx + (long long)piece * P::elems) * P::x_bytes + (c % P::x_vecs) * 16;
    copy_async<16>(xs + i * 16, in ? src : x, in ? 16 : 0);
  }
  if constexpr (P::grouped) {
    unsigned char* ss = slot + S::weight_bytes + S::x_bytes;
    const long long total = (long long)N * groups;  // scales in the array
#pragma unroll
    for (int i = lane; i < COLS * S::words; i += 32) {
      const int r = i / S::words, word = i % S::words;
      const long long first = ((long long)min(first_row + r, N - 1) * groups + base / 4) & ~1LL;
      const long long at = first + 2 * word;
      const int valid = at >= total ? 0 : at + 1 == total ? 2 : 4;
      copy_async<4>(ss + i * 4, valid ? scales + at : scales, valid);
    }
  }
}

// Lane (g, q)'s x of piece u of the step in `slot`: token g's elements matching the lane's piece (zeros for g >= M).
template <int M, int WF, int XT, int COLS, int UNROLL>
__device__ __forceinline__ void read_x(const unsigned char* slot, int u, int lane,
                                       uint4 (&xv)[1][MmaPiece<WF, XT>::x_vecs]) {
  using S = RingSlot<M, WF, XT, COLS, UNROLL>;
  using P = typename S::P;
  const int g = lane / 4, q = lane % 4;
  const unsigned char* xs = slot + S::weight_bytes + (g * S::x_chunks + (4 * u + q) * P::x_vecs) * 16;
#pragma unroll
  for (int j = 0; j < P::x_vecs; ++j)
    xv[0][j] = g < M ? *reinterpret_cast<const uint4*>(xs + 16 * j) : make_uint4(0, 0, 0, 0);
}

// Lane (g, q)'s pieces u of its two rows of column tile ct (g + 16 ct and g + 16 ct + 8), and those rows' scales of
// the piece's group (rows: the lane's rows g + 8 r as global row indices, for the parity of their first scale word).
template <int M, int WF, int XT, int COLS, int UNROLL>
__device__ __forceinline__ void read_rows(const unsigned char* slot, int u, int ct, int lane, int base,
                                          const long long* rows, int groups, uint4 (&wv)[2], float (&scale)[2]) {
  using S = RingSlot<M, WF, XT, COLS, UNROLL>;
  using P = typename S::P;
  const int g = lane / 4;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = 2 * ct + h;  // the lane's row g + 8 r of the warp
    wv[h] = *reinterpret_cast<const uint4*>(slot + ((u * S::row_groups + r) * 32 + lane) * 16);
    scale[h] = 0.0f;
    if constexpr (P::grouped) {
      const int parity = int((rows[r] * groups + base / 4) & 1);
      const unsigned short bits = *reinterpret_cast<const unsigned short*>(
          slot + S::weight_bytes + S::x_bytes + (g + 8 * r) * S::words * 4 + (parity + u) * 2);
      scale[h] = __half2float(__ushort_as_half(bits));
    }
  }
}

}  // namespace tilewise::kernels::gemv
