#pragma once
// Decode GEMV on the tensor cores: y[m][n] = sum_k x[m][k] W[n][k] for M = 1..16, as kernels/gemv.cuh computes it,
// with the products done by mma.sync instead of one FMA a weight. The weights are the mma's A (16 output columns x
// k), x^T its B (k x 8 tokens), so one warp owns 16 columns (or 32 or 64: two or four A tiles fed by each load of x)
// and M = 9..16 takes two mmas a step. What the mma saves over the FMA kernel (a multiply-add and an unpack a weight,
// M of them) is the issue slots that kept that kernel off the bandwidth floor at M > 1. At M = 1 seven of the eight
// token columns are zero and there is little to save: for 16-bit, Q8_0 and fp8 weights with 16-bit x the FMA kernel
// was as fast or faster there (results/decode-gemv-engines-pdl.json), so the default keeps it for those.
//
// The order of k inside an mma is free, so long as A and B agree: a lane's k-values of one mma may be any of its
// row's weights if its x values are the matching ones. So each lane loads whole pieces of its two rows a tile (the
// fragment's rows g and g + 8: 16 bytes, 8 for Q8_0) and x's matching elements, and one piece feeds two to eight
// mmas with no shuffle. Step s of a piece takes its words 2s and 2s + 1 (16-bit weights; fp8 with fp8 x), its word
// s widened to two pairs (fp8 into 16-bit x, Q8_0), or nibbles j and j + 4 of its word s / 2 (int4: the pairs one
// magic-number conversion makes); x's matching elements are paired the same way (x_pairs). The four lanes of a row
// take consecutive pieces, so one load instruction reads 64 (Q8_0: 32) contiguous bytes of each of 16 rows.
//
// Weight formats: bf16 and fp16 as they are (the activation's type); fp8 e4m3 widened to the activation's 16-bit
// type (exactly: every e4m3 value is a bf16 and an fp16), or, with fp8 activations, both fed as they are to the
// e4m3 mma (k = 32); its channel scale multiplies the sum. Q8_0 and int4 with groups of 128 feed q itself, exact in
// the 16-bit type, and scale in fp32 as the reference does: the four lanes' pieces of a row are one group, so every
// mma sums within one group of each row into a partial that the group's scale multiplies into the accumulator.
// int4 with groups of 32 (16 bytes) would need 4-byte pieces, and stays with the FMA kernel.
//
// Template parameters (the gemv configuration with engine=mma, src/families/gemv): M, WF, XT as in gemv.cuh; XL x's
// layout, K-major (TN) or M-major (NN; TokenRows says how each is read); THREADS (warps: THREADS/32/KSPLIT column
// groups of COLS columns); COLS 16, 32 or 64, a warp's columns: each 16 columns read all of x once more (at M = 16, 1
// byte of x a byte of 16-bit weights, up to 4 for int4), 32 halve that; KSPLIT warps share columns, each one
// contiguous slice of K (whole groups), reduced through shared memory in a fixed order; UNROLL pieces per row a lane
// loads before it computes (two rows a tile: 2 * UNROLL * COLS / 16 pieces in flight per lane); HINT the weight
// stream's cache policy; PDL as in gemv.cuh; INTERLEAVE: the KSPLIT warps take K's steps in turns instead (warp s
// steps s, s + KSPLIT, ...), so that at any time they read one contiguous run of each row, not KSPLIT runs far apart.
// That was faster for bf16 at M = 16 and fp8 x at M = 1 and slower elsewhere (src/families/gemv/heuristic.cpp).
// PREFETCH (int4 g128 and fp8 weights): each piece's slot is loaded for the next step once the piece has been
// computed, so loads and arithmetic overlap within a warp (the kernel's steps loop says more).
#include "widen.h"
#include "gemv.cuh"

