// The C ABI without a GPU's work: every bad argument comes back as TW_ERROR with a message naming it, never a crash
// or an exception into C. (The calls that run kernels are the Python package's GPU tests.)
#include "tilewise/tilewise.h"

#include <gtest/gtest.h>

#include <string>

namespace {

bool says(const char* text, const std::string& part) { return std::string(text).find(part) != std::string::npos; }

TEST(CApi, BadArgumentsAreErrorsThatNameThem) {
  EXPECT_EQ(tw_abi_version(), TW_ABI_VERSION);
  EXPECT_STREQ(tw_last_choice(), "");  // nothing ran on this thread
  tw_context* ctx = reinterpret_cast<tw_context*>(1);
  EXPECT_EQ(tw_context_create(-1, nullptr, &ctx), TW_ERROR);
  EXPECT_EQ(ctx, nullptr);
  EXPECT_STRNE(tw_last_error(), "");
  if (tw_context_create(0, nullptr, &ctx) == TW_OK) {
    tw_context_destroy(ctx);
  } else {  // no GPU here: said as the C++ API says it, not as a raw CUDA error with a source path
    EXPECT_TRUE(says(tw_last_error(), "no CUDA GPU is usable here")) << tw_last_error();
    EXPECT_FALSE(says(tw_last_error(), ".cpp")) << tw_last_error();
  }
  EXPECT_EQ(tw_context_create(0, nullptr, nullptr), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "somewhere to put the context")) << tw_last_error();
  tw_context_destroy(nullptr);  // nothing to do, no crash

  const tw_problem p{16, 16, 16, TW_BF16, TW_TN, 16, 16, 16};
  EXPECT_EQ(tw_gemm(nullptr, &p, nullptr, nullptr, nullptr, nullptr), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "no context (NULL)")) << tw_last_error();
  EXPECT_EQ(tw_linear(nullptr, TW_BF16, 1, 16, 16, nullptr, nullptr, nullptr, nullptr), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "no context (NULL)")) << tw_last_error();

  int64_t row_bytes = 0, scale_bytes = 0;
  EXPECT_EQ(tw_packed_shape(99, 64, 128, &row_bytes, &scale_bytes), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "unknown weight format code 99")) << tw_last_error();
  EXPECT_EQ(tw_packed_shape(TW_Q8_0, 64, 128, nullptr, &scale_bytes), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "somewhere to put its answer")) << tw_last_error();
  EXPECT_EQ(tw_packed_shape(TW_Q8_0, 64, 128, &row_bytes, &scale_bytes), TW_OK);
  EXPECT_STREQ(tw_last_error(), "");  // a call that succeeds clears the message
  EXPECT_GT(row_bytes, 0);
}

TEST(CApi, AWeightStrideNoBufferCouldHoldIsAnErrorNotACrash) {
  // It once went ahead and read past any buffer: (3 - 1) * 2^62 + 32 elements overflow 64 bits.
  const unsigned short w[32] = {};
  unsigned char q[64];
  unsigned short scales[4];
  EXPECT_EQ(tw_quantize_host(w, TW_BF16, int64_t(1) << 62, TW_Q8_0, 3, 32, q, scales), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "the weights' size overflows 64 bits")) << tw_last_error();
  EXPECT_EQ(tw_quantize_host(w, TW_BF16, 16, TW_Q8_0, 1, 32, q, scales), TW_ERROR);
  EXPECT_TRUE(says(tw_last_error(), "weight row stride 16 is under K = 32")) << tw_last_error();
}

}  // namespace
