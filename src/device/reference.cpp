#include "device/reference.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "core/error.hpp"
#include "core/numeric.hpp"
#include "device/launchers.hpp"
#include "kernels/error_sums.h"
#include "receipt/derive.hpp"

namespace tilewise::device {

Reference::Reference(const Problem& p, const OperandSet& set, cudaStream_t stream)
    : p_(p), ref_(size_t(bytes(p))), sums_(sizeof(kernels::ErrorSums)) {
  launch_reference(p, set.a.get(), set.b.get(), ref_.as<float>(), stream);
  TW_CUDA(cudaStreamSynchronize(stream));
}

Reference::Reference(const Problem& p, const OperandSet& set, Replaced weights, cudaStream_t stream)
    : p_(p), replaced_(weights), ref_(size_t(bytes(p))), sums_(sizeof(kernels::ErrorSums)) {
  if (!weights.rows) throw Error(fmt::format("a reference on replaced weights of {} got none", describe(p)));
  if (weights.a && p.layout != Layout::TN)
    throw Error(fmt::format("a reference with A replaced by rows of K needs TN, not {}", describe(p)));
  (weights.a ? p_.lda : p_.ldb) = p.K;  // the dequantized weights are tight
  launch_reference_fp32(p_, weights.a ? weights.rows : set.a.get(), weights.a ? set.b.get() : weights.rows, weights.a,
                        ref_.as<float>(), stream);
  TW_CUDA(cudaStreamSynchronize(stream));
}

OutputError Reference::compare(const void* c, cudaStream_t stream) const {
  launch_compare(output_dtype(p_.dtype), int(p_.M), int(p_.N), c, p_.ldc, ref_.as<float>(),
                 sums_.as<kernels::ErrorSums>(), stream);
  kernels::ErrorSums s{};
  TW_CUDA(cudaMemcpyAsync(&s, sums_.get(), sizeof s, cudaMemcpyDeviceToHost, stream));
  TW_CUDA(cudaStreamSynchronize(stream));
  OutputError e;
  e.non_finite = s.non_finite;
  if (s.non_finite == 0) {
    e.rel_err = s.ref_sq > 0 ? std::sqrt(s.diff_sq / s.ref_sq) : std::sqrt(s.diff_sq);
    float max_abs;
    std::memcpy(&max_abs, &s.max_abs_bits, sizeof max_abs);
    e.max_abs_err = max_abs;
  }
  return e;
}

receipt::ReferenceCheck Reference::check_fp64(const OperandSet& set, int samples_side) const {
  const int es = element_bytes(p_.dtype);
  const int rows = int(std::min<int64_t>(samples_side, p_.M)), cols = int(std::min<int64_t>(samples_side, p_.N));
  // Spread the samples over the matrix, always including the last row and column (edge tiles).
  auto pick = [](int64_t extent, int count, int c) { return count == 1 ? extent - 1 : c * (extent - 1) / (count - 1); };
  std::vector<int64_t> is(rows), js(cols);
  for (int r = 0; r < rows; ++r) is[r] = pick(p_.M, rows, r);
  for (int c = 0; c < cols; ++c) js[c] = pick(p_.N, cols, c);

  // Row i of op(A) is contiguous in TN (stride 1) and strided by lda in NN; column j of op(B) is contiguous. A
  // replaced operand is read from its fp32 rows.
  const bool a_contiguous = p_.layout == Layout::TN;
  const float* a32 = replaced_.a ? replaced_.rows : nullptr;
  const float* b32 = replaced_.a ? nullptr : replaced_.rows;
  const int aes = a32 ? 4 : es, bes = b32 ? 4 : es;
  std::vector<uint8_t> a_rows(size_t(rows) * p_.K * aes), b_cols(size_t(cols) * p_.K * bes);
  const uint8_t* a_src = a32 ? reinterpret_cast<const uint8_t*>(a32) : set.a.as<uint8_t>();
  for (int r = 0; r < rows; ++r)
    TW_CUDA(cudaMemcpy2D(a_rows.data() + size_t(r) * p_.K * aes, size_t(aes),
                         a_src + (a_contiguous ? is[r] * p_.lda : is[r]) * aes, size_t(a_contiguous ? aes : p_.lda * aes),
                         size_t(aes), size_t(p_.K), cudaMemcpyDeviceToHost));
  const uint8_t* b_src = b32 ? reinterpret_cast<const uint8_t*>(b32) : set.b.as<uint8_t>();
  for (int c = 0; c < cols; ++c)
    TW_CUDA(cudaMemcpy(b_cols.data() + size_t(c) * p_.K * bes, b_src + js[c] * p_.ldb * bes, size_t(p_.K) * bes,
                       cudaMemcpyDeviceToHost));
  const auto value = [&](bool fp32, const std::vector<uint8_t>& from, int64_t index) {
    return fp32 ? double(reinterpret_cast<const float*>(from.data())[index]) : element_to_double(p_.dtype, from.data(), index);
  };

  receipt::ReferenceCheck check{rows * cols, 0.0, receipt::reference_bound, false};
  for (int c = 0; c < cols; ++c)
    for (int r = 0; r < rows; ++r) {
      double exact = 0, magnitude = 0;
      for (int64_t k = 0; k < p_.K; ++k) {
        const double term =
            value(a32 != nullptr, a_rows, int64_t(r) * p_.K + k) * value(b32 != nullptr, b_cols, int64_t(c) * p_.K + k);
        exact += term;
        magnitude += std::fabs(term);
      }
      float got = 0;
      TW_CUDA(cudaMemcpy(&got, ref_.as<float>() + is[r] + js[c] * p_.M, sizeof got, cudaMemcpyDeviceToHost));
      const double err = std::fabs(double(got) - exact) / std::max(magnitude, 1e-30);
      check.max_err = std::isfinite(err) ? std::max(check.max_err, err) : INFINITY;
    }
  check.ok = std::isfinite(check.max_err) && check.max_err <= receipt::reference_bound;
  return check;
}

}  // namespace tilewise::device
