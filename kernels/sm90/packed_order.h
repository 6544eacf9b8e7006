#pragma once
// The order of packed weights the sm90 kernel reads (the layout is documented in sm90/packed.h): where value j of
// thread t's fragment at 16-k step s lies in its 64 x 64 block, and where that value's bits are stored (a nibble of
// a word for int4, a byte for Q8_0 and fp8), for the kernel (NVRTC), the reordering kernel (nvcc) and its CPU
// reference alike.
#include "random.h"  // TW_HOST_DEVICE
#include "sm90/codes.h"

namespace tilewise::kernels::sm90 {

constexpr int kPackedBlockRows = 64, kPackedBlockK = 64;
constexpr int kPackedBlockWords = kPackedBlockRows * kPackedBlockK / 8;  // int4: 512 words of 8 values

// The group of K one scale covers: 32 for Q8_0 and int4 g32, 128 for int4 g128, 0 for fp8 (one scale a row,
// applied to the sums).
TW_HOST_DEVICE constexpr int packed_group(int weights) {
  return weights == weights_int4_g32 || weights == weights_q8_0 ? 32 : weights == weights_int4_g128 ? 128 : 0;
}
// Whether a value takes a byte (Q8_0, fp8) rather than a nibble (int4).
TW_HOST_DEVICE constexpr bool packed_bytes(int weights) { return weights == weights_q8_0 || weights == weights_fp8; }
// One 64 x 64 block: 2048 bytes of int4, 4096 of Q8_0 or fp8.
TW_HOST_DEVICE constexpr int packed_block_bytes(int weights) {
  return kPackedBlockRows * kPackedBlockK / (packed_bytes(weights) ? 1 : 2);
}
// The scales of one block a k-tile: 64 fp16 a group, one group (G = 128) or two (G = 32); fp8's row scales are read
// once a tile, not staged.
TW_HOST_DEVICE constexpr int packed_scale_block_bytes(int weights) {
  const int group = packed_group(weights);
  return group == 0 ? 0 : kPackedBlockRows * 2 * (group < kPackedBlockK ? kPackedBlockK / group : 1);
}
// A stage's packed B tile: block_n / 64 blocks and their scales, rounded up to 1024 bytes so that the activation
// tile after it starts on a swizzle atom.
TW_HOST_DEVICE constexpr int packed_b_tile_bytes(int block_n, int weights) {
  return (block_n / kPackedBlockRows * (packed_block_bytes(weights) + packed_scale_block_bytes(weights)) + 1023) /
         1024 * 1024;
}

TW_HOST_DEVICE constexpr int packed_row(int t, int j) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((j / 2) % 2); }
TW_HOST_DEVICE constexpr int packed_column(int t, int s, int j) { return 16 * s + 2 * (t % 4) + j % 2 + 8 * (j / 4); }
TW_HOST_DEVICE constexpr int packed_bit(int j) { return 4 * (j / 2) + 16 * (j % 2); }

// Word w of the packed q of B[N][K] (w = block * 512 + t * 4 + s, block = nb * K/64 + kb) from B's row-major int4
// (kernels/quantize.cuh: row n at n * row_bytes, element 2i in the low nibble of byte i): the nibble value of (n, k) is
// read through `nibble(n, k)`.
template <class Nibble>
TW_HOST_DEVICE unsigned int packed_word(long long w, int K, Nibble&& nibble) {
  const long long block = w / kPackedBlockWords;
  const int within = int(w % kPackedBlockWords), t = within / 4, s = within % 4;
  const long long n0 = block / (K / kPackedBlockK) * kPackedBlockRows;
  const int k0 = int(block % (K / kPackedBlockK)) * kPackedBlockK;
  unsigned int word = 0;
  for (int j = 0; j < 8; ++j)
    word |= (unsigned int)(nibble(n0 + packed_row(t, j), k0 + packed_column(t, s, j)) & 0xF) << packed_bit(j);
  return word;
}

// A value a byte (Q8_0, fp8): word w of the packed q of B[N][K] (w = block * 1024 + half * 512 + t * 4 + 2 * (s % 2)
// + h, block = nb * K/64 + kb, half = s / 2) from B's row-major bytes, read through `byte(n, k)`: thread t's 16 bytes
// in each half of a block hold its fragments' values in order, 8 a 16-k step, so word h of step s holds values
// 4h .. 4h + 3 (value j in byte j % 4).
template <class Byte>
TW_HOST_DEVICE unsigned int packed_byte_word(long long w, int K, Byte&& byte) {
  constexpr int kWords = kPackedBlockRows * kPackedBlockK / 4;  // 1024
  const long long block = w / kWords;
  const int within = int(w % kWords), half = within / 512, t = within % 512 / 4;
  const int s = 2 * half + within % 4 / 2, h = within % 2;
  const long long n0 = block / (K / kPackedBlockK) * kPackedBlockRows;
  const int k0 = int(block % (K / kPackedBlockK)) * kPackedBlockK;
  unsigned int word = 0;
  for (int b = 0; b < 4; ++b) {
    const int j = 4 * h + b;
    word |= (unsigned int)(byte(n0 + packed_row(t, j), k0 + packed_column(t, s, j)) & 0xFF) << (8 * b);
  }
  return word;
}

// Scale index i of the packed scales ([N/64][K/G][64]) to its index in B's row-major scales ([N][K/G]).
TW_HOST_DEVICE inline long long packed_scale_source(long long i, int groups) {
  const long long r = i % kPackedBlockRows, g = (i / kPackedBlockRows) % groups, nb = i / kPackedBlockRows / groups;
  return (nb * kPackedBlockRows + r) * groups + g;
}

}  // namespace tilewise::kernels::sm90
