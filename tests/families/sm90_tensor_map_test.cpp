// Tensor maps carry every stride and size of an operand, so the cache key of a map must change with each of them:
// a padded and a tight operand of the same M, N, K never share a map. The compiled module takes its strides from
// those maps (and ldc as an argument), so the module is keyed by what changes its code: padded and tight share it.
#include <gtest/gtest.h>

#include "families/sm90/config.hpp"
#include "families/sm90/gemm.hpp"
#include "families/sm90/tensor_map.hpp"
#include "jit/cache.hpp"

namespace tilewise::sm90 {
namespace {

TEST(Sm90TensorMapKey, ChangesWithEveryFieldThatChangesTheMap) {
  int buffer[2];
  const TensorMapSpec tight{&buffer[0], 2, false, 4096, 4096, 4096 * 2, 64, 128};
  std::vector<TensorMapSpec> variants(8, tight);
  variants[0].base = &buffer[1];
  variants[1].element_bytes = 1;
  variants[2].float16 = true;
  variants[3].inner = 4000;
  variants[4].rows = 4000;
  variants[5].row_bytes = (4096 + 16) * 2;  // the same operand, padded
  variants[6].box_inner = 32;
  variants[7].box_rows = 64;
  for (size_t i = 0; i < variants.size(); ++i)
    EXPECT_NE(tensor_map_key(variants[i]), tensor_map_key(tight)) << "field " << i;
  EXPECT_EQ(tensor_map_key(tight), tensor_map_key(TensorMapSpec(tight)));
}

TEST(Sm90TensorMapKey, PaddedAndTightShareTheModuleButNotTheMaps) {
  const Config c = parse_config("block_m=128,block_n=128,stages=4,consumers=2,store=tma");
  const Problem tight = make_problem("p", 1000, 3000, 1000, DType::bf16, Layout::TN);
  const Problem padded = make_problem("p", 1000, 3000, 1000, DType::bf16, Layout::TN, 8);
  ASSERT_NE(tight.lda, padded.lda);
  EXPECT_EQ(jit::cache_key(kernel_build(c, tight)), jit::cache_key(kernel_build(c, padded)));
  const TensorMapSpec a_tight{nullptr, 2, false, uint64_t(tight.K), uint64_t(tight.M), uint64_t(tight.lda) * 2, 64, 128};
  TensorMapSpec a_padded = a_tight;
  a_padded.row_bytes = uint64_t(padded.lda) * 2;
  EXPECT_NE(tensor_map_key(a_tight), tensor_map_key(a_padded));
}

}  // namespace
}  // namespace tilewise::sm90
