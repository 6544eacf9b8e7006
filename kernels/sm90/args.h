#pragma once
// The sm90 GEMM kernel's argument block (beside its three tensor maps): plain data, compiled into the kernel by
// NVRTC and filled by the host (src/families/sm90/gemm.cpp), so both sides read one definition.
namespace tilewise::kernels {

struct Sm90GemmArgs {
  void* c;          // for the direct epilogue
  int M, N, K;
  long long ldc;
  // The work plan (src/families/sm90/stream_k.cpp): tiles below dp_tiles whole, one CTA each in turn; then CTA
  // b < sk_ctas takes the k-tiles [sk_begin(b), sk_begin(b + 1)) of the rest, sk_share each and one more for the
  // first sk_extra. n / k_tiles = n * k_tiles_magic >> k_tiles_shift.
  int dp_tiles, sk_ctas, sk_share, sk_extra;
  unsigned int k_tiles_magic;
  int k_tiles_shift;
  // Stream-K: one slot of fp32 partials (BlockM x BlockN) and one flag per consumer for every CTA. The flags are
  // zero between launches: the CTA that reads a slot clears its flag.
  float* partials;
  int* flags;
  // Packed weights (Weights != weights_as_input): the kernel's B operand in the order of sm90/packed.h and its
  // scales; the B tensor map is then unused.
  const void* packed;
  const void* packed_scales;
};

}  // namespace tilewise::kernels
