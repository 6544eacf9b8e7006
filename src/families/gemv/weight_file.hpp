#pragma once
// Files behind `tilewise quantize`: raw weight files in, packed weight files (.tww) out, and back.
//
// A raw weight file is N rows of K little-endian bf16 or fp16 values, row after row (W[N][K], K-major, as nn.Linear
// stores its weight). A packed file is the magic line "TWGEMV1", one JSON header line (format, n, k, row_bytes,
// scale_bytes, scale_type, source), then the quantized rows (n x row_bytes) and the scales (scale_bytes), as
// kernels/quantize.cuh lays them out.
#include <string>

#include "families/gemv/quantize.hpp"

namespace tilewise::gemv {

void write_packed(const std::string& path, const HostPacked& w, DType source);
HostPacked read_packed(const std::string& path);  // throws Error naming the file and what is wrong with it

struct QuantizeRequest {
  std::string input, output;
  DType dtype = DType::bf16;  // of the input: bf16 or fp16
  int64_t rows = 0, cols = 0;  // N and K
  Format format = Format::q8_0;
  bool cpu = false;  // the CPU reference even where a GPU is present
};
// Quantizes a raw weight file into a packed one; returns a one-line summary. Throws Error for a missing or wrongly
// sized input, a shape the format cannot take, an unwritable output.
std::string quantize_file(const QuantizeRequest& r);

// Dequantizes a packed file into a raw one of `to` (f32, bf16 or fp16); returns a one-line summary.
std::string dequantize_file(const std::string& input, const std::string& output, const std::string& to);

}  // namespace tilewise::gemv