namespace tilewise::kernels::gemv {

// The mma of the activation type: m16n8k16 for 16-bit types, m16n8k32 for e4m3 (sm_89 and later).
template <int XT>
__device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  if constexpr (XT == x_bf16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else if constexpr (XT == x_fp16) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two small integers stored as magic | u in the 16-bit halves of `bits` (magic | u reads as the integer base + u in
// the activation's type), returned as (base + u) - bias: exact, since both are integers the type holds.
template <int XT>
__device__ __forceinline__ unsigned magic_pair(unsigned bits, float bias) {
  if constexpr (XT == x_bf16) {
    const __nv_bfloat162 v = __hsub2(*reinterpret_cast<const __nv_bfloat162*>(&bits), __floats2bfloat162_rn(bias, bias));
    return *reinterpret_cast<const unsigned*>(&v);
  } else {
    const __half2 v = __hsub2(*reinterpret_cast<const __half2*>(&bits), __floats2half2_rn(bias, bias));
    return *reinterpret_cast<const unsigned*>(&v);
  }
}

// The A registers of step s for one row's piece: the pair for k = 2q (lo) and for k = 2q + 8 (hi) in the mma's own
// numbering; the caller interleaves the two rows.
template <int WF, int XT>
__device__ __forceinline__ void row_pairs(const uint4& v, int s, unsigned& lo, unsigned& hi) {
  if constexpr (WF == w_fp8 && XT != x_fp8) {  // 16 elements, four steps: word s widened to two 16-bit pairs
    const unsigned w = word(v, s);
    lo = e4m3_pair_to_16bit<XT == x_bf16>(w & 0xFFFFu), hi = e4m3_pair_to_16bit<XT == x_bf16>(w >> 16);
  } else if constexpr (WF == w_q8_0) {  // 8 elements, two steps: word s, bytes 0-1 and 2-3
    lo = int8_pair_to_16bit<XT == x_bf16>(word(v, s), 0), hi = int8_pair_to_16bit<XT == x_bf16>(word(v, s), 2);
  } else if constexpr (WF == w_int4_g128) {  // 32 elements, eight steps: word s / 2, nibbles 2h, 2h + 4 and 2h + 1, 2h + 5
    const unsigned w = word(v, s / 2) >> (8 * (s % 2));
    const unsigned magic = XT == x_bf16 ? 0x43004300u : 0x64006400u;  // 128 + u in bf16, 1024 + u in fp16
    const float bias = XT == x_bf16 ? 136.0f : 1032.0f;               // stored u is q + 8
    lo = magic_pair<XT>(and_or(w, 0x000F000Fu, magic), bias), hi = magic_pair<XT>(and_or(w >> 4, 0x000F000Fu, magic), bias);
  } else {  // 16-bit weights (two steps of two pairs) or e4m3 with e4m3 x (two steps of two quads): as they are
    lo = word(v, 2 * s), hi = word(v, 2 * s + 1);
  }
}

// The B registers of step s from x's elements matching the piece (xv: its 16-byte loads): words 2s and 2s + 1, or
// for int4 the pairs (j, j + 4) of the elements of its weight word s / 2, to match row_pairs.
template <int WF, int X_VECS>
__device__ __forceinline__ void x_pairs(const uint4 (&xv)[X_VECS], int s, unsigned& lo, unsigned& hi) {
  if constexpr (WF == w_int4_g128) {
    const int i = s / 2, h = s % 2;  // weights word i: x words 4i .. 4i + 3 hold elements 8i .. 8i + 8 in pairs
    const unsigned a = word(xv[i], h), b = word(xv[i], h + 2);
    lo = __byte_perm(a, b, 0x5410), hi = __byte_perm(a, b, 0x7632);
  } else {
    lo = word(xv[s / 2], (2 * s) % 4), hi = word(xv[s / 2], (2 * s + 1) % 4);
  }
}

// The shape of what one lane reads of one row for the mma engines (a "piece"), and what it feeds.
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

// One 8 x 8 block of 16-bit values transposed across the warp: lane (r, c) gives row r's values 2c and 2c + 1 (low
// half first) and gets back row g = lane / 4 of the transpose, its values 2q and 2q + 1 (q = lane % 4).
__device__ __forceinline__ unsigned transpose8x8(unsigned v) {
  unsigned t;
  asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t) : "r"(v));
  return t;
}

// The activations a lane feeds to B: token g, and g + 8 for the second 8-token half (M > 8). xv holds x's elements
// matching the lane's piece as a K-major row holds them: word w of load j is the piece's elements 8j + 2w and
// 8j + 2w + 1 (x_pairs pairs them for each format). The pieces of lanes q >= `inside` lie past the warp's slice and
// are zeros, as are tokens past M of K-major x.
//
// K-major x (XL = x_k_major): one 16-byte load of the lane's own token row per 8 elements. M-major x (NN; 16-bit,
// columns of tokens ldx elements apart, ldx a multiple of 8): the pair a lane needs lies ldx apart, but the 8 tokens
// of one k are adjacent. So each word w is an 8 x 8 block whose row 2q' + i is element 8j + 2w + i of lane q''s piece,
// for the half's 8 tokens: lane (r, c) loads row r's tokens 2c and 2c + 1 (4 bytes; the warp's load is 8 rows of 16
// bytes), and one transpose hands each lane its token's pair. Tokens past M read the column's padding into outputs
// that are never stored.
template <int M, int WF, int XT, int XL>
struct TokenRows {
  static constexpr int tiles = M > 8 ? 2 : 1;
  using P = MmaPiece<WF, XT>;
  static_assert(XL == x_k_major || XT != x_fp8, "M-major x is 16-bit");
  const unsigned char* x;
  long long ldx;
  int g, q;
  const unsigned char* row[tiles];  // K-major x: token g + 8t's row (token 0's past M, never read)
  bool has[tiles];
  __device__ __forceinline__ TokenRows(const unsigned char* x_, long long ldx_, int g_, int q_)
      : x(x_), ldx(ldx_), g(g_), q(q_) {
#pragma unroll
    for (int t = 0; t < tiles; ++t) {
      has[t] = g + 8 * t < M;
      row[t] = x + (has[t] ? g + 8 * t : 0) * ldx * P::x_bytes;
    }
  }
  __device__ __forceinline__ void load(long long piece, int inside, uint4 (&xv)[tiles][P::x_vecs]) const {
    if constexpr (XL == x_k_major) {
      const bool in = q < inside;
#pragma unroll
      for (int t = 0; t < tiles; ++t)
#pragma unroll
        for (int j = 0; j < P::x_vecs; ++j)
          xv[t][j] = in && has[t] ? __ldg(reinterpret_cast<const uint4*>(row[t] + piece * P::elems * P::x_bytes + 16 * j))
                                  : make_uint4(0, 0, 0, 0);
    } else {
      const int source_q = g / 2, i = g % 2;  // as a source this lane loads block row g: lane source_q's piece
      const bool source_in = source_q < inside;
      const long long k0 = (piece - q + source_q) * P::elems + i;
#pragma unroll
      for (int t = 0; t < tiles; ++t)
#pragma unroll
        for (int j = 0; j < P::x_vecs; ++j) {
          unsigned w[4];
#pragma unroll
          for (int v = 0; v < 4; ++v) {
            const long long k = k0 + 8 * j + 2 * v;
            const unsigned pair =
                source_in ? __ldg(reinterpret_cast<const unsigned*>(x + (k * ldx + 8 * t + 2 * q) * P::x_bytes)) : 0u;
            w[v] = transpose8x8(pair);
          }
          xv[t][j] = make_uint4(w[0], w[1], w[2], w[3]);
        }
    }
  }
};

// The mmas of one piece: this lane's pieces of rows g and g + 8 (wv), x's matching elements for each 8-token half
// (xv), and for a grouped format the two rows' scales, which multiply the piece's sums (one group) into acc in fp32.
template <int WF, int XT, int TILES>
__device__ __forceinline__ void mma_piece(const uint4 (&wv)[2], const uint4 (&xv)[TILES][MmaPiece<WF, XT>::x_vecs],
                                          const float (&scale)[2], float (&acc)[TILES][4]) {
  using P = MmaPiece<WF, XT>;
  float part[TILES][4];
  float(&sum)[TILES][4] = P::grouped ? part : acc;
#pragma unroll
  for (int t = 0; t < TILES; ++t)
#pragma unroll
    for (int i = 0; i < 4; ++i) part[t][i] = 0.0f;
#pragma unroll
  for (int s = 0; s < P::steps; ++s) {
    unsigned a[4];
    row_pairs<WF, XT>(wv[0], s, a[0], a[2]);
    row_pairs<WF, XT>(wv[1], s, a[1], a[3]);
#pragma unroll
    for (int t = 0; t < TILES; ++t) {
      unsigned b0, b1;
      x_pairs<WF>(xv[t], s, b0, b1);
      mma<XT>(sum[t], a, b0, b1);
    }
  }
  if constexpr (P::grouped)
#pragma unroll
    for (int t = 0; t < TILES; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[t][i] = fmaf(scale[i / 2], part[t][i], acc[t][i]);
}

// A warp's accumulators, acc[t]: [0] row g, token 8t + 2q; [1] row g, token 8t + 2q + 1; [2] and [3] the same for
// row g + 8. Writes those under M into partial[row][token] (16 rows of M floats).
template <int M, int TILES>
__device__ __forceinline__ void store_fragment(const float (&acc)[TILES][4], int g, int q, float (*partial)[M]) {
#pragma unroll
  for (int t = 0; t < TILES; ++t)
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int m = 8 * t + 2 * q + i % 2;
      if (m < M) partial[g + 8 * (i / 2)][m] = acc[t][i];
    }
}

template <int M, int WF, int XT, int XL, int THREADS, int COLS, int KSPLIT, int UNROLL, int HINT, int PDL, int INTERLEAVE,
          int PREFETCH, int YROWS = 0>
__global__ void __maxnreg__(register_limit<THREADS>)
    gemv_mma(const unsigned char* __restrict__ x, long long ldx, const unsigned char* __restrict__ w, long long w_row_bytes,
             const void* __restrict__ scales, void* __restrict__ out, long long ldc, int N, int K) {
  static_assert(M >= 1 && M <= 16 && THREADS % 32 == 0 && (THREADS / 32) % KSPLIT == 0, "bad gemv configuration");
  static_assert(COLS == 16 || COLS == 32 || COLS == 64, "a warp computes one, two or four 16-column tiles");
  using P = MmaPiece<WF, XT>;
  constexpr int warps = THREADS / 32, col_groups = warps / KSPLIT, cta_cols = col_groups * COLS;
  constexpr int col_tiles = COLS / 16;  // 16-column A tiles a warp feeds from each load of x
  constexpr int tiles = TokenRows<M, WF, XT, XL>::tiles;  // 8-token halves of x
  constexpr int unit = P::grouped ? 4 : 1;
  __shared__ float partial[KSPLIT][col_groups * col_tiles][16][M];

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int cg = warp / KSPLIT, ks = warp % KSPLIT;
  const int g = lane / 4, q = lane % 4;  // the fragment's row (and token) and this lane's quarter of k
  const int units = K / P::elems / unit;  // feasibility guarantees K % elems == 0 (and K % group == 0)
  // The pieces [c_begin, c_end) of each row this warp reads, `stride` apart a step (a step is whole groups).
  constexpr int stride = INTERLEAVE ? 4 * UNROLL * KSPLIT : 4 * UNROLL;
  const int c_begin = INTERLEAVE ? 4 * UNROLL * ks : unit * (ks * (units / KSPLIT) + min(ks, units % KSPLIT));
  const int c_end = INTERLEAVE ? K / P::elems : c_begin + unit * (units / KSPLIT + (ks < units % KSPLIT ? 1 : 0));
  const int groups = P::grouped ? K / WeightFormat<WF>::group : 0;

  unsigned long long policy = 0;
  if constexpr (HINT == hint_evict_first) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));

  const TokenRows<M, WF, XT, XL> tokens(x, ldx, g, q);

  const int blocks = (N + cta_cols - 1) / cta_cols;
  if constexpr (PDL) {  // prefetch the first block's first step, then wait (pdl.h; gemv.cuh, prefetch_l2)
    launch_dependents();
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int r = 0; r < 2 * col_tiles; ++r)
        if (c_begin + 4 * u + q < c_end)
          prefetch_l2(w + (long long)min(int(blockIdx.x) * cta_cols + cg * COLS + g + 8 * r, N - 1) * w_row_bytes +
                      (long long)(c_begin + 4 * u + q) * P::bytes);
    wait_for_prerequisites();
  }
  for (int blk = blockIdx.x; blk < blocks; blk += gridDim.x) {  // grid-stride: a persistent grid loops
    const int n0 = blk * cta_cols + cg * COLS;
    // Row r of this lane is the fragment row g of tile r / 2, or g + 8 (odd r). Rows past N read row N - 1 (kept in
    // bounds, no predicate in the stream) and are never stored.
    long long rows[2 * col_tiles];
    const unsigned char* row[2 * col_tiles];
#pragma unroll
    for (int r = 0; r < 2 * col_tiles; ++r) rows[r] = min(n0 + g + 8 * r, N - 1), row[r] = w + rows[r] * w_row_bytes;
    float acc[col_tiles][tiles][4];
#pragma unroll
    for (int ct = 0; ct < col_tiles; ++ct)
#pragma unroll
      for (int t = 0; t < tiles; ++t)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[ct][t][i] = 0.0f;

    // One step: UNROLL pieces of each row, every load issued before any arithmetic (these are the bytes in flight).
    // Only the slice's last step (interleaved: the row's) can hold pieces past its end (lanes q >= inside), which
    // load nothing and feed zeros to both operands, so their mmas add nothing. For int4 and fp8 weights the steps
    // before it run without those checks, which took about a tenth of int4's instructions and registers (int4 at
    // M = 1: 136 where 168) without changing the CTAs an SM the wave rule counts (results/logs/check-free-int4-fp8/
    // NOTES.md). 16-bit and Q8_0 weights keep them: without, their two-tile kernels at M = 16 fit a fourth CTA an SM,
    // whose 384-block grid then leaves SMs idle (bf16 29.8 against 27.1 us, results/logs/mma-tail-checks/NOTES.md).
    constexpr bool check_free = WF == w_int4_g128 || WF == w_fp8;
    static_assert(!PREFETCH || check_free, "prefetch = 1 streams the check-free steps: int4 g128 and fp8 weights");
    // The registers one step's pieces are loaded into. A plain step holds its own (so the compiler sees them die at
    // the step's end, and the 16-bit and Q8_0 kernels compile as they did before prefetch existed); prefetch keeps one
    // set across steps.
    struct Slots {
      uint4 wv[UNROLL][col_tiles][2], xv[UNROLL][tiles][P::x_vecs];
      float scale[UNROLL][col_tiles][2];
    };
    auto load = [&](Slots& s, int base, int u, bool tail) {  // piece u of the step at `base` into slot u
      const int ci = base + 4 * u + q, inside = tail ? c_end - (base + 4 * u) : 4;  // lanes q < inside have a piece
      const bool in = q < inside;
#pragma unroll
      for (int r = 0; r < 2 * col_tiles; ++r) {
        s.wv[u][r / 2][r % 2] =
            in ? load_weights<HINT, P::bytes>(row[r] + (long long)ci * P::bytes, policy) : make_uint4(0, 0, 0, 0);
        s.scale[u][r / 2][r % 2] = 0.0f;
        if constexpr (P::grouped)  // the four lanes' pieces are one group (base and c_begin are whole groups)
          s.scale[u][r / 2][r % 2] = in ? group_scale<WF>(static_cast<const unsigned short*>(scales), rows[r], groups,
                                                          ci * P::bytes / 16)  // group_scale counts 16-byte chunks
                                        : 0.0f;
      }
      tokens.load(ci, inside, s.xv[u]);
    };
    auto compute = [&](Slots& s, int u) {
#pragma unroll
      for (int ct = 0; ct < col_tiles; ++ct) mma_piece<WF, XT, tiles>(s.wv[u][ct], s.xv[u], s.scale[u][ct], acc[ct]);
    };
    auto step = [&](int base, bool tail) {  // inlined at each call, so `tail` is a constant in each
      Slots s;
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) load(s, base, u, tail);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) compute(s, u);
    };
    int base = c_begin;  // warp-uniform: every lane runs every mma
    if constexpr (PREFETCH) {
      // Each slot is loaded again for the next step as soon as its piece has fed its mmas, so the next step's bytes
      // are in flight while this step's later pieces compute, in the same registers. Without it a warp's loads and
      // its arithmetic take turns, and a warp streams only a few steps (dec_m1_12288's int4: four).
      if (base + 4 * UNROLL <= c_end) {
        Slots s;
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) load(s, base, u, false);
        for (;;) {
          const int next = base + stride;
          const bool more = next + 4 * UNROLL <= c_end;
#pragma unroll
          for (int u = 0; u < UNROLL; ++u) {
            compute(s, u);
            if (more) load(s, next, u, false);
          }
          base = next;
          if (!more) break;
        }
      }
    } else if constexpr (check_free) {
      for (; base + 4 * UNROLL <= c_end; base += stride) step(base, false);
    }
    for (; base < c_end; base += stride) step(base, true);

#pragma unroll
    for (int ct = 0; ct < col_tiles; ++ct) store_fragment<M, tiles>(acc[ct], g, q, partial[ks][cg * col_tiles + ct]);
    __syncthreads();
    store_columns<M, WF, XT, KSPLIT, YROWS>(threadIdx.x, THREADS, blk * cta_cols, cta_cols, N, scales, out, ldc,
                                     [&](int s, int col, int m) { return partial[s][col / 16][col % 16][m]; });
    __syncthreads();  // `partial` is reused by the next block of a persistent grid
  }
}

}  // namespace tilewise::kernels::gemv
