// The CPU reference of the GPU quantizer (kernels/quantize.cuh): the same IEEE fp32 operations in the same order, so
// the two agree bit for bit (tests/families/gemv_quantize_gpu_test.cpp holds them to it).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/numeric.hpp"
#include "families/gemv/quantize.hpp"

namespace tilewise::gemv {

PackedLayout packed_layout(Format f, int64_t N, int64_t K) {
  if (N < 1 || K < 1) throw Error(fmt::format("weights of {} x {}: N and K must be positive", N, K));
  const int per_chunk = elems_per_chunk(f), group = group_size(f);
  // One message for both rules, so the K it suggests is one the format takes.
  if (const int need = group ? std::lcm(per_chunk, group) : per_chunk; K % need != 0)
    throw Error(group ? fmt::format("{} weights need K to be a multiple of {} (the group of {} a scale, in whole "
                                    "16-byte chunks of {}); K = {}", to_string(f), need, group, per_chunk, K)
                      : fmt::format("{} weights need K to be a multiple of {} (whole 16-byte chunks); K = {}",
                                    to_string(f), need, K));
  const std::string what = fmt::format("{} weights of {} x {}", to_string(f), N, K);
  PackedLayout l{f, N, K, checked_product({K / per_chunk, 16}, what), 0};
  if (group) l.scale_bytes = checked_product({N, K / group, 2}, what);
  if (f == Format::fp8) l.scale_bytes = checked_product({N, 4}, what);
  checked_sum({checked_product({N, l.row_bytes}, what), l.scale_bytes}, what);
  return l;
}

uint16_t float_to_bf16_bits(float v) {
  const uint32_t x = std::bit_cast<uint32_t>(v);
  if (std::isnan(v)) return 0x7FFF;  // the canonical NaN the GPU's cvt.rn.bf16.f32 writes, so the two agree bit for bit
  return uint16_t((x + 0x7FFF + ((x >> 16) & 1)) >> 16);
}

uint16_t float_to_fp16_bits(float v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(double(v));
  if (std::isnan(v)) return 0x7FFF;  // the canonical NaN of cvt.rn.f16.f32
  if (a >= 65520.0) return sign | 0x7C00;  // rounds past the largest finite 65504
  if (a < std::ldexp(1.0, -14)) return sign | uint16_t(std::nearbyint(std::ldexp(a, 24)));  // subnormal (1024 = min normal)
  int e = 0;
  const double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int mant = int(std::nearbyint((m * 2 - 1) * 1024));  // exact in double: nearbyint rounds half to even
  int exp = e - 1 + 15;
  if (mant == 1024) mant = 0, ++exp;
  return sign | uint16_t(exp << 10 | mant);
}

uint8_t float_to_e4m3_bits(float v) {
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  if (std::isnan(v)) return 0x7F;
  const double a = std::fabs(double(v));
  if (a >= 448.0) return sign | 0x7E;  // satfinite
  if (a < std::ldexp(1.0, -6)) return sign | uint8_t(std::nearbyint(std::ldexp(a, 9)));  // subnormal (8 = min normal)
  int e = 0;
  const double m = std::frexp(a, &e);
  int mant = int(std::nearbyint((m * 2 - 1) * 8));
  int exp = e - 1 + 7;
  if (mant == 8) mant = 0, ++exp;
  if (exp > 15 || (exp == 15 && mant == 7)) return sign | 0x7E;
  return sign | uint8_t(exp << 3 | mant);
}

namespace {

float fp16_value(uint16_t bits) { return float(fp16_to_double(bits)); }

bool fp16_overflows(float v) { return (float_to_fp16_bits(v) & 0x7FFF) == 0x7C00; }
// Under the smallest normal fp16 (2^-14) once rounded: a subnormal or zero scale.
bool fp16_underflows(float v) { return (float_to_fp16_bits(v) & 0x7C00) == 0; }

// The GPU's float-to-integer conversion: saturating, NaN to 0 (a plain cast of either is undefined in C++).
int8_t to_int8(float v) { return std::isnan(v) ? 0 : int8_t(std::fmin(std::fmax(v, -128.0f), 127.0f)); }

}  // namespace

Hazards find_hazards(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f) {
  require_source(src_type, N, K, ld_src);
  Hazards h;
  const int G = group_size(f);
  const auto note = [&](int64_t n, int64_t k) {
    if (h.first.empty()) h.first = fmt::format("row {}, column {}", n, k);
  };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t k0 = 0; k0 < K; k0 += G ? G : K) {
      float amax = 0.0f;
      bool finite = true;
      for (int64_t k = k0; k < (G ? k0 + G : K); ++k) {
        const float x = float(element_to_double(src_type, src, n * ld_src + k));
        if (!std::isfinite(x)) {
          ++h.nonfinite, finite = false;
          note(n, k);
          continue;
        }
        amax = std::max(amax, std::fabs(x));
        if (f == Format::fp16 && fp16_overflows(x)) ++h.overflowed, note(n, k);
      }
      // The scale as quantize_cpu computes it: Q8_0's amax / 127, int4's amax / 7, each stored as fp16.
      const float scale = amax / (f == Format::q8_0 ? 127.0f : 7.0f);
      if (finite && G && fp16_overflows(scale)) ++h.overflowed, note(n, k0);
      if (finite && G && amax > 0.0f && fp16_underflows(scale)) ++h.underflowed, note(n, k0);
    }
  return h;
}

