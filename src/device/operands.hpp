#pragma once
// The buffers one problem is measured on: one set (warm) or enough rotating sets that the working set is at
// least 4x the L2 (cold), so every launch streams its operands from HBM.
#include <cstdint>
#include <vector>

#include "core/problem.hpp"
#include "device/cuda.hpp"

namespace tilewise::device {

struct OperandSet {
  Buffer a, b, c;
};

// Rotation sets a problem needs: 1 warm; cold, the fewest whose A+B+C bytes together reach 4x the L2.
int rotation_sets(const Problem& p, bool cold, int64_t l2_bytes);
int64_t cold_working_set_bytes(int64_t l2_bytes);

class Operands {
 public:
  // Throws Error naming the problem when the sets (plus `extra_bytes` the caller needs beside them) would not fit
  // in the GPU's free memory.
  Operands(const Problem& p, int sets, int64_t extra_bytes);

  // Fresh random A and B in every set (uniform in [-1, 1), drawn from `seed`), and NaN in every C.
  void fill(uint64_t seed, cudaStream_t stream);
  void poison_outputs(cudaStream_t stream);
  void poison_output(int set, cudaStream_t stream);  // NaN in C of one set: an unwritten element stays NaN

  const OperandSet& set(int i) const { return sets_[size_t(i)]; }
  int count() const { return int(sets_.size()); }
  int64_t working_set_bytes() const;
  const Problem& problem() const { return problem_; }

 private:
  Problem problem_;
  std::vector<OperandSet> sets_;
};

}  // namespace tilewise::device
