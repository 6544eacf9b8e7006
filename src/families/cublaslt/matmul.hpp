#pragma once
// The vendor family: one problem's cuBLASLt descriptors, the heuristic's candidates as Config values, and a launch.
#include <cublasLt.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/problem.hpp"
#include "device/cuda.hpp"
#include "families/cublaslt/config.hpp"

namespace tilewise::cublaslt {

// The handle and the one workspace every call shares (allocated once, as a fair vendor arm needs).
class Context {
 public:
  explicit Context(size_t workspace_bytes = size_t(64) << 20);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }
  size_t workspace_bytes() const { return workspace_.bytes(); }

 private:
  cublasLtHandle_t handle_ = nullptr;
  device::Buffer workspace_;
};

struct Candidate {
  cublasLtMatmulAlgo_t algo;
  Config config;
  size_t workspace_bytes = 0;
  std::array<uint32_t, 3> alignment{};  // the bytes the algorithm needs A, B and C (and D) aligned to; run checks
};

class Matmul {
 public:
  Matmul(const Context& ctx, const Problem& p);
  ~Matmul();
  Matmul(const Matmul&) = delete;
  Matmul& operator=(const Matmul&) = delete;

  // The heuristic's candidates, best-ranked first (the first is what torch.mm would run).
  std::vector<Candidate> heuristic(int requested = 32) const;
  // The configuration space behind the heuristic (families/cublaslt/space.hpp): every algorithm id cuBLASLt has for
  // the problem's types, one initialized with its defaults, and the algorithm a Config names, set attribute by
  // attribute and checked for this problem. Unsupported with cuBLASLt's reason when the check refuses it or it needs
  // more workspace than the context has; so a configuration read back from a database runs as it was tuned.
  std::vector<int> algo_ids() const;
  cublasLtMatmulAlgo_t init(int algo_id) const;
  Candidate configured(const Config& c) const;
  void run(const Candidate& c, const void* A, const void* B, void* C, cudaStream_t stream) const;

 private:
  const Context& ctx_;
  Problem p_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
};

// Reads every configuration attribute of an algorithm.
Config decode(const cublasLtMatmulAlgo_t& algo);

}  // namespace tilewise::cublaslt
