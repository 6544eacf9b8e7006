// `tilewise quantize`'s files: a raw weight file into a packed one and back, and clear errors for bad input. Runs the
// CPU reference (--cpu), so no GPU is needed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

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
    QuantizeRequest r{path("w.bin"), path("w.tww"), DType::bf16, 4, 64, f, true, true};
    const FileSummary summary = quantize_file(r);
    EXPECT_TRUE(Contains(summary.text, "on the CPU"));
    EXPECT_TRUE(summary.faithful);
    const HostPacked back = read_packed(path("w.tww"));
    const HostPacked direct = quantize_cpu(raw.data(), DType::bf16, 4, 64, 64, f);
    EXPECT_EQ(back.layout, direct.layout);
    EXPECT_EQ(back.q, direct.q);
    EXPECT_EQ(back.scales, direct.scales);
    EXPECT_TRUE(dequantize_file(path("w.tww"), path("w.f32"), "f32", true).faithful);
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
  quantize_file(QuantizeRequest{path("w.bin"), path("w.tww"), DType::bf16, 4, 64, Format::q8_0, true, true});
  std::filesystem::resize_file(path("w.tww"), std::filesystem::file_size(path("w.tww")) - 3);
  EXPECT_TRUE(Contains(error_of([&] { read_packed(path("w.tww")); }), "its header says"));
  EXPECT_TRUE(Contains(error_of([&] { dequantize_file(path("w.tww"), path("o"), "f64"); }), "f32, bf16 or fp16"));
}

// --cols 2^62 once made rows x cols x 2 wrap to a negative size (a segfault for larger shapes).
TEST_F(GemvWeightFile, ShapesWhoseSizeOverflowsAreRefused) {
  write(path("w.bin"), std::vector<uint16_t>(64));
  QuantizeRequest r{path("w.bin"), path("o.tww"), DType::bf16, 1, int64_t(1) << 62, Format::q8_0, true};
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "overflows 64 bits"));
  r.rows = int64_t(1) << 40, r.cols = int64_t(1) << 30;
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "overflows 64 bits"));
  EXPECT_FALSE(std::filesystem::exists(path("o.tww")));
}

std::string packed(const std::string& head, size_t body_bytes = 0) {
  return "TWGEMV1\n" + head + "\n" + std::string(body_bytes, '\0');
}

// A 116-byte file whose header says 2^32 rows of 2^31 bf16 weights: n x row_bytes wraps to 0, which matched its empty
// body, and --dequantize then wrote 2^63 floats.
TEST_F(GemvWeightFile, ForgedHeadersAreRefused) {
  const std::string wraps = packed(
      R"({"format":"bf16","k":2147483648,"n":4294967296,"row_bytes":4294967296,"scale_bytes": 0,"scale_type":"none"})");
  EXPECT_EQ(wraps.size(), 116u);
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(wraps, "w.tww"); }), "w.tww: bad header"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(wraps, "w.tww"); }), "overflows 64 bits"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(packed(R"({"format":"bf16","k":1e300,"n":1})"), "w.tww"); }),
                       "w.tww: bad header: line 2: the number 1e+300 at k is out of range"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(packed(R"({"format":"bf16","k":8.5,"n":1})"), "w.tww"); }),
                       "'k' is missing or not an integer"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(packed(R"({"format":"bf16","k":8,"n":-1})"), "w.tww"); }),
                       "must be positive"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(packed(R"([1, 2])"), "w.tww"); }), "no format named"));
  // 2^64 - 1 read as an int64_t was -1: "weights of -1 x 256".
  EXPECT_TRUE(Contains(
      error_of([&] { parse_packed(packed(R"({"format":"bf16","k":8,"n":18446744073709551615})"), "w.tww"); }),
      "w.tww: bad header: 'n' = 18446744073709551615 is past 2^63"));
  EXPECT_TRUE(Contains(error_of([&] { parse_packed(packed(R"({"format":"bf16","k":8,"k":16,"n":1})"), "w.tww"); }),
                       "w.tww: bad header: line 2: the key \"k\" appears twice"));
  EXPECT_TRUE(Contains(
      error_of([&] { parse_packed(packed(R"({"format":"bf16","k":8,"n":1,"row_bytes":16,"scale_bytes":0})", 15), "w"); }),
      "holds 15 bytes of weights and scales; its header says 16"));
  const HostPacked ok =
      parse_packed(packed(R"({"format":"bf16","k":8,"n":1,"row_bytes":16,"scale_bytes":0})", 16), "w.tww");
  EXPECT_EQ(ok.q.size(), 16u);
}

