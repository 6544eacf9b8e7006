#pragma once
// A cuBLASLt configuration as a value: the algorithm and every knob cuBLASLt exposes for it. It serializes to a
// short canonical string and to JSON, parses back, and compares equal.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace tilewise::cublaslt {

struct Config {
  int32_t algo_id = 0;
  uint32_t tile = 0;       // cublasLtMatmulTile_t
  uint32_t stages = 0;     // cublasLtMatmulStages_t
  uint32_t splitk = 1;     // K splits
  uint32_t reduction = 0;  // cublasLtReductionScheme_t
  uint32_t swizzle = 0;    // CTA swizzling
  uint32_t custom = 0;     // algorithm-specific custom option
  uint16_t inner_shape = 0;
  uint16_t cluster = 0;    // cublasLtClusterShape_t
  bool operator==(const Config&) const = default;
};

// "algo=66,tile=28,stages=18,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=2"
std::string to_string(const Config& c);
Config parse_config(std::string_view text);  // throws Error naming the bad field
// "algo 66 tile 128x256 stages 64x4 split-K 1 reduction none swizzle 0 custom 0 cluster 1x2x1"
std::string describe(const Config& c);

// Names from the linked cublasLt.h: kind is "MATMUL_TILE", "MATMUL_STAGES" or "CLUSTER_SHAPE".
std::string enum_name(std::string_view kind, uint32_t id);
std::string reduction_name(uint32_t scheme);

void to_json(nlohmann::json& j, const Config& c);
void from_json(const nlohmann::json& j, Config& c);

}  // namespace tilewise::cublaslt
