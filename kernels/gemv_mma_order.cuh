#pragma once
// Decode GEMV on int4 weights stored in the tensor-core order ("mma order", kernels/sm90/packed.h): y[m][n] =
// sum_k x[m][k] W[n][k] for M = 1..8, the products done by mma.sync m16n8k16 as in gemv_mma.cuh. The sm90 kernel
// reads the same copy from 17 tokens on, so an engine serving every batch size keeps one copy of its weights.
//
// Why this order at few tokens: thread t's 16 bytes of a 64 x 64 block are its m16n8k16 A fragments for the block's
// four 16-k steps, register r of step s being (word s >> 4r) & 0x000F000F. So a lane's one 16-byte load feeds four
// mmas, its pairs need no shuffle, and a warp's load reads 512 contiguous bytes. The row-order mma engine (gemv_mma.cuh)
// pairs nibbles j and j + 4 and so shuffles x to match, and reads x again for every piece; here x is put once in
// shared memory in the order the B fragments take it, two 16-byte shared loads a block (docs/notes/2026-12-07-gemv-
// mma-order.md says what that was to buy).
//
// Work: a warp takes 16 rows (a quarter of a 64-row block) and a slice of K in whole groups; the CTA's warps are
// QUARTERS = THREADS / 32 / KSPLIT quarters by KSPLIT slices, reduced through shared memory in a fixed order. A lane
// keeps UNROLL blocks in flight while it computes the UNROLL before them (two register sets). With PERSISTENT the grid
// is what fits the GPU at once and strides over the row tiles: a CTA stages x once for all of its tiles.
//
// Template parameters (the gemv configuration with engine=mma-order, src/families/gemv): M (1..8), WF int4 g128 or g32,
// XT bf16 or fp16, THREADS, KSPLIT, UNROLL (blocks a step, whole groups), HINT the weight stream's cache policy, PDL
// as in gemv.cuh (the first step's weights are loaded before the wait: nothing before writes them), PERSISTENT the grid
// stride above, YROWS as in gemv.cuh.
// Dynamic shared memory: x, M x K 16-bit values, then the partial sums, KSPLIT x 16 QUARTERS x M floats (src/
// families/gemv/config.cpp, dynamic_shared_bytes, is the same arithmetic).
#include "gemv_mma.cuh"
#include "sm90/packed_order.h"

namespace tilewise::kernels::gemv {

// x's 32-bit pairs in the order the B fragments read them: for token m and block kb, lane quarter q's eight words
// (step s, half h at 2s + h) are the pairs at k = 64 kb + 16 s + 8 h + 2 q. Returns the word index of the pair
// starting at k (even).
__device__ __forceinline__ int staged_word(int m, int kblocks, int k) {
  const int kb = k / 64, r = k % 64, s = r / 16, h = (r % 16) / 8, q = (r % 8) / 2;
  return ((m * kblocks + kb) * 4 + q) * 8 + 2 * s + h;
}

template <int M, int WF, int XT, int THREADS, int KSPLIT, int UNROLL, int HINT, int PDL, int PERSISTENT = 0, int YROWS = 0>
__global__ void __maxnreg__(register_limit<THREADS>)
    gemv_mma_order(const unsigned char* __restrict__ x, long long ldx, const unsigned char* __restrict__ w,
                long long w_row_bytes, const void* __restrict__ scales, void* __restrict__ out, long long ldc, int N,
                int K) {
  static_assert(M >= 1 && M <= 8, "one 8-token B tile");
  static_assert(WF == w_int4_g128 || WF == w_int4_g32, "int4 weights in the tensor-core order");
  static_assert(XT == x_bf16 || XT == x_fp16, "16-bit activations");
  static_assert(THREADS % 32 == 0 && (THREADS / 32) % KSPLIT == 0, "bad gemv configuration");
  constexpr int quarters = THREADS / 32 / KSPLIT, cta_rows = 16 * quarters;
  static_assert(64 % cta_rows == 0, "a CTA takes one, two or four quarters of a 64-row block");
  constexpr int group = WeightFormat<WF>::group, steps_per_group = group / 16;
  constexpr int blocks_per_unit = group > 64 ? group / 64 : 1;  // a slice is whole groups and whole blocks
  static_assert(UNROLL % blocks_per_unit == 0, "a step is whole groups");
  constexpr int block_bytes = sm90::kPackedBlockRows * sm90::kPackedBlockK / 2;
  (void)w_row_bytes;  // the order has no row stride: block (nb, kb) at (nb * K/64 + kb) * 2048

  extern __shared__ uint4 shared[];
  unsigned* xs = reinterpret_cast<unsigned*>(shared);  // M x K/2 pairs, staged_word's order
  float* partial = reinterpret_cast<float*>(xs + M * K / 2);  // [KSPLIT][cta_rows][M]

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int quarter_in_cta = warp / KSPLIT, ks = warp % KSPLIT;
  const int g = lane / 4, q = lane % 4;
  const int kblocks = K / 64, groups = K / group;
  const int units = kblocks / blocks_per_unit;
  const int b_begin = blocks_per_unit * (ks * (units / KSPLIT) + min(ks, units % KSPLIT));
  const int b_end = b_begin + blocks_per_unit * (units / KSPLIT + (ks < units % KSPLIT ? 1 : 0));

  const int tiles = N / cta_rows;  // N is whole 64-row blocks, and cta_rows divides 64
  const unsigned char* wq;           // this warp's 16 rows of the tile: their blocks from K = 0
  const unsigned short* sq;          // the scales of rows g and g + 8 of those rows: fp16 [N / 64][K / G][64]
  auto point_at = [&](int tile) {
    const int row0 = tile * cta_rows + 16 * quarter_in_cta;
    const int nb = row0 / 64, quarter = row0 % 64 / 16;
    wq = w + (long long)nb * kblocks * block_bytes + (32 * quarter + lane) * 16;
    sq = static_cast<const unsigned short*>(scales) + (long long)nb * groups * 64 + 16 * quarter + g;
  };

  unsigned long long policy = 0;
  if constexpr (HINT == hint_evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));