// NaN came back as 0 (Q8_0, int4), an Inf spoilt its group, a finite 3e38 overflowed the fp16 scale: all silently.
// Then the summary counted them but the file was written anyway, and its dequantize exited 0 with the NaN as 0.0;
// the Python API refuses the same weights, so nothing is written now.
TEST_F(GemvWeightFile, WeightsThatDoNotComeBackAreCountedInTheSummary) {
  std::vector<uint16_t> raw(2 * 64, float_to_bf16_bits(0.5f));
  raw[3] = 0x7FC0;                         // NaN
  raw[70] = 0x7F80;                        // +Inf, row 1, column 6
  raw[100] = float_to_bf16_bits(3e38f);    // finite, but its group's scale is past fp16
  write(path("w.bin"), raw);
  const FileSummary q8 = quantize_file({path("w.bin"), path("q8.tww"), DType::bf16, 2, 64, Format::q8_0, true});
  EXPECT_FALSE(q8.faithful);
  EXPECT_TRUE(Contains(q8.text, "NOT FAITHFUL: 2 weights not finite (NaN or Inf), 1 groups whose fp16 scale is past "
                                "the range of q8_0 (first at row 0, column 3)"));
  EXPECT_TRUE(Contains(q8.text, "q8.tww: not written")) << q8.text;
  EXPECT_FALSE(std::filesystem::exists(path("q8.tww")));
  const FileSummary fp16 = quantize_file({path("w.bin"), path("h.tww"), DType::bf16, 2, 64, Format::fp16, true});
  EXPECT_TRUE(Contains(fp16.text, "2 weights not finite (NaN or Inf), 1 weights past the range of fp16"));
  EXPECT_FALSE(std::filesystem::exists(path("h.tww")));
  // An existing output stays as it was, even with --overwrite.
  std::ofstream(path("kept.tww")) << "mine";
  EXPECT_FALSE(quantize_file({path("w.bin"), path("kept.tww"), DType::bf16, 2, 64, Format::q8_0, true, true}).faithful);
  std::ifstream kept(path("kept.tww"));
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "mine");
  // A packed file can still hold a NaN scale (written by another tool): dequantize counts what comes out not finite.
  write_packed(path("q8.tww"), quantize_cpu(raw.data(), DType::bf16, 2, 64, 64, Format::q8_0), DType::bf16,
               files::Existing::refuse);
  const FileSummary back = dequantize_file(path("q8.tww"), path("q8.f32"), "f32");
  EXPECT_FALSE(back.faithful);
  EXPECT_TRUE(Contains(back.text, "values not finite"));
  // Weights of 1e-6 quantize to a subnormal scale (int4) or none at all: they came back as 0, said nowhere.
  std::vector<uint16_t> tiny(2 * 64, float_to_bf16_bits(1e-6f));
  write(path("tiny.bin"), tiny);
  for (Format f : {Format::q8_0, Format::int4_g32}) {
    const std::string out = std::string("t") + std::string(to_string(f)) + ".tww";
    const FileSummary small = quantize_file({path("tiny.bin"), path(out.c_str()), DType::bf16, 2, 64, f, true});
    EXPECT_FALSE(small.faithful) << to_string(f);
    EXPECT_TRUE(Contains(small.text, "groups whose fp16 scale is under fp16's normal range")) << small.text;
  }
  std::fill(raw.begin(), raw.end(), float_to_bf16_bits(0.5f));
  raw[5] = 0;  // a zero weight, and below a whole group of zeros: nothing lost
  std::fill(raw.begin() + 64, raw.begin() + 96, 0);
  write(path("clean.bin"), raw);
  EXPECT_TRUE(quantize_file({path("clean.bin"), path("c.tww"), DType::bf16, 2, 64, Format::q8_0, true}).faithful);
}

TEST_F(GemvWeightFile, NoOutputReplacesItsInputOrAnExistingFileUnasked) {
  std::vector<uint16_t> raw(4 * 64, float_to_bf16_bits(1.0f));
  write(path("w.bin"), raw);
  QuantizeRequest r{path("w.bin"), path("w.bin"), DType::bf16, 4, 64, Format::q8_0, true, true};
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "an output never replaces what it is made from"));
  std::ifstream in(path("w.bin"), std::ios::binary | std::ios::ate);
  EXPECT_EQ(in.tellg(), std::streamoff(raw.size() * 2)) << "the source weights are intact";
  r.output = path("w.tww");
  r.overwrite = false;
  quantize_file(r);
  EXPECT_TRUE(Contains(error_of([&] { quantize_file(r); }), "w.tww exists; it is replaced only with --overwrite"));
  r.overwrite = true;
  quantize_file(r);
  EXPECT_TRUE(Contains(error_of([&] { dequantize_file(path("w.tww"), path("w.tww"), "f32", true); }),
                       "an output never replaces what it is made from"));
  EXPECT_NO_THROW(read_packed(path("w.tww")));
}

}  // namespace
}  // namespace tilewise::gemv
