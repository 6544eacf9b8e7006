#pragma once
// Which configurations the sm90 kernel can run for a problem. The feasible set is also the tuner's search space:
// nothing outside it may build, and everything inside it must build and be correct.
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/problem.hpp"
#include "families/sm90/config.hpp"

namespace tilewise::sm90 {

struct Limits {
  int shared_bytes_per_block = 232448;  // 227 KB opt-in on sm_90
  int sm_count = 132;
};

// Why `c` cannot run `p`, or nothing when it can.
std::optional<std::string> infeasible(const Config& c, const Problem& p, const Limits& limits = {});
// Why `c` cannot run on a problem's own operands (tilewise::gemm, the database, the arm `sm90:<config>`): packed
// weights need their packed copy and scales, which only the packed arms pass; nothing otherwise.
std::optional<std::string> needs_packed_operands(const Config& c);
// Throws Unsupported naming the operand when the problem itself cannot be loaded by TMA (a stride or size that is
// not a multiple of 16 bytes); nothing in the family runs it.
void require_tma_expressible(const Problem& p);

// `c` with the deepest ring of ring_depths(), at most `most` stages, at which it is feasible for `p`; nothing where
// none is.
std::optional<Config> with_deepest_ring(Config c, const Problem& p, int most, const Limits& limits = {});

// Every feasible configuration, in a fixed order.
std::vector<Config> feasible_set(const Problem& p, const Limits& limits = {});

// What the kernel's shared memory and registers come to for a configuration.
// The ring depths the feasible set holds (the tuner's space), ascending.
std::span<const int> ring_depths();
int shared_bytes(const Config& c);
int accumulator_registers(const Config& c);
int max_accumulators(int consumers);  // per consumer thread, leaving room for addresses and the epilogue
int rows_per_consumer(const Config& c);
int block_k(DType d);  // elements per k-tile: one 128-byte swizzle row
int64_t k_tiles(const Problem& p);
int64_t tile_count(const Problem& p, int block_m, int block_n);  // output tiles of block_m x block_n
// The problem as the kernel sees it: with swapped operands, M and N, A and B, lda and ldb trade places.
Problem kernel_view(const Problem& p, bool swap);
Problem kernel_view(const Problem& p, const Config& c);  // kernel_view(p, c.swap)

}  // namespace tilewise::sm90
