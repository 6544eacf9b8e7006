#include "families/sm90/packed.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "kernels/sm90/packed_order.h"

namespace tilewise::sm90 {

Weights packed_weights(gemv::Format f) {
  if (f == gemv::Format::int4_g128) return Weights::int4_g128;
  if (f == gemv::Format::int4_g32) return Weights::int4_g32;
  throw Unsupported(fmt::format("the sm90 kernel reads packed int4 weights (int4g128, int4g32), not {}",
                                gemv::to_string(f)));
}

std::optional<std::string> kernel_order_unsupported(const gemv::PackedLayout& l) {
  if (l.format != gemv::Format::int4_g128 && l.format != gemv::Format::int4_g32)
    return fmt::format("{} weights have no sm90 kernel order (int4g128 and int4g32 do)", gemv::to_string(l.format));
  if (l.n % kernels::sm90::kPackedBlockRows != 0 || l.k % kernels::sm90::kPackedBlockK != 0)
    return fmt::format("{} weights of {} x {}: the sm90 kernel order takes N and K in whole blocks of 64",
                       gemv::to_string(l.format), l.n, l.k);
  return std::nullopt;
}

gemv::HostPacked to_kernel_order_cpu(const gemv::HostPacked& rows) {
  const gemv::PackedLayout& l = rows.layout;
  if (auto why = kernel_order_unsupported(l)) throw Unsupported(*why);
  gemv::HostPacked out{l, std::vector<uint8_t>(rows.q.size()), std::vector<uint8_t>(rows.scales.size())};
  const int K = int(l.k);
  const long long words = l.n * l.k / 8;
  auto nibble = [&](long long n, int k) { return (rows.q[size_t(n * l.row_bytes + k / 2)] >> (4 * (k % 2))) & 0xF; };
  for (long long w = 0; w < words; ++w) {
    const uint32_t word = kernels::sm90::packed_word(w, K, nibble);
    for (int b = 0; b < 4; ++b) out.q[size_t(w * 4 + b)] = uint8_t(word >> (8 * b));  // little-endian, as the GPU stores
  }
  const int groups = int(l.k / gemv::group_size(l.format));
  const long long scales = l.n * groups;
  for (long long i = 0; i < scales; ++i) {
    const long long from = kernels::sm90::packed_scale_source(i, groups);
    out.scales[size_t(2 * i)] = rows.scales[size_t(2 * from)];
    out.scales[size_t(2 * i + 1)] = rows.scales[size_t(2 * from + 1)];
  }
  return out;
}

}  // namespace tilewise::sm90
