#pragma once
// Counter-based random numbers, the same on host and device: element i of a fill is a function of (seed, i) alone.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define TW_HOST_DEVICE __host__ __device__
#else
#define TW_HOST_DEVICE
#endif

namespace tilewise::kernels {

TW_HOST_DEVICE inline unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// 24 random bits mapped onto [-1, 1).
TW_HOST_DEVICE inline float uniform_pm1(unsigned long long seed, unsigned long long index) {
  const unsigned bits = unsigned(splitmix64(seed ^ splitmix64(index)) >> 40);
  return float(bits) * (2.0f / 16777216.0f) - 1.0f;
}

}  // namespace tilewise::kernels
