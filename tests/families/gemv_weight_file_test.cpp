// `tilewise quantize`'s files: a raw weight file into a packed one and back, and clear errors for bad input. Runs the
// CPU reference (--cpu), so no GPU is needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "expect_error.hpp"
#include "families/gemv/weight_file.hpp"

namespace tilewise::gemv {
namespace {

using testkit::Contains;
using testkit::error_of;

class GemvWeightFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("tw-gemv-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const char* name) const { return (dir_ / name).string(); }
  void write(const std::string& p, const std::vector<uint16_t>& v) const {
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(v.data()), std::streamsize(v.size() * 2));
  }
  std::filesystem::path dir_;
};

TEST_F(GemvWeightFile, QuantizeThenDequantizeGivesTheDequantizedWeights) {
  std::vector<uint16_t> raw(4 * 64);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = float_to_bf16_bits(float(int(i % 29) - 14) / 8.0f);
  write(path("w.bin"), raw);
  for (Format f : {Format::q8_0, Format::int4_g32, Format::fp8, Format::fp16}) {
    SCOPED_TRACE(std::string(to_string(f)));
    QuantizeRequest r{path("w.bin"), path("w.tww"), DType::bf16, 4, 64, f, true};
    EXPECT_TRUE(Contains(quantize_file(r), "on the CPU"));
    const HostPacked back = read_packed(path("w.tww"));
    const HostPacked direct = quantize_cpu(raw.data(), DType::bf16, 4, 64, 64, f);
    EXPECT_EQ(back.layout, direct.layout);
    EXPECT_EQ(back.q, direct.q);
    EXPECT_EQ(back.scales, direct.scales);
    dequantize_file(path("w.tww"), path("w.f32"), "f32");
    std::ifstream in(path("w.f32"), std::ios::binary);
    std::vector<float> got(4 * 64);
    in.read(reinterpret_cast<char*>(got.data()), std::streamsize(got.size() * 4));
    EXPECT_EQ(in.gcount(), std::streamsize(got.size() * 4));
    EXPECT_EQ(got, dequantize_cpu(direct));
  }
}

TEST_F(GemvWeightFile, BadInputIsAnErrorNamingTheFile) {
  write(path("short.bin"), std::vector<uint16_t>(10));
  QuantizeRequest r{path("short.bin"), path("o.tww"), DType::bf16, 4, 64, Format::q8_0, true};
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "holds 20 bytes; 4 x 64 bf16 weights take 512"));
  r.cols = 48;
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "group of 32"));
  r.dtype = DType::fp8_e4m3;
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "bf16 or fp16"));
  r = QuantizeRequest{path("missing.bin"), path("o.tww"), DType::bf16, 4, 64, Format::q8_0, true};
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "missing.bin: cannot open"));
  write(path("raw.tww"), std::vector<uint16_t>(64));
  EXPECT_TRUE(Contains(error_of([&] { read_packed(path("raw.tww")); }), "not a packed weight file"));
  // A packed file cut short.
  write(path("w.bin"), std::vector<uint16_t>(4 * 64, 0x3F80));
  quantize_file(QuantizeRequest{path("w.bin"), path("w.tww"), DType::bf16, 4, 64, Format::q8_0, true});
  std::filesystem::resize_file(path("w.tww"), std::filesystem::file_size(path("w.tww")) - 3);
  EXPECT_TRUE(Contains(error_of([&] { read_packed(path("w.tww")); }), "its header says"));
  EXPECT_TRUE(Contains(error_of([&] { dequantize_file(path("w.tww"), path("o"), "f64"); }), "f32, bf16 or fp16"));
}

}  // namespace
}  // namespace tilewise::gemv
