#pragma once
// Files behind `tilewise quantize`: raw weight files in, packed weight files (.tww) out, and back.
//
// A raw weight file is N rows of K little-endian bf16 or fp16 values, row after row (W[N][K], K-major, as nn.Linear
// stores its weight). A packed file is the magic line "TWGEMV1", one JSON header line (format, n, k, row_bytes,
// scale_bytes, scale_type, source), then the quantized rows (n x row_bytes) and the scales (scale_bytes), as
// kernels/quantize.cuh lays them out.
#include <string>
#include <string_view>

#include "core/file.hpp"
#include "families/gemv/quantize.hpp"

namespace tilewise::gemv {

// Refuses an existing file at `path` under Existing::refuse.
void write_packed(const std::string& path, const HostPacked& w, DType source, files::Existing existing);
// Throws Error naming `origin` and what is wrong: no magic line, a header that is not JSON or whose sizes do not follow
// from its format and shape (checked in 64 bits: a forged n * k cannot wrap), a body of another size.
HostPacked parse_packed(std::string_view bytes, const std::string& origin);
HostPacked read_packed(const std::string& path);

struct QuantizeRequest {
  std::string input, output;
  DType dtype = DType::bf16;  // of the input: bf16 or fp16
  int64_t rows = 0, cols = 0;  // N and K
  Format format = Format::q8_0;
  bool cpu = false;  // the CPU reference even where a GPU is present
  bool overwrite = false;  // replace an existing output (never the input)
};

// A command's one-line summary, and whether everything it read came out as it went in.
struct FileSummary {
  std::string text;
  bool faithful = true;
};

// Quantizes a raw weight file into a packed one. Weights the format cannot give back (gemv::Hazards: not finite, a
// group (fp16: a weight) too large or too small for the format) make the summary unfaithful and counted, and then
// nothing is written (an existing output stays as it was): the Python API refuses the same weights.
// Throws Error for a missing or wrongly sized input, a shape the format cannot take, an output that is the input, an
// existing output without `overwrite`, an unwritable output.
FileSummary quantize_file(const QuantizeRequest& r);

// Dequantizes a packed file into a raw one of `to` (f32, bf16 or fp16). The summary counts the values that come out
// not finite (a packed file can hold an Inf or NaN scale) or past the range of `to`.
FileSummary dequantize_file(const std::string& input, const std::string& output, const std::string& to,
                            bool overwrite = false);

}  // namespace tilewise::gemv
