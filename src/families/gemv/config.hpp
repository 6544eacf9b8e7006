#pragma once
// A decode GEMV configuration as a value (kernels/gemv.cuh's template parameters): it serializes to a short canonical
// string and to JSON, parses back, and compares equal. The legal configurations for a problem (the feasible set) are
// also the tuner's search space; the choice made without a GPU or a measurement is families/gemv/heuristic.hpp's.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/problem.hpp"
#include "kernels/gemv_codes.h"

namespace tilewise::gemv {

// Weight formats, valued as the kernels' codes (kernels/gemv_codes.h). int4 carries its group size along K.
enum class Format : int {
  bf16 = kernels::gemv::w_bf16,
  fp16 = kernels::gemv::w_fp16,
  q8_0 = kernels::gemv::w_q8_0,
  int4_g32 = kernels::gemv::w_int4_g32,
  int4_g128 = kernels::gemv::w_int4_g128,
  fp8 = kernels::gemv::w_fp8,
};
// Cache policy of the weight stream, valued as the kernels' codes.
enum class Hint : int {
  none = kernels::gemv::hint_none,
  nc = kernels::gemv::hint_nc,
  no_allocate = kernels::gemv::hint_no_allocate,
  evict_first = kernels::gemv::hint_evict_first,
  prefetch_256 = kernels::gemv::hint_prefetch_256,
};
// What does the products, and how the weights arrive: one FMA a weight and token (kernels/gemv.cuh, every format; on
// M-major x kernels/gemv_nn.cuh, the problem's own 16-bit weights), or
// mma.sync with the weights as A (kernels/gemv_mma.cuh: 16-bit weights of the activation's type, fp8, and Q8_0 and
// int4 g128 with 16-bit activations; 16, 32 or 64 columns a warp), both loading weights into registers; or the same mmas on
// weights a producer warp streams into a ring of shared-memory stages with bulk copies (kernels/gemv_bulk.cuh); or
// mma.sync on int4 weights in the tensor-core order the sm90 kernel reads (kernels/gemv_mma_order.cuh: N and K in
// whole blocks of 64, x within shared memory; not in the tuner's grid, timed by name).
enum class Engine { fma = 0, mma = 1, bulk = 2, mma_order = 3 };

std::string_view to_string(Format f);  // "bf16", "fp16", "q8_0", "int4g32", "int4g128", "fp8"
std::string_view to_string(Hint h);    // "none", "nc", "na", "ef", "pf256"
std::string_view to_string(Engine e);  // "fma", "mma", "bulk", "mma-order"
Format parse_format(std::string_view s);  // throws Error naming the text and the known names
Hint parse_hint(std::string_view s);
Engine parse_engine(std::string_view s);

int elems_per_chunk(Format f);  // elements of one 16-byte weight chunk: 8, 16 or 32
int group_size(Format f);       // K extent of one scale: 32 (q8_0, int4g32), 128 (int4g128), 0 otherwise
// The format of the problem's own B, which the GEMV reads as it is (no packed copy): bf16 weights for a bf16 problem,
// fp16 for fp16, fp8 for fp8 (e4m3 weights without a channel scale: scale 1). tilewise::gemm runs only this format.
Format native_format(DType problem_dtype);
// f == native_format(problem_dtype).
bool is_native(Format f, DType problem_dtype);
// Whether the mma and bulk engines take these weights with these activations (the reason they do not, else empty).
std::string mma_infeasible(Format f, DType act);

struct Config {
  int m = 1;  // rows of x, 1..16
  Format weights = Format::bf16;
  DType act = DType::bf16;  // activations (the problem's dtype); the output is output_dtype(act)
  // x's layout, the problem's: TN holds x K-major, NN M-major (16-bit x, lda a multiple of 8: the kernels read the
  // 8 tokens of one k at a time). Printed only for NN, like stages.
  Layout layout = Layout::TN;
  int threads = 256;  // the bulk engine: its consumer warps' threads (the CTA has one producer warp more)
  Engine engine = Engine::fma;
  int cols = 2;      // output columns per warp (mma and bulk engines: 16, one m16 tile)
  int ksplit = 1;    // warps of a CTA sharing columns, each one slice of K (bulk: every consumer warp, threads / 32)
  int unroll = 4;    // 16-byte chunks per column in flight per lane (bulk: units a warp takes from each stage)
  Hint hint = Hint::no_allocate;  // bulk: evict_first, or no_allocate for copies without a cache policy
  bool persistent = false;  // grid of SMs x resident CTAs looping over column blocks, else one CTA per block
  int stages = 0;           // the bulk engine's ring of shared-memory stages (2..8); 0 for the others
  // Launched as a programmatic dependent: the grid may start while the kernel before it in the stream finishes,
  // prefetching its first weights before it waits for that kernel (kernels/gemv.cuh, launch_dependents).
  bool pdl = false;
  // The FMA engine issues each step's loads before the step ahead of it computes (two register buffers), so a lane's
  // bytes stay in flight while it dequantizes; the mma engine (int4 g128 and fp8 weights) loads each piece's slot for
  // the next step once the piece has been computed (the same registers). Printed only when set, like stages.
  bool prefetch = false;
  // The mma engine's K split taken in turns: warp s of a column group reads steps s, s + ksplit, ... of each row, so
  // the group reads one contiguous run of each row at a time, not one slice a warp (kernels/gemv_mma.cuh,
  // INTERLEAVE). Needs ksplit > 1; printed only when set.
  bool interleave = false;
  bool operator==(const Config&) const = default;
};

// "m=1,w=bf16,x=bf16,engine=fma,threads=256,cols=2,ksplit=1,unroll=4,hint=na,persistent=0,pdl=0", and for the bulk
// engine ",stages=4" after it, ",prefetch=1" and ",interleave=1" where they are set and ",layout=NN" for M-major x.
std::string to_string(const Config& c);
// Throws Error naming the bad field. Every field is required except engine, pdl, stages, prefetch, interleave and
// layout, which configurations written before they existed lack (they are fma, 0, 0, 0, 0 and TN).
Config parse_config(std::string_view text);
// "gemv bf16 weights, bf16 x, M=1, fma engine, 256 threads, 2 cols/warp, K split 1, unroll 4,
//  ld.global.nc.L1::no_allocate"
std::string describe(const Config& c);

void to_json(nlohmann::json& j, const Config& c);
void from_json(const nlohmann::json& j, Config& c);

// Columns one CTA produces (the bulk engine: one tile of 16 at a time).
int cta_cols(const Config& c);
// Threads of one CTA: `threads`, and the bulk engine's producer warp.
int block_threads(const Config& c);
// The bulk engine's dynamic shared memory: its stages, the warps' sums and the barriers (kernels/gemv_bulk.cuh,
// BulkLayout); 0 for the other engines.
int bulk_shared_bytes(const Config& c);
// An H100/H200 CTA's dynamic shared memory at most; configurations that need more are infeasible.
inline constexpr int kMaxSharedBytes = 227 * 1024;
// The dynamic shared memory a launch on K takes: the bulk engine's (bulk_shared_bytes), the mma-order engine's x
// (M x K 16-bit values) and warps' sums (kernels/gemv_mma_order.cuh); 0 for the other engines.
int64_t dynamic_shared_bytes(const Config& c, int64_t K);
// Registers a thread may use with `threads` threads a CTA: 64K / threads rounded down to a multiple of 8, at most 255
// (the kernel's __maxnreg__, kernels/gemv.cuh).
int register_limit(int threads);
// The registers one thread needs, calibrated on what ptxas (CUDA 13.0, sm_90a) allocates: 16-byte chunks in flight and
// their group scales, accumulators (and a scaled format's per-chunk partial sums), the rows of x ptxas hoists ahead
// of the FMAs, dequantized weights, and a margin (the mma engine: two rows' pieces and x's in flight, the fragment
// accumulators, a margin; both checked by compiling the heaviest feasible configurations, tests/families/
// gemv_config_test.cpp). A configuration over register_limit() spills, so it is infeasible.
int register_estimate(const Config& c);

// Why `c` cannot run `p` (empty when it can): x's layout, M, the activation type, K not whole 16-byte chunks or
// groups, strides that break the alignment of the vector loads, a shape of the CTA the kernel does not take. ldb
// matters only for native formats (the GEMV reads B itself); packed formats choose their own row stride.
std::string infeasible(const Config& c, const Problem& p);
// Throws Unsupported with infeasible()'s reason.
void require_feasible(const Config& c, const Problem& p);

// Every feasible configuration over the tuner's grid (engine, threads 128, 160, 256 or 512, cols, ksplit 1, 2, 4, 5
// or 8 where it divides the warps, interleave, unroll, hint, persistent, pdl).
std::vector<Config> feasible_set(const Problem& p, Format weights);

}  // namespace tilewise::gemv
