#include "families/gemv/config.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/fields.hpp"

namespace tilewise::gemv {

namespace {

using families::Named;
constexpr Named<Format> kFormats[] = {{"bf16", Format::bf16},         {"fp16", Format::fp16},
                                      {"q8_0", Format::q8_0},         {"int4g32", Format::int4_g32},
                                      {"int4g128", Format::int4_g128}, {"fp8", Format::fp8}};
constexpr Named<Hint> kHints[] = {{"none", Hint::none},         {"nc", Hint::nc},
                                  {"na", Hint::no_allocate},    {"ef", Hint::evict_first},
                                  {"pf256", Hint::prefetch_256}};
constexpr Named<Engine> kEngines[] = {
    {"fma", Engine::fma}, {"mma", Engine::mma}, {"bulk", Engine::bulk}, {"mma-order", Engine::mma_order}};

// The load instruction a hint makes, for describe().
std::string_view load_text(Hint h) {
  switch (h) {
    case Hint::none: return "ld.global";
    case Hint::nc: return "ld.global.nc";
    case Hint::no_allocate: return "ld.global.nc.L1::no_allocate";
    case Hint::evict_first: return "ld.global.nc.L1::no_allocate.L2::evict_first";
    case Hint::prefetch_256: return "ld.global.nc.L1::no_allocate.L2::256B";
  }
  return "?";
}

// What one lane of the mma and bulk engines reads of a row (kernels/gemv_mma.cuh, MmaPiece): 16 bytes, 8 for Q8_0,
// and four lanes' pieces make a unit (a group of the grouped formats).
int piece_bytes(Format f) { return f == Format::q8_0 ? 8 : 16; }

bool power_of_two_in(int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

}  // namespace

std::string_view to_string(Format f) { return families::name_of(kFormats, f); }
std::string_view to_string(Hint h) { return families::name_of(kHints, h); }
std::string_view to_string(Engine e) { return families::name_of(kEngines, e); }

namespace {

// A name of `names`, else an Error naming the text and the names known.
template <typename E, size_t N>
E named(const Named<E> (&names)[N], std::string_view s, std::string_view what) {
  std::vector<std::string_view> known;
  for (const auto& [name, e] : names) {
    if (name == s) return e;
    known.push_back(name);
  }
  throw Error(fmt::format("unknown {} '{}' (known: {})", what, s, fmt::join(known, ", ")));
}

}  // namespace

Engine parse_engine(std::string_view s) { return named(kEngines, s, "gemv engine"); }
Format parse_format(std::string_view s) { return named(kFormats, s, "weight format"); }
Hint parse_hint(std::string_view s) { return named(kHints, s, "cache hint"); }

int elems_per_chunk(Format f) {
  switch (f) {
    case Format::bf16: case Format::fp16: return 8;
    case Format::q8_0: case Format::fp8: return 16;
    case Format::int4_g32: case Format::int4_g128: return 32;
  }
  return 0;
}

int group_size(Format f) {
  return f == Format::q8_0 || f == Format::int4_g32 ? 32 : f == Format::int4_g128 ? 128 : 0;
}

Format native_format(DType d) {
  return d == DType::bf16 ? Format::bf16 : d == DType::fp16 ? Format::fp16 : Format::fp8;
}

bool is_native(Format f, DType d) { return f == native_format(d); }

std::string mma_infeasible(Format f, DType act) {
  if (f == Format::fp8 || is_native(f, act)) return "";
  if (f == Format::bf16 || f == Format::fp16)
    return fmt::format("the mma engine takes {} weights only with {} activations", to_string(f), to_string(f));
  if (f == Format::int4_g32)
    return "the mma engine does not take int4g32 weights: a group of 16 bytes is under the 64 bytes the four lanes "
           "of an mma row read, and each mma must sum within one group";
  if (act == DType::fp8_e4m3)
    return fmt::format("the mma engine takes {} weights only with 16-bit activations", to_string(f));
  return "";
}

std::string to_string(const Config& c) {
  std::string out =
      fmt::format("m={},w={},x={},engine={},threads={},cols={},ksplit={},unroll={},hint={},persistent={},pdl={}", c.m,
                  to_string(c.weights), tilewise::to_string(c.act), to_string(c.engine), c.threads, c.cols, c.ksplit,
                  c.unroll, to_string(c.hint), c.persistent ? 1 : 0, c.pdl ? 1 : 0);
  if (c.engine == Engine::bulk || c.stages != 0) out += fmt::format(",stages={}", c.stages);
  if (c.prefetch) out += ",prefetch=1";
  if (c.interleave) out += ",interleave=1";
  if (c.layout != Layout::TN) out += fmt::format(",layout={}", tilewise::to_string(c.layout));
  return out;
}

Config parse_config(std::string_view text) {
  families::FieldReader r("gemv", text);
  const Config d;
  Config c;
  c.m = r.integer("m");
  c.weights = r.choice("w", kFormats);
  c.act = r.parsed("x", parse_dtype);
  // Configurations written before these fields existed lack them: fma, 0, 0, 0, 0 and TN.
  c.engine = r.choice("engine", kEngines, d.engine);
  c.threads = r.integer("threads");
  c.cols = r.integer("cols");
  c.ksplit = r.integer("ksplit");
  c.unroll = r.integer("unroll");
  c.hint = r.choice("hint", kHints);
  c.persistent = r.flag("persistent");
  c.pdl = r.flag("pdl", d.pdl);
  c.stages = r.integer("stages", d.stages);
  c.prefetch = r.flag("prefetch", d.prefetch);
  c.interleave = r.flag("interleave", d.interleave);
  c.layout = r.parsed("layout", parse_layout, d.layout);
  r.finish();
  return c;
}

std::string describe(const Config& c) {
  const std::string_view x_layout = c.layout == Layout::NN ? " M-major" : "";
  if (c.engine == Engine::bulk)
    return fmt::format("gemv {} weights, {}{} x, M={}, bulk engine, {} consumer threads, {} units a warp, {} stages, "
                       "cp.async.bulk{}{}",
                       to_string(c.weights), tilewise::to_string(c.act), x_layout, c.m, c.threads, c.unroll, c.stages,
                       c.hint == Hint::evict_first ? ".L2::cache_hint evict_first" : "",
                       c.pdl ? ", programmatic dependent launch" : "");
  return fmt::format("gemv {} weights, {}{} x, M={}, {} engine, {} threads, {} cols/warp, K split {}{}, unroll {}{}, {}{}{}",
                     to_string(c.weights), tilewise::to_string(c.act), x_layout, c.m, to_string(c.engine), c.threads, c.cols,
                     c.ksplit, c.interleave ? " interleaved" : "", c.unroll, c.prefetch ? " a step ahead" : "",
                     load_text(c.hint), c.persistent ? ", persistent grid" : "",
                     c.pdl ? ", programmatic dependent launch" : "");
}

void to_json(nlohmann::json& j, const Config& c) {
  j = {{"family", "gemv"},      {"canonical", to_string(c)}, {"m", c.m},         {"weights", to_string(c.weights)},
       {"group", group_size(c.weights)}, {"act", tilewise::to_string(c.act)},
       {"layout", tilewise::to_string(c.layout)}, {"engine", to_string(c.engine)}, {"threads", c.threads},
       {"cols", c.cols},        {"ksplit", c.ksplit},       {"unroll", c.unroll}, {"hint", to_string(c.hint)},
       {"persistent", c.persistent}, {"pdl", c.pdl}, {"stages", c.stages}, {"prefetch", c.prefetch},
       {"interleave", c.interleave}};
}

void from_json(const nlohmann::json& j, Config& c) { c = parse_config(j.at("canonical").get<std::string>()); }

int cta_cols(const Config& c) { return c.threads / 32 / std::max(c.ksplit, 1) * c.cols; }

int block_threads(const Config& c) { return c.threads + (c.engine == Engine::bulk ? 32 : 0); }

int bulk_shared_bytes(const Config& c) {
  if (c.engine != Engine::bulk) return 0;
  const int unit = 4 * piece_bytes(c.weights);
  const int units = c.threads / 32 * c.unroll;
  const int row_stride = units * unit + unit, scale_row = group_size(c.weights) ? units * 2 : 0;
  const int stage = (16 * (row_stride + scale_row) + 127) / 128 * 128;
  return c.stages * stage + 2 * (c.threads / 32) * 16 * c.m * 4 + 2 * c.stages * 8;
}

int64_t dynamic_shared_bytes(const Config& c, int64_t K) {
  if (c.engine == Engine::mma_order) return int64_t(c.m) * K * 2 + int64_t(c.threads / 32) * 16 * c.m * 4;
  return bulk_shared_bytes(c);
}

int register_limit(int threads) { return threads < 1 ? 0 : std::min(255, 65536 / threads / 8 * 8); }

// The FMA engine's terms: fitted on what NVRTC 13.0 made of every M = 1..16, format, activation type, 256 and 512 threads (caps 255 and
// 128), cols 1..4 and unroll 1..8 without a K split (6912 kernels), then checked on samples of the feasible set near
// the cap over every thread count, hint and K split (3764 kernels; the last 1046 with this estimate, none spilled).
// The x term is what the first estimate missed: ptxas issues the loads of x (one 16-byte load a row per 8 weights)
// two 8-weight steps ahead of their FMAs, so at M = 16 x alone holds about 128 registers. A K split costs 16 more
// (the slice's bounds, the reduction's addresses). Of the spilling kernels seen, the one this estimate came closest
// to admitting is 6 registers over the limit, the rest 12 and more: spills near the cap are a few bytes each and
// come and go with the hint and the K split, so the margin is wide.
int register_estimate(const Config& c) {
  const int split = c.ksplit > 1 ? 16 : 0;           // a K slice's bounds and the reduction's addresses
  const int scaled = group_size(c.weights) != 0 ? 1 : 0;  // a group scale per row, and its partial sums
  if (c.engine == Engine::mma_order) {
    // Two sets of UNROLL 16-byte blocks and their groups' scales (two rows a group), the A fragment being decoded,
    // x's two 16-byte loads a block, accumulators and partial sums; indices and a margin. Against what ptxas (CUDA
    // 13.0, uncapped at 256 threads) made of M = 1, 4, 8, both formats, unroll 2, 4, 8, with and without the
    // persistent grid, at K split 2 and 4 (55-130 registers for int4 g128, 75-168 for g32): above every one, closest
    // at g32 unroll 2 persistent (106 of 108). Without a K split (128 threads at most, 255 registers a thread) g32
    // persistent runs 3-4 over it (95 for 92 at M = 8), which no thread count's cap turns into a spill.
    const int groups = c.unroll * 64 / group_size(c.weights);
    return 2 * (4 * c.unroll + groups) + 4 + 8 + 8 + split + 48;
  }
  if (c.engine != Engine::fma) {
    // Two rows' chunks a 16-column tile and x's matching 16-byte pieces (one to four a chunk, for each 8-token half)
    // in flight, the accumulators of each half and tile, the A fragment being decoded; row addresses, indices and a
    // margin.
    const int tiles = c.m > 8 ? 2 : 1, col_tiles = c.cols / 16;
    const int x_vecs = c.weights == Format::int4_g128 ? 4 : c.weights == Format::fp8 && c.act != DType::fp8_e4m3 ? 2 : 1;
    return c.unroll * (8 * col_tiles + 4 * x_vecs * tiles + 2 * scaled * col_tiles) +
           4 * tiles * (1 + scaled) * col_tiles + 8 * col_tiles + split + 56;
  }
  // kernels/gemv_nn.cuh: a 16-bit weight a row and 8 tokens of x a step in flight, 8 accumulators a row, its address;
  // a margin. Fitted on CUDA 13.0's ptxas at 512 threads (the 128-register cap): within 4 of what it allocated.
  if (c.layout == Layout::NN) return c.unroll * (c.cols + 4) + 12 * c.cols + split + 52;
  const int steps = elems_per_chunk(c.weights) / 8;            // 8-weight steps in one chunk: 1, 2 or 4
  const int x_regs = c.act == DType::fp8_e4m3 ? 2 : 4;          // registers of 8 raw activations
  const int loads = c.unroll * c.cols * (4 + scaled) * (c.prefetch ? 2 : 1);  // chunks in flight, their scales
  const int acc = c.m * c.cols * (1 + scaled);                  // accumulators, and per-chunk partial sums
  const int x = c.m * x_regs * std::min(steps, 2);              // rows of x loaded ahead of their FMAs
  return loads + acc + x + 8 * c.cols + split + 64;             // dequantized weights; indices, addresses, margin
}

namespace {

// The bulk engine's own rules (kernels/gemv_bulk.cuh): every consumer warp shares one 16-row tile, the grid is
// persistent, copies are whole units of 16-byte multiples, and the stages fit the SM's shared memory.
std::string bulk_infeasible(const Config& c, const Problem& p) {
  const int warps = c.threads / 32;
  if (c.ksplit != warps)
    return fmt::format("the bulk engine splits each tile's K over all its {} consumer warps: ksplit = {}, not {}", warps,
                       warps, c.ksplit);
  if (!c.persistent) return "the bulk engine runs a persistent grid: persistent = 1";
  if (c.stages < 2 || c.stages > 8) return fmt::format("stages = {} is not in 2..8", c.stages);
  // Eight units a warp at M > 8 built kernels the driver would not launch with 288 threads (it reported 256 at most,
  // though ptxas counted 174 registers), and no measured setting gained from more than four.
  if (c.unroll > 4) return fmt::format("unroll = {}: the bulk engine takes at most 4 units a warp a stage", c.unroll);
  if (c.hint != Hint::no_allocate && c.hint != Hint::evict_first)
    return fmt::format("the bulk engine's copies take hint na (no cache policy) or ef (evict_first), not {}", to_string(c.hint));
  const int piece_elems = elems_per_chunk(c.weights) * piece_bytes(c.weights) / 16;
  if (p.K % (4 * piece_elems) != 0)
    return fmt::format("K = {} is not a multiple of {}: the bulk engine copies whole units of four {}-weight pieces a row",
                       p.K, 4 * piece_elems, piece_elems);
  if (const int group = group_size(c.weights); group) {
    // A stage's scales of a row are one copy: a multiple of 16 bytes (8 fp16 scales), from a 16-byte boundary.
    if (p.K % (8 * group) != 0)
      return fmt::format("K = {} is not a multiple of {}: the bulk engine copies a row's {} scales 8 at a time (16 bytes)",
                         p.K, 8 * group, to_string(c.weights));
    if (warps * c.unroll % 8 != 0)
      return fmt::format("{} warps x unroll {} units make a stage, not a multiple of 8: its scales would not be whole "
                         "16-byte copies", warps, c.unroll);
  }
  if (bulk_shared_bytes(c) > kMaxSharedBytes)
    return fmt::format("{} stages take {} bytes of shared memory, over the SM's {}", c.stages, bulk_shared_bytes(c),
                       kMaxSharedBytes);
  return "";
}

// The mma-order engine's own rules (kernels/gemv_mma_order.cuh): int4 in the sm90 kernel's order, which needs N and
// K in whole 64 x 64 blocks; one 8-token B tile; a warp on 16 rows, a CTA on whole quarters of a block; each warp's
// slice of K whole groups; x staged whole in shared memory.
std::string mma_order_infeasible(const Config& c, const Problem& p) {
  if (c.weights != Format::int4_g128 && c.weights != Format::int4_g32)
    return fmt::format("the mma-order engine reads int4 weights (int4g128, int4g32), not {}", to_string(c.weights));
  if (c.act != DType::bf16 && c.act != DType::fp16)
    return fmt::format("the mma-order engine takes 16-bit activations, not {}", tilewise::to_string(c.act));
  if (p.layout != Layout::TN) return "the mma-order engine reads x K-major (TN)";
  if (p.M > 8) return fmt::format("the mma-order engine takes M = 1..8 (one 8-token tile), not {}", p.M);
  if (p.N % 64 != 0 || p.K % 64 != 0)
    return fmt::format("N = {} and K = {} must be multiples of 64: the tensor-core order stores 64 x 64 blocks", p.N, p.K);
  if (c.cols != 16) return fmt::format("the mma-order engine computes 16 rows a warp: cols = 16, not {}", c.cols);
  const int warps = c.threads / 32, quarters = c.ksplit > 0 ? warps / c.ksplit : 0;
  if (c.ksplit < 1 || warps % c.ksplit != 0 || (quarters != 1 && quarters != 2 && quarters != 4))
    return fmt::format("{} warps over ksplit = {} is not 1, 2 or 4 quarters of a 64-row block", warps, c.ksplit);
  if (const int per_group = std::max(group_size(c.weights) / 64, 1); c.unroll % per_group != 0)
    return fmt::format("unroll = {} blocks is not whole {}-weight groups", c.unroll, group_size(c.weights));
  if (c.prefetch || c.interleave)
    return "the mma-order engine has no prefetch or interleave (it always loads a step ahead)";
  if (const int64_t bytes = dynamic_shared_bytes(c, p.K); bytes > kMaxSharedBytes)
    return fmt::format("x of M = {} by K = {} and the sums take {} bytes of shared memory, over the SM's {}", p.M, p.K,
                       bytes, kMaxSharedBytes);
  return "";
}

}  // namespace

std::string infeasible(const Config& c, const Problem& p) {
  if (p.M < 1 || p.M > 16) return fmt::format("the gemv family takes M = 1..16, not {}", p.M);
  if (c.layout != p.layout)
    return fmt::format("the configuration reads x as layout {} does, the problem is {}", tilewise::to_string(c.layout),
                       tilewise::to_string(p.layout));
  if (c.m != p.M) return fmt::format("the configuration is built for M = {}, the problem has M = {}", c.m, p.M);
  if (c.act != p.dtype)
    return fmt::format("the configuration takes {} activations, the problem is {}", tilewise::to_string(c.act),
                       tilewise::to_string(p.dtype));
  const int per_chunk = elems_per_chunk(c.weights), group = group_size(c.weights);
  if (p.K % per_chunk != 0)
    return fmt::format("K = {} is not a multiple of {} ({} weights make one 16-byte chunk; the kernel streams whole chunks)",
                       p.K, per_chunk, to_string(c.weights));
  if (group && p.K % group != 0)
    return fmt::format("K = {} is not a multiple of the {} group of {} weights", p.K, to_string(c.weights), group);
  if (c.engine == Engine::mma_order) {
    if (std::string why = mma_order_infeasible(c, p); !why.empty()) return why;
  } else if (c.engine != Engine::fma) {
    if (std::string why = mma_infeasible(c.weights, c.act); !why.empty()) return why;
    if (c.engine == Engine::bulk && c.cols != 16)
      return fmt::format("the bulk engine computes 16 columns a warp (one m16 tile): cols = 16, not {}", c.cols);
    if (c.cols != 16 && c.cols != 32 && c.cols != 64)
      return fmt::format("the mma engine computes one, two or four m16 tiles a warp: cols = 16, 32 or 64, not {}", c.cols);
    if (c.prefetch && c.engine == Engine::bulk)
      return "prefetch = 1 is for the fma and mma engines; the bulk engine's producer warp streams ahead already";
    if (c.prefetch && c.weights != Format::int4_g128 && c.weights != Format::fp8)
      return fmt::format("prefetch = 1 on the mma engine streams the steps that need no tail checks, int4g128 and fp8 "
                         "weights, not {}", to_string(c.weights));
  } else if (!power_of_two_in(c.cols, 1, 8)) {
    return fmt::format("cols = {} is not 1, 2, 4 or 8", c.cols);
  } else if (p.layout == Layout::NN && !is_native(c.weights, p.dtype)) {
    return fmt::format("the fma engine takes M-major x (NN) with the problem's own 16-bit weights, not {}",
                       to_string(c.weights));
  } else if (p.layout == Layout::NN && c.prefetch) {
    return "prefetch = 1 is for K-major x; the fma engine's NN form loads one step at a time";
  }
  if (c.engine == Engine::bulk) {
    if (std::string why = bulk_infeasible(c, p); !why.empty()) return why;
  } else if (c.stages != 0) {
    return fmt::format("stages = {} is for the bulk engine; the {} engine has none (0)", c.stages, to_string(c.engine));
  }
  // K-major x is read 16 bytes at a time by the mma and bulk engines, else 8 elements (16 or 8 bytes) at a time.
  // M-major x (16-bit) 8 tokens of one k at a time.
  if (p.layout == Layout::TN) {
    const int x_align = c.engine != Engine::fma ? 16 / element_bytes(p.dtype) : 8;
    if (p.M > 1 && p.lda % x_align != 0)
      return fmt::format("lda = {} is not a multiple of {}: rows of x must start on {}-byte boundaries", p.lda, x_align,
                         x_align * element_bytes(p.dtype));
  } else if (p.dtype == DType::fp8_e4m3) {
    return "x M-major (NN) must be 16-bit: the gemv family reads fp8 x K-major only";
  } else if (p.lda % 8 != 0) {
    return fmt::format("lda = {} is not a multiple of 8: x's columns (NN) are read 8 tokens of one k at a time, on "
                       "16-byte boundaries", p.lda);
  }
  if (is_native(c.weights, p.dtype) && p.ldb * element_bytes(p.dtype) % 16 != 0)
    return fmt::format("ldb = {} is not a multiple of {}: rows of W must start on 16-byte boundaries", p.ldb,
                       16 / element_bytes(p.dtype));
  if (p.N > (int64_t(1) << 30) || p.K > (int64_t(1) << 30)) return "N and K must be under 2^30 (32-bit indices)";
  if (c.threads < 32 || block_threads(c) > 1024 || c.threads % 32 != 0 || (c.engine != Engine::bulk && c.threads < 64))
    return fmt::format("threads = {} is not a multiple of 32 in {}..{}", c.threads, c.engine == Engine::bulk ? 32 : 64,
                       c.engine == Engine::bulk ? 992 : 1024);
  if (!power_of_two_in(c.unroll, 1, 8)) return fmt::format("unroll = {} is not 1, 2, 4 or 8", c.unroll);
  // Any divisor, to time splits such as 3 and 5 warps: in turns (interleave) 5 warps are the 16-bit two-tile default
  // where 4-warp CTAs fit 4 an SM (docs/notes/2026-12-03-family-rules.md, "The decode GEMV's K split").
  if (c.ksplit < 1 || (c.threads / 32) % c.ksplit != 0)
    return fmt::format("ksplit = {} does not divide the CTA's {} warps", c.ksplit, c.threads / 32);
  if (c.interleave && c.engine != Engine::mma)
    return fmt::format("interleave = 1 is for the mma engine; the {} engine cuts K its own way", to_string(c.engine));
  if (c.interleave && c.ksplit == 1) return "interleave = 1 takes the steps of a K split in turns: it needs ksplit > 1";
  // The GPU tests run other splits on the mma engine and on the fma engine's K-major kernel only.
  if (!power_of_two_in(c.ksplit, 1, 32) && (c.engine == Engine::bulk || (c.engine == Engine::fma && c.layout == Layout::NN)))
    return fmt::format("ksplit = {} is not a power of two, which only the mma engine and the fma engine on K-major x "
                       "(TN) take", c.ksplit);
  // The fma and mma engines sum a CTA's K slices in a static shared array, a float a warp, column and token; a
  // kernel's static shared memory is 48 KB at most.
  if (const int partial_bytes = c.threads / 32 * c.cols * c.m * 4; c.engine != Engine::bulk && partial_bytes > 48 * 1024)
    return fmt::format("{} warps x {} columns x M = {} partial sums take {} bytes of static shared memory, over 48 KB",
                       c.threads / 32, c.cols, c.m, partial_bytes);
  const int regs = register_estimate(c);
  if (regs > register_limit(block_threads(c)))
    return fmt::format("about {} registers a thread would spill: {} threads a CTA leave {} a thread", regs,
                       block_threads(c), register_limit(block_threads(c)));
  return "";
}

void require_feasible(const Config& c, const Problem& p) {
  if (std::string why = infeasible(c, p); !why.empty())
    throw Unsupported(fmt::format("{}: gemv {}: {}", describe(p), to_string(c), why));
}

std::vector<Config> feasible_set(const Problem& p, Format weights) {
  std::vector<Config> out;
  Config c;
  c.m = int(p.M);
  c.weights = weights;
  c.act = p.dtype;
  c.layout = p.layout;
  for (Engine engine : {Engine::fma, Engine::mma, Engine::bulk}) {
    const bool bulk = engine == Engine::bulk;
    const bool streams_ahead = engine == Engine::fma ||
                               (engine == Engine::mma && (weights == Format::int4_g128 || weights == Format::fp8));
    for (int threads : {128, 160, 256, 512})
      for (int cols : engine == Engine::fma ? std::vector<int>{1, 2, 4} : bulk ? std::vector<int>{16} : std::vector<int>{16, 32, 64})
        for (int ksplit : bulk ? std::vector<int>{threads / 32} : std::vector<int>{1, 2, 4, 5, 8})
          for (int unroll : {1, 2, 4, 8})
            for (Hint hint : {Hint::none, Hint::nc, Hint::no_allocate, Hint::evict_first, Hint::prefetch_256})
              for (bool persistent : {false, true})
                for (bool pdl : {false, true})
                  for (int stages : bulk ? std::vector<int>{2, 3, 4, 6, 8} : std::vector<int>{0})
                    for (bool prefetch : streams_ahead ? std::vector<bool>{false, true} : std::vector<bool>{false})
                      for (bool interleave : engine == Engine::mma ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
                        c.engine = engine, c.threads = threads, c.cols = cols, c.ksplit = ksplit, c.unroll = unroll;
                        c.hint = hint, c.persistent = persistent, c.pdl = pdl, c.stages = stages, c.prefetch = prefetch;
                        c.interleave = interleave;
                        if (infeasible(c, p).empty()) out.push_back(c);
                      }
  }
  return out;
}

}  // namespace tilewise::gemv
