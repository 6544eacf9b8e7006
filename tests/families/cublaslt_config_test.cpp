// CPU-only: Config is a value type; nothing here creates a cuBLASLt handle or touches a GPU. cublasLt.h is included
// only for its enumerators, so the expected names come from the header the tool is built against.
#include "families/cublaslt/config.hpp"

#include <cublasLt.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/error.hpp"
#include "expect_error.hpp"

namespace tilewise::cublaslt {
namespace {

using tilewise::testkit::Contains;
using tilewise::testkit::error_of;

// algo 66, tile 128x256, stages 64x4, cluster 1x2x1, every other knob away from its default.
Config known() {
  Config c;
  c.algo_id = 66;
  c.tile = CUBLASLT_MATMUL_TILE_128x256;
  c.stages = CUBLASLT_MATMUL_STAGES_64x4;
  c.splitk = 4;
  c.reduction = CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE;
  c.swizzle = 1;
  c.custom = 3;
  c.inner_shape = 7;
  c.cluster = CUBLASLT_CLUSTER_SHAPE_1x2x1;
  return c;
}

TEST(CublasltConfig, CanonicalStringIsExact) {
  // Ids from cublasLt.h: CUBLASLT_MATMUL_TILE_128x256 = 23, CUBLASLT_MATMUL_STAGES_64x4 = 16,
  // CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE = 4, CUBLASLT_CLUSTER_SHAPE_1x2x1 = 5.
  EXPECT_EQ(to_string(known()), "algo=66,tile=23,stages=16,splitk=4,reduction=4,swizzle=1,custom=3,inner=7,cluster=5");
  EXPECT_EQ(to_string(Config{}), "algo=0,tile=0,stages=0,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=0");
}

TEST(CublasltConfig, StringRoundTrips) {
  EXPECT_EQ(parse_config(to_string(known())), known());
  EXPECT_EQ(parse_config(to_string(Config{})), Config{});
  Config extremes;
  extremes.algo_id = -1;
  extremes.tile = 4294967295u;
  extremes.inner_shape = 65535;
  extremes.cluster = 65535;
  EXPECT_EQ(parse_config(to_string(extremes)), extremes);
}

TEST(CublasltConfig, ParseTakesFieldsInAnyOrderWithDefaults) {
  Config want;
  want.algo_id = 21;
  want.cluster = 5;
  EXPECT_EQ(parse_config("cluster=5,algo=21"), want);
  EXPECT_EQ(parse_config("algo=21").splitk, 1u);
}

TEST(CublasltConfig, UnknownKeyIsNamed) {
  const std::string msg = error_of([] { parse_config("algo=66,tiles=23"); });
  EXPECT_TRUE(Contains(msg, "algo=66,tiles=23"));
  EXPECT_TRUE(Contains(msg, "unknown field 'tiles'"));
}

TEST(CublasltConfig, DuplicateKeyIsNamed) {
  const std::string msg = error_of([] { parse_config("algo=66,tile=23,tile=24"); });
  EXPECT_TRUE(Contains(msg, "cublaslt config 'algo=66,tile=23,tile=24': tile is given twice"));
}

TEST(CublasltConfig, MissingAlgoIsRefused) {
  EXPECT_TRUE(Contains(error_of([] { parse_config("tile=23,stages=16"); }), "cublaslt config 'tile=23,stages=16': algo is required"));
  EXPECT_TRUE(Contains(error_of([] { parse_config(""); }), "algo is required"));
}

TEST(CublasltConfig, NonNumericValueIsNamed) {
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=x"); }), "algo=x is not an integer"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,stages=16x"); }), "stages=16x is not an integer"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,swizzle="); }), "swizzle= is not an integer"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo= 66"); }), "algo= 66 is not an integer"));
}