void require_source(DType src_type, int64_t N, int64_t K, int64_t ld_src) {
  if (ld_src < K) throw Error(fmt::format("weight row stride {} is under K = {}", ld_src, K));
  const int64_t elements = checked_sum({checked_product({N - 1, ld_src}, "the weights' size"), K}, "the weights' size");
  checked_product({elements, element_bytes(src_type)}, "the weights' size");
}

HostPacked quantize_cpu(const void* src, DType src_type, int64_t N, int64_t K, int64_t ld_src, Format f) {
  HostPacked out{packed_layout(f, N, K), {}, {}};
  require_source(src_type, N, K, ld_src);
  const PackedLayout& l = out.layout;
  out.q.assign(size_t(l.q_bytes()), 0);
  out.scales.assign(size_t(l.scale_bytes), 0);
  auto x = [&](int64_t n, int64_t k) { return float(element_to_double(src_type, src, n * ld_src + k)); };
  for (int64_t n = 0; n < N; ++n) {
    uint8_t* row = out.q.data() + n * l.row_bytes;
    if (f == Format::bf16 || f == Format::fp16) {
      for (int64_t k = 0; k < K; ++k) {
        const uint16_t b = f == Format::bf16 ? float_to_bf16_bits(x(n, k)) : float_to_fp16_bits(x(n, k));
        std::memcpy(row + 2 * k, &b, 2);
      }
    } else if (f == Format::fp8) {
      float amax = 0.0f;
      for (int64_t k = 0; k < K; ++k) amax = std::max(amax, std::fabs(x(n, k)));
      const float s = amax / 448.0f;
      const float is = s != 0.0f ? 1.0f / s : 0.0f;
      for (int64_t k = 0; k < K; ++k) row[k] = float_to_e4m3_bits(x(n, k) * is);
      std::memcpy(out.scales.data() + 4 * n, &s, 4);
    } else {
      const int G = group_size(f);
      for (int64_t k0 = 0; k0 < K; k0 += G) {
        float amax = 0.0f;
        for (int j = 0; j < G; ++j) amax = std::max(amax, std::fabs(x(n, k0 + j)));
        uint16_t dh;
        if (f == Format::q8_0) {  // ggml's quantize_row_q8_0_ref
          const float d = amax / 127.0f;
          const float id = d != 0.0f ? 1.0f / d : 0.0f;
          dh = float_to_fp16_bits(d);
          for (int j = 0; j < G; ++j) row[k0 + j] = uint8_t(to_int8(std::roundf(x(n, k0 + j) * id)));
        } else {
          dh = float_to_fp16_bits(amax / 7.0f);
          const float d = fp16_value(dh);
          const float id = d != 0.0f ? 1.0f / d : 0.0f;
          for (int j = 0; j < G; j += 2) {
            // fmin/fmax as the kernel's fminf/fmaxf: a NaN gives way to the bound (std::clamp would keep it).
            const float a = std::fmin(std::fmax(std::roundf(x(n, k0 + j) * id), -8.0f), 7.0f);
            const float b = std::fmin(std::fmax(std::roundf(x(n, k0 + j + 1) * id), -8.0f), 7.0f);
            row[(k0 + j) / 2] = uint8_t((int(a) + 8) | ((int(b) + 8) << 4));
          }
        }
        std::memcpy(out.scales.data() + 2 * (n * (K / G) + k0 / G), &dh, 2);
      }
    }
  }
  return out;
}

std::vector<float> dequantize_cpu(const HostPacked& w) {
  const PackedLayout& l = w.layout;
  std::vector<float> out(size_t(l.n * l.k));
  const int G = group_size(l.format);
  for (int64_t n = 0; n < l.n; ++n) {
    const uint8_t* row = w.q.data() + n * l.row_bytes;
    for (int64_t k = 0; k < l.k; ++k) {
      float v = 0;
      switch (l.format) {
        case Format::bf16: v = float(element_to_double(DType::bf16, row, k)); break;
        case Format::fp16: v = float(element_to_double(DType::fp16, row, k)); break;
        case Format::fp8: {
          float s;
          std::memcpy(&s, w.scales.data() + 4 * n, 4);
          v = float(e4m3_to_double(row[k])) * s;
          break;
        }
        default: {
          uint16_t dh;
          std::memcpy(&dh, w.scales.data() + 2 * (n * (l.k / G) + k / G), 2);
          const int q = l.format == Format::q8_0 ? int(int8_t(row[k])) : int((row[k / 2] >> (4 * (k % 2))) & 0xF) - 8;
          v = float(q) * fp16_value(dh);
        }
      }
      out[size_t(n * l.k + k)] = v;
    }
  }
  return out;
}

}  // namespace tilewise::gemv