  constexpr int unit_groups = UNROLL * 4 / steps_per_group;  // groups one step covers
  struct Step {
    uint4 q[UNROLL];
    unsigned short scale[unit_groups][2];
  };
  auto load = [&](Step& st, int kb) {  // blocks kb .. kb + UNROLL, those before b_end
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
      st.q[u] = kb + u < b_end ? load_weights<HINT>(wq + (long long)(kb + u) * block_bytes, policy) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < unit_groups; ++i) {
      const int grp = kb * 4 / steps_per_group + i;
      const bool in = kb + i * steps_per_group / 4 < b_end;
      st.scale[i][0] = in ? __ldg(sq + (long long)grp * 64) : 0;
      st.scale[i][1] = in ? __ldg(sq + (long long)grp * 64 + 8) : 0;
    }
  };

  Step next;
  if constexpr (PDL) launch_dependents();
  point_at(blockIdx.x);
  load(next, b_begin);  // the weights: nothing before writes them
  if constexpr (PDL) wait_for_prerequisites();

  // x into shared memory, 8 elements (four pairs of one half-step, q = 0..3) a 16-byte load.
  for (int i = threadIdx.x; i < M * K / 8; i += THREADS) {
    const int m = i / (K / 8), k = i % (K / 8) * 8;
    const uint4 v = __ldg(reinterpret_cast<const uint4*>(x + ((long long)m * ldx + k) * 2));
    const int at = staged_word(m, kblocks, k);
    xs[at] = v.x, xs[at + 8] = v.y, xs[at + 16] = v.z, xs[at + 24] = v.w;
  }
  __syncthreads();

  const bool has_token = g < M;
  const uint4* xq = reinterpret_cast<const uint4*>(xs) + (has_token ? g : 0) * kblocks * 8 + q * 2;
  for (int tile = blockIdx.x; tile < tiles; tile = PERSISTENT ? tile + int(gridDim.x) : tiles) {  // else one tile
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int kb = b_begin; kb < b_end; kb += UNROLL) {  // warp-uniform
      const Step cur = next;
      if (kb + UNROLL < b_end) load(next, kb + UNROLL);
      float part[4];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (kb + u >= b_end) break;
        const uint4 x_lo = has_token ? xq[(kb + u) * 8] : make_uint4(0, 0, 0, 0);  // steps 0 and 1
        const uint4 x_hi = has_token ? xq[(kb + u) * 8 + 1] : make_uint4(0, 0, 0, 0);  // steps 2 and 3
#pragma unroll
        for (int s = 0; s < 4; ++s) {
          const int j = 4 * u + s;  // the step's index in this unit
          if (j % steps_per_group == 0)
#pragma unroll
            for (int i = 0; i < 4; ++i) part[i] = 0.0f;
          const unsigned wd = word(cur.q[u], s);
          constexpr unsigned magic = XT == x_bf16 ? 0x43004300u : 0x64006400u;  // 128 + u in bf16, 1024 + u in fp16
          constexpr float bias = XT == x_bf16 ? 136.0f : 1032.0f;               // stored u is q + 8
          unsigned a[4];
#pragma unroll
          for (int r = 0; r < 4; ++r) a[r] = magic_pair<XT>(and_or(wd >> (4 * r), 0x000F000Fu, magic), bias);
          const uint4& xv = s < 2 ? x_lo : x_hi;
          mma<XT>(part, a, word(xv, 2 * (s % 2)), word(xv, 2 * (s % 2) + 1));
          if (j % steps_per_group == steps_per_group - 1) {
            const int i = j / steps_per_group;
            const float s0 = __half2float(__ushort_as_half(cur.scale[i][0]));
            const float s1 = __half2float(__ushort_as_half(cur.scale[i][1]));
            acc[0] = fmaf(s0, part[0], acc[0]), acc[1] = fmaf(s0, part[1], acc[1]);
            acc[2] = fmaf(s1, part[2], acc[2]), acc[3] = fmaf(s1, part[3], acc[3]);
          }
        }
      }
    }

    if (PERSISTENT && tile + int(gridDim.x) < tiles) {  // the next tile's first step, in flight while this one stores
      point_at(tile + gridDim.x);
      load(next, b_begin);
    }

    // acc: [0] row g, token 2q; [1] row g, token 2q + 1; [2], [3] the same for row g + 8.
    float* mine = partial + (ks * cta_rows + 16 * quarter_in_cta) * M;
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (const int m = 2 * q + i % 2; m < M) mine[(g + 8 * (i / 2)) * M + m] = acc[i];
    __syncthreads();
    store_columns<M, WF, XT, KSPLIT, YROWS>(threadIdx.x, THREADS, tile * cta_rows, cta_rows, N, scales, out, ldc,
                                            [&](int s, int col, int m) { return partial[(s * cta_rows + col) * M + m]; });
    if constexpr (PERSISTENT) __syncthreads();  // `partial` is the next tile's
  }
}

}  // namespace tilewise::kernels::gemv