TEST(CublasltConfig, OutOfRangeValueIsNamed) {
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,inner=65536"); }), "inner=65536 is not an integer in 0..65535"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,cluster=-1"); }), "cluster=-1 is not an integer in 0..65535"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,tile=4294967296"); }), "tile=4294967296 is not an integer in 0..4294967295"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,splitk=-2"); }), "splitk=-2 is not an integer in 0..4294967295"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=2147483648"); }), "algo=2147483648 is not a 32-bit integer"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=99999999999999999999"); }), "algo=99999999999999999999 is not a 32-bit integer"));
}

TEST(CublasltConfig, ItemWithoutEqualsIsNamed) {
  const std::string msg = error_of([] { parse_config("algo=66,tile"); });
  EXPECT_TRUE(Contains(msg, "'tile' is not key=value"));
}

TEST(CublasltConfig, EmptyFieldIsRefused) {
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,"); }), "an empty field"));
  EXPECT_TRUE(Contains(error_of([] { parse_config("algo=66,,tile=3"); }), "an empty field"));
}

TEST(CublasltConfig, JsonRoundTripsThroughCanonical) {
  const nlohmann::json j = known();
  EXPECT_EQ(j.at("family"), "cublaslt");
  EXPECT_EQ(j.at("canonical"), to_string(known()));
  EXPECT_EQ(j.at("algo_id"), 66);
  EXPECT_EQ(j.at("tile_id"), 23);
  EXPECT_EQ(j.at("tile"), "128x256");
  EXPECT_EQ(j.at("stages"), "64x4");
  EXPECT_EQ(j.at("reduction"), "output-type");
  EXPECT_EQ(j.at("cluster"), "1x2x1");
  EXPECT_EQ(j.get<Config>(), known());
  EXPECT_EQ(nlohmann::json::parse(j.dump()).get<Config>(), known());
}

TEST(CublasltConfig, EnumNamesComeFromTheHeader) {
  EXPECT_EQ(enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_128x256), "128x256");
  EXPECT_EQ(enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_64x64), "64x64");
  EXPECT_EQ(enum_name("MATMUL_TILE", CUBLASLT_MATMUL_TILE_UNDEFINED), "UNDEFINED");
  EXPECT_EQ(enum_name("MATMUL_STAGES", CUBLASLT_MATMUL_STAGES_64x4), "64x4");
  EXPECT_EQ(enum_name("CLUSTER_SHAPE", CUBLASLT_CLUSTER_SHAPE_1x2x1), "1x2x1");
  EXPECT_EQ(enum_name("CLUSTER_SHAPE", CUBLASLT_CLUSTER_SHAPE_2x1x1), "2x1x1");
  // The same number names different things in different enumerations.
  EXPECT_NE(enum_name("CLUSTER_SHAPE", CUBLASLT_MATMUL_TILE_128x256), "128x256");
}

TEST(CublasltConfig, UnknownEnumIdsShowTheNumber) {
  EXPECT_EQ(enum_name("MATMUL_TILE", 99999), "#99999");
  EXPECT_EQ(enum_name("NO_SUCH_KIND", CUBLASLT_MATMUL_TILE_128x256), "#23");
}

TEST(CublasltConfig, ReductionNames) {
  EXPECT_EQ(reduction_name(CUBLASLT_REDUCTION_SCHEME_NONE), "none");
  EXPECT_EQ(reduction_name(CUBLASLT_REDUCTION_SCHEME_INPLACE), "inplace");
  EXPECT_EQ(reduction_name(CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE), "compute-type");
  EXPECT_EQ(reduction_name(CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE), "output-type");
  EXPECT_EQ(reduction_name(3), "#3");
}

TEST(CublasltConfig, DescribeNamesTileStagesAndCluster) {
  const std::string d = describe(known());
  EXPECT_TRUE(Contains(d, "algo 66"));
  EXPECT_TRUE(Contains(d, "tile 128x256"));
  EXPECT_TRUE(Contains(d, "stages 64x4"));
  EXPECT_TRUE(Contains(d, "split-K 4"));
  EXPECT_TRUE(Contains(d, "reduction output-type"));
  EXPECT_TRUE(Contains(d, "cluster 1x2x1"));
}

}  // namespace
}  // namespace tilewise::cublaslt
