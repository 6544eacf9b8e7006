#pragma once
// Where a packed weight matrix keeps its 16-byte chunks and its group scales: host and device code alike, so the
// quantizers (kernels/quantize.cuh and its CPU reference, src/families/gemv/quantize.cpp) write by the same rule the
// decode kernels (gemv.cuh, gemv_mma.cuh, gemv_bulk.cuh) read by.
//
// Row-major (every format but int4g128t): row n at n * row_bytes, its chunk c at 16 c; scales [N][K / group].
//
// Tiled (int4g128t): the int4 g128 values and scales, rearranged for the mma engines. Rows come in tiles of 16 and
// K in groups of 128 (64 bytes, four chunks, of each row). One tile's group is one kilobyte in the order the mma
// engines' lanes read it: half h (rows 8h .. 8h + 7) after half h - 1, and inside a half lane 4g + q's 16 bytes,
// chunk q of the group of row 8h + g (gemv_mma.cuh: lane (g, q) owns the A-fragment rows g and g + 8 and quarter q
// of each group). So one warp's 16-byte loads of one half read 512 contiguous bytes, a group of a 16-row tile is 1 KB
// and a tile's whole K one contiguous run, where the row-major layout gives the same loads 64 bytes of each of 8
// rows. The groups of a tile follow each other, then the next tile. Scales [N / 16][K / 128][16]: a tile's group's
// 16 row scales are 32 contiguous bytes. N must be a multiple of 16 (families/gemv/quantize.cpp says so).
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TILEWISE_HOST_DEVICE __host__ __device__
#else
#define TILEWISE_HOST_DEVICE
#endif

namespace tilewise::kernels::gemv {

// Rows in a tile and bytes of a tile's group (16 rows x 64 bytes) in the tiled layout.
constexpr int tile_rows = 16;
constexpr int tile_group_bytes = 1024;

// The start of row n's bytes; with chunk_offset below, row n's chunk c is at row_offset(n) + chunk_offset(c).
TILEWISE_HOST_DEVICE constexpr long long row_offset(bool tiled, long long n, long long row_bytes) {
  return tiled ? n / 16 * 16 * row_bytes + n % 16 / 8 * 512 + n % 8 * 64 : n * row_bytes;
}

TILEWISE_HOST_DEVICE constexpr long long chunk_offset(bool tiled, long long chunk) {
  return tiled ? chunk / 4 * tile_group_bytes + chunk % 4 * 16 : chunk * 16;
}

// Row n's scale of group `group` (of `groups` a row).
TILEWISE_HOST_DEVICE constexpr long long scale_index(bool tiled, long long n, long long group, long long groups) {
  return tiled ? (n / 16 * groups + group) * 16 + n % 16 : n * groups + group;
}

}  // namespace tilewise::kernels::gemv

#undef TILEWISE_HOST_DEVICE
