#pragma once
// TMA tensor maps for 2-D row-major operands (a row of `inner` elements, rows `row_bytes` apart), encoded through
// the driver's cuTensorMapEncodeTiled (found at run time, so the tool links no driver library).
#include <cstdint>
#include <string>

#include "core/problem.hpp"

namespace tilewise::sm90 {

struct TensorMapSpec {
  const void* base = nullptr;
  int element_bytes = 2;
  bool float16 = false;   // fp16 rather than bf16 (only matters for 2-byte elements)
  uint64_t inner = 0, rows = 0;
  uint64_t row_bytes = 0;
  uint32_t box_inner = 0, box_rows = 0;  // box_inner * element_bytes is one 128-byte swizzle row
};

struct alignas(128) TensorMap {  // CUtensorMap's alignment
  unsigned long long opaque[16];
};

// A spec in words, every field that changes the encoded map (what an error names).
std::string tensor_map_key(const TensorMapSpec& s);
// Throws Error naming the spec when the driver refuses it (misaligned base or stride, a box over 256, ...).
TensorMap encode_tensor_map(const TensorMapSpec& s);

}  // namespace tilewise::sm90
