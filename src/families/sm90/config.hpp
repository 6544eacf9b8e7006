#pragma once
// One configuration of the sm90 GEMM kernel (kernels/sm90_gemm.cuh) as a value: every compile-time parameter the
// problem does not fix. The input type and A's layout come from the problem. Serializes to a short canonical string
// and to JSON, parses back, and compares equal.
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "kernels/sm90/codes.h"

namespace tilewise::sm90 {

enum class Raster { m, n };          // which dimension consecutive tiles walk along, inside a group
// Epilogue: the output tile staged in shared memory and stored by TMA; the same through a ring of two 64-column
// atoms per consumer (less shared memory, more barriers); stored straight from registers; or staged in shared memory
// and copied out by the consumer threads in 16-byte pieces (any width, where TMA takes whole 64-column atoms).
// Valued as the kernel's codes (kernels/sm90/codes.h).
enum class Store : int {
  tma = kernels::sm90::epilogue_tma,
  tma_ring = kernels::sm90::epilogue_tma_ring,
  direct = kernels::sm90::epilogue_direct,
  staged = kernels::sm90::epilogue_staged,
};
// The stores TMA writes: they need the output's tensor map, whole 64-column atoms and a 16-byte-aligned ldc.
inline bool stores_by_tma(Store s) { return s == Store::tma || s == Store::tma_ring; }
// What wgmma's 64-row side reads: the kernel's B as the problem stores it, or packed weights in the kernel's own
// order (kernels/sm90/packed.h), dequantized into registers: int4 with an fp16 scale per 128 or 32 along K, Q8_0's
// signed bytes with an fp16 scale per 32, or e4m3 with an fp32 scale per row. Valued as the kernel's codes.
enum class Weights : int {
  as_input = kernels::sm90::weights_as_input,
  int4_g128 = kernels::sm90::weights_int4_g128,
  int4_g32 = kernels::sm90::weights_int4_g32,
  q8_0 = kernels::sm90::weights_q8_0,
  fp8 = kernels::sm90::weights_fp8,
};
int weight_group(Weights w);            // the scale group along K of a packed format (0 for as_input and fp8)
std::string_view to_string(Weights w);  // "as_input", "int4g128", "int4g32", "q8_0", "fp8"
// cooperative: the consumers split each tile's rows; pingpong: each consumer takes whole tiles in turn, so one
// multiplies while the other runs its epilogue.
enum class Schedule { cooperative, pingpong };

struct Config {
  int block_m = 256;    // tile columns along the problem's M: the wgmma width
  int block_n = 128;    // tile rows along the problem's N (cooperative: split over the consumers, 64 or 128 each)
  int stages = 4;       // shared-memory ring depth
  int consumers = 2;    // consumer warpgroups beside the producer: 1, 2 or 3 (cooperative)
  Raster raster = Raster::m;
  int group = 8;        // tile rows (raster m) or columns (raster n) per raster group
  Store store = Store::direct;
  Schedule schedule = Schedule::cooperative;
  // CTAs per cluster along M and along N (1x1, 2x1 or 1x2): the pair shares one operand tile through TMA multicast
  // (neighbours along M share the B tile, neighbours along N the A tile).
  int cluster_m = 1, cluster_n = 1;
  // Stream-K: 1 keeps every tile whole; S > 1 cuts the tiles of a last, partial wave (all of them when there is
  // less than one wave: split-K) along K over the grid, at most S pieces each (cooperative, cluster 1x1 only).
  int split = 1;
  // The operands swapped (TN, direct or staged store): A feeds wgmma's 64-row side and B its width, so a problem with few
  // columns (N = 16) takes a narrow wgmma over N; block_m then tiles N and block_n tiles M. Printed only when set.
  bool swap = false;
  // Launched as a programmatic dependent (kernels/pdl.h): its launch, setup and first loads overlap the tail of the
  // kernel before it in the stream. Printed only when set, so every configuration string written before it reads
  // back unchanged.
  bool pdl = false;
  // Packed weights (the mixed-input kernel): B, or A with swapped operands, is int4 in the kernel's order, passed
  // with its scales (Gemm::run). Printed only when set.
  Weights weights = Weights::as_input;
  bool operator==(const Config&) const = default;
};

// "block_m=256,block_n=128,stages=4,consumers=2,raster=m,group=8,store=direct,schedule=cooperative,cluster=1x1,split=1"
// (",swap=1", ",pdl=1" and ",weights=int4g128" after it when set), which parse_config reads back
// (fields in any order, each at most once; missing fields keep their defaults).
std::string to_string(const Config& c);
Config parse_config(std::string_view text);  // throws Error naming the bad field
std::string describe(const Config& c);       // "256x128 tile, 4 stages, 2 consumers, raster m/8, direct store"

void to_json(nlohmann::json& j, const Config& c);
void from_json(const nlohmann::json& j, Config& c);

}  // namespace tilewise::sm90
