#include "device/operands.hpp"

#include <fmt/format.h>

#include "device/launchers.hpp"
#include "receipt/derive.hpp"

namespace tilewise::device {

int64_t cold_working_set_bytes(int64_t l2_bytes) { return receipt::cold_l2_multiple * l2_bytes; }

int rotation_sets(const Problem& p, bool cold, int64_t l2_bytes) {
  if (!cold) return 1;
  const int64_t set = receipt::rotation_set_bytes(p);
  const int64_t need = cold_working_set_bytes(l2_bytes);
  return int(std::max<int64_t>(1, (need + set - 1) / set));
}

Operands::Operands(const Problem& p, int sets, int64_t extra_bytes) : problem_(p) {
  const int64_t need = int64_t(sets) * receipt::rotation_set_bytes(p) + extra_bytes;
  size_t free_bytes = 0, total_bytes = 0;
  TW_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Leave room for the vendor library's own allocations and the CUDA context's growth.
  const int64_t usable = int64_t(free_bytes) - (int64_t(1) << 30);
  if (need > usable)
    throw Error(fmt::format("{}: needs {:.0f} MiB ({} operand set{} and the reference) but the GPU has {:.0f} MiB free",
                            describe(p), need / 1048576.0, sets, sets == 1 ? "" : "s", free_bytes / 1048576.0));
  sets_.reserve(size_t(sets));
  for (int i = 0; i < sets; ++i)
    sets_.push_back({Buffer(size_t(a_bytes(p))), Buffer(size_t(b_bytes(p))), Buffer(size_t(c_bytes(p)))});
}

void Operands::fill(uint64_t seed, cudaStream_t stream) {
  const int es = element_bytes(problem_.dtype);
  for (size_t i = 0; i < sets_.size(); ++i) {
    // Distinct streams of random numbers per set and operand.
    launch_fill(problem_.dtype, sets_[i].a.get(), sets_[i].a.bytes() / es, seed + 2 * i * 0x1000193ull, stream);
    launch_fill(problem_.dtype, sets_[i].b.get(), sets_[i].b.bytes() / es, seed + (2 * i + 1) * 0x1000193ull, stream);
  }
  poison_outputs(stream);
}

void Operands::poison_outputs(cudaStream_t stream) {
  for (int i = 0; i < count(); ++i) poison_output(i, stream);
}

void Operands::poison_output(int set, cudaStream_t stream) {
  // 0xFFFF is a NaN in both bf16 and fp16.
  const Buffer& c = sets_[size_t(set)].c;
  TW_CUDA(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream));
}

int64_t Operands::working_set_bytes() const { return int64_t(sets_.size()) * receipt::rotation_set_bytes(problem_); }

}  // namespace tilewise::device
