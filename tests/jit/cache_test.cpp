// The compile cache: one key helper over every input, entries that read back whole or are rebuilt, shared safely.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "jit/cache.hpp"

namespace tilewise::jit {
namespace {

KernelBuild stream_read() { return {"stream_read.cuh", "tilewise::kernels::stream_read", "test", "sm_90a", {}}; }

class CacheDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tilewise-cache-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    setenv("TILEWISE_CACHE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    unsetenv("TILEWISE_CACHE_DIR");
  }
  std::filesystem::path entry() const { return dir_ / (cache_key(stream_read()) + ".cubin"); }
  std::filesystem::path dir_;
};

TEST(CacheKey, ChangesWithEveryInput) {
  const KernelBuild base = stream_read();
  const std::string k = cache_key(base);
  EXPECT_EQ(k, cache_key(base));
  KernelBuild b = base;
  b.name_expression += " ";
  EXPECT_NE(cache_key(b), k);
  b = base, b.config_text = "other";
  EXPECT_NE(cache_key(b), k);
  b = base, b.arch = "sm_90";
  EXPECT_NE(cache_key(b), k);
  b = base, b.options = {"-DX=1"};
  EXPECT_NE(cache_key(b), k);
  b = base, b.kernel_file = "fill.cuh";
  EXPECT_NE(cache_key(b), k);
}

TEST_F(CacheDir, SecondBuildComesFromTheCacheWithTheSameCubin) {
  const Built first = build(stream_read());
  EXPECT_FALSE(first.from_cache);
  EXPECT_GT(first.usage.registers, 0);
  ASSERT_TRUE(std::filesystem::exists(entry()));
  const Built second = build(stream_read());
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.lowered_name, first.lowered_name);
  EXPECT_EQ(second.usage.registers, first.usage.registers);
}

TEST_F(CacheDir, CorruptOrTruncatedEntryIsRebuilt) {
  const Built first = build(stream_read());
  for (const std::string damage : {"flip", "truncate", "foreign"}) {
    SCOPED_TRACE(damage);
    std::string bytes;
    {
      std::ifstream in(entry(), std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    if (damage == "flip") bytes[bytes.size() - 100] ^= 0x5a;
    if (damage == "truncate") bytes.resize(bytes.size() / 2);
    if (damage == "foreign") bytes = "not a cache entry";
    std::ofstream(entry(), std::ios::binary | std::ios::trunc) << bytes;
    const Built again = build(stream_read());
    EXPECT_FALSE(again.from_cache);
    EXPECT_EQ(again.cubin, first.cubin);
    EXPECT_TRUE(build(stream_read()).from_cache) << "the rebuilt entry replaced the damaged one";
  }
}

TEST_F(CacheDir, ParallelBuildsOfTheSameKernelAgreeAndLeaveNoTemporaries) {
  const std::vector<Built> all = build_all(std::vector<KernelBuild>(6, stream_read()));
  for (const Built& b : all) EXPECT_EQ(b.cubin, all[0].cubin);
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_TRUE(e.path().extension() == ".cubin" || e.path().filename() == "key") << e.path();
}

TEST_F(CacheDir, ABatchIsBuiltOnceInOrderAndThenServedFromTheCache) {
  std::vector<KernelBuild> batch;
  for (int i = 0; i < 5; ++i) {
    batch.push_back(stream_read());
    batch.back().options = {fmt::format("-DTILEWISE_TEST_VARIANT={}", i)};  // distinct keys, same kernel
  }
  const std::vector<Built> first = build_all(batch);
  ASSERT_EQ(first.size(), batch.size());
  for (const Built& b : first) {
    EXPECT_FALSE(b.from_cache);
    EXPECT_GT(b.usage.registers, 0);
  }
  const std::vector<Built> second = build_all(batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_TRUE(second[i].from_cache);
    EXPECT_EQ(second[i].cubin, first[i].cubin);
    EXPECT_TRUE(std::filesystem::exists(dir_ / (cache_key(batch[i]) + ".cubin")));
  }
}

TEST_F(CacheDir, CompileErrorNamesTheConfiguration) {
  KernelBuild bad = stream_read();
  bad.name_expression = "tilewise::kernels::no_such_kernel";
  bad.config_text = "block_m=999";
  try {
    build_all({stream_read(), bad});
    FAIL() << "a bad build succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("block_m=999"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(build(stream_read()).from_cache) << "the good build of the batch was kept";
}

TEST(PtxasUsage, ReadsRegistersSpillsAndSharedMemory) {
  const ResourceUsage u = parse_ptxas_usage(
      "ptxas info    : Function properties for k\n    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads\n"
      "ptxas info    : Used 168 registers, used 16 barriers, 64 bytes smem\n");
  EXPECT_EQ(u.registers, 168);
  EXPECT_EQ(u.stack_frame_bytes, 8);
  EXPECT_EQ(u.spill_store_bytes, 4);
  EXPECT_EQ(u.spill_load_bytes, 12);
  EXPECT_EQ(u.shared_bytes, 64);
  EXPECT_TRUE(u.spills());
  EXPECT_FALSE(u.wgmma_serialized);
  EXPECT_FALSE(parse_ptxas_usage("Used 40 registers, 0 bytes stack frame").spills());
}

// ptxas's C7512: the wgmma of a kernel held back to one at a time (seen at two CTAs an SM, 128 registers a thread).
TEST(PtxasUsage, ReadsThatPtxasSerializedTheWgmma) {
  const ResourceUsage u = parse_ptxas_usage(
      "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient register resources for the function 'k'\nptxas info    : Used 128 registers, used 16 barriers\n");
  EXPECT_TRUE(u.wgmma_serialized);
  EXPECT_EQ(u.registers, 128);
  EXPECT_FALSE(u.spills());
}

TEST(PtxasUsage, TheCompileCheckNamesEveryFaultAKernelHas) {
  EXPECT_EQ(parse_ptxas_usage("ptxas info    : Used 168 registers, used 1 barriers\n").faults(), "");
  EXPECT_EQ(parse_ptxas_usage("ptxas info    : Function properties for k\n").faults(), "NO PTXAS REPORT");
  const ResourceUsage both = parse_ptxas_usage(
      "ptxas info    : (C7512) Potential Performance Loss: wgmma.mma_async instructions are serialized due to "
      "insufficient register resources for the function 'k'\n"
      "    8 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 16 barriers\n");
  EXPECT_EQ(both.faults(), "SPILLS OR LOCAL MEMORY, SERIALIZED WGMMA");
}

}  // namespace
}  // namespace tilewise::jit
