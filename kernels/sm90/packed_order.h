#pragma once
// The order of packed int4 weights the sm90 kernel reads (the layout is documented in sm90/packed.h): where value j
// of the word of thread t at 16-k step s lies in its 64 x 64 block, for the kernel (NVRTC), the reordering kernel
// (nvcc) and its CPU reference alike.
#include "random.h"  // TW_HOST_DEVICE

namespace tilewise::kernels::sm90 {

constexpr int kPackedBlockRows = 64, kPackedBlockK = 64;
constexpr int kPackedBlockWords = kPackedBlockRows * kPackedBlockK / 8;  // 512 words of 8 values
constexpr int kPackedBlockBytes = kPackedBlockWords * 4;                 // 2048

// The scales of one block a k-tile: 64 fp16 a group, one group (G = 128) or two (G = 32).
TW_HOST_DEVICE constexpr int packed_scale_block_bytes(int group) {
  return kPackedBlockRows * 2 * (group < kPackedBlockK ? kPackedBlockK / group : 1);
}
// A stage's packed B tile: block_n / 64 blocks and their scales, rounded up to 1024 bytes so that the activation
// tile after it starts on a swizzle atom.
TW_HOST_DEVICE constexpr int packed_b_tile_bytes(int block_n, int group) {
  return (block_n / kPackedBlockRows * (kPackedBlockBytes + packed_scale_block_bytes(group)) + 1023) / 1024 * 1024;
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

// Scale index i of the packed scales ([N/64][K/G][64]) to its index in B's row-major scales ([N][K/G]).
TW_HOST_DEVICE inline long long packed_scale_source(long long i, int groups) {
  const long long r = i % kPackedBlockRows, g = (i / kPackedBlockRows) % groups, nb = i / kPackedBlockRows / groups;
  return (nb * kPackedBlockRows + r) * groups + g;
}

}  // namespace tilewise::kernels::sm90
