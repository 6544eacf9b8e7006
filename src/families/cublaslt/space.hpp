#pragma once
// What cuBLASLt says each of its algorithms can be configured to for one problem's types: the capability attributes
// read from an algorithm initialized by id (AlgoGetIds, AlgoInit, AlgoCapGetAttribute). Plain values, so the tuner's
// space (families/cublaslt/tuning.hpp) is built and tested from them without a GPU. Cluster shapes have no capability
// attribute; every algorithm lists the same candidates and AlgoCheck decides.
#include <cstdint>
#include <vector>

#include "families/cublaslt/matmul.hpp"

namespace tilewise::cublaslt {

struct AlgoCaps {
  int32_t algo_id = 0;
  std::vector<uint32_t> tiles;   // TILE_IDS; {0} (undefined) when the algorithm has no tile to choose
  std::vector<uint32_t> stages;  // STAGES_IDS; {0} likewise
  bool splitk = false;           // SPLITK_SUPPORT
  uint32_t reduction_mask = 0;   // REDUCTION_SCHEME_MASK: bits of cublasLtReductionScheme_t
  bool swizzle = false;          // CTA_SWIZZLING_SUPPORT: swizzle 1 besides 0
  int32_t custom_max = 0;        // CUSTOM_OPTION_MAX: custom options 0..custom_max
  bool operator==(const AlgoCaps&) const = default;
};

// Every algorithm cuBLASLt has for the problem's types, with its capabilities. An id AlgoInit refuses is left out.
std::vector<AlgoCaps> capabilities(const Matmul& m);

// The descriptor for `c`: the heuristic's own when `offered` (its candidates) holds the configuration, else built
// attribute by attribute (Matmul::configured). The heuristic's descriptor is opaque and may carry more than the
// attributes name, so the tuner's warm start and a database entry equal to a heuristic candidate run exactly the
// kernel cublaslt-default runs.
Candidate resolve(const Matmul& m, const Config& c, const std::vector<Candidate>& offered);
// The heuristic's candidates, or none when it declines the problem.
std::vector<Candidate> offered(const Matmul& m);

}  // namespace tilewise::cublaslt
