// nn.Linear's y = x W^T through tilewise: a 16-bit layer at one token (decode) and at 64 (a prefill chunk), and the
// same weights packed as int4 at one token, each checked against a plain CPU sum. Without a GPU it packs the weights
// on the CPU and says why it stops there.
#include <tilewise/tilewise.hpp>

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

uint16_t to_bf16(float v) {  // round to nearest even
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return uint16_t((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}

float from_bf16(uint16_t v) {
  const uint32_t bits = uint32_t(v) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

void check(cudaError_t e) {
  if (e != cudaSuccess) throw tilewise::Error(cudaGetErrorString(e));
}

// The largest |y - x W^T| over the output, relative to the largest |x W^T|.
double error_against_cpu(const std::vector<uint16_t>& x, const std::vector<float>& w, const std::vector<uint16_t>& y,
                         int64_t tokens, int64_t F, int64_t K) {
  double worst = 0, scale = 0;
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t f = 0; f < F; ++f) {
      double ref = 0;
      for (int64_t k = 0; k < K; ++k) ref += double(from_bf16(x[t * K + k])) * w[f * K + k];
      worst = std::fmax(worst, std::fabs(from_bf16(y[t * F + f]) - ref));
      scale = std::fmax(scale, std::fabs(ref));
    }
  return worst / scale;
}

}  // namespace

int main() {
  const int64_t F = 1024, K = 2048;
  std::vector<uint16_t> w(F * K);
  std::vector<float> w_values(F * K);
  for (int64_t i = 0; i < F * K; ++i) w[i] = to_bf16(std::sin(0.37f * float(i)) * 0.05f), w_values[i] = from_bf16(w[i]);
  std::printf("tilewise %s\n", std::string(tilewise::version()).c_str());
  try {
    const tilewise::PackedShape shape = tilewise::packed_shape(tilewise::WeightFormat::int4_g128, F, K);
    std::vector<uint8_t> q(shape.q_bytes()), scales(shape.scale_bytes);
    tilewise::quantize_host(w.data(), tilewise::DType::bf16, K, shape, q.data(), scales.data());
    std::vector<float> w_int4(F * K);
    tilewise::dequantize_host({shape, q.data(), scales.data()}, w_int4.data());
    std::printf("int4 g128: %lld bytes of weights for %lld of bf16\n", (long long)(shape.q_bytes() + shape.scale_bytes),
                (long long)(F * K * 2));

    tilewise::Context ctx;  // throws Error without a GPU
    cudaStream_t stream;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    void *dw, *dx, *dy, *dq, *dscales;
    check(cudaMalloc(&dw, F * K * 2));
    check(cudaMalloc(&dx, 64 * K * 2));
    check(cudaMalloc(&dy, 64 * F * 2));
    check(cudaMalloc(&dq, q.size()));
    check(cudaMalloc(&dscales, scales.size()));
    check(cudaMemcpy(dw, w.data(), F * K * 2, cudaMemcpyHostToDevice));
    check(cudaMemcpy(dq, q.data(), q.size(), cudaMemcpyHostToDevice));
    check(cudaMemcpy(dscales, scales.data(), scales.size(), cudaMemcpyHostToDevice));
    std::vector<uint16_t> x(64 * K), y(64 * F);
    for (int64_t i = 0; i < 64 * K; ++i) x[i] = to_bf16(std::cos(0.11f * float(i)));
    check(cudaMemcpy(dx, x.data(), x.size() * 2, cudaMemcpyHostToDevice));

    int failures = 0;
    for (int64_t tokens : {1, 64}) {
      const tilewise::Problem p = tilewise::linear_problem(tokens, F, K, tilewise::DType::bf16);
      const tilewise::Choice& ran = tilewise::gemm(ctx, p, dw, dx, dy, stream);
      check(cudaMemcpyAsync(y.data(), dy, tokens * F * 2, cudaMemcpyDeviceToHost, stream));
      check(cudaStreamSynchronize(stream));
      const double e = error_against_cpu(x, w_values, y, tokens, F, K);
      std::printf("bf16, %lld tokens: %s %s (%s), error %.2e\n", (long long)tokens, ran.family.c_str(),
                  ran.config.c_str(), ran.source.c_str(), e);
      failures += e > 1e-2;
    }
    tilewise::linear(ctx, dx, 1, tilewise::DType::bf16, {shape, dq, dscales}, dy, stream);
    check(cudaMemcpyAsync(y.data(), dy, F * 2, cudaMemcpyDeviceToHost, stream));
    check(cudaStreamSynchronize(stream));
    const double e = error_against_cpu(x, w_int4, y, 1, F, K);
    std::printf("int4 g128, 1 token: error %.2e against its own weights\n", e);
    failures += e > 1e-2;
    return failures ? 1 : 0;
  } catch (const tilewise::Error& e) {
    std::fprintf(stderr, "tilewise: %s\n", e.what());
    return 2;
  }
}
