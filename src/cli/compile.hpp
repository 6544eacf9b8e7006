#pragma once
// `tilewise compile`: builds sm90 configurations (with --first-rule, every family's rule) for a suite's problems
// without a GPU and reports what ptxas
// made of each (registers, spills, stack frame, shared memory).
#include <string>
#include <vector>

#include "core/problem.hpp"

namespace tilewise::cli {

struct CompileOptions {
  std::vector<std::string> suites;
  std::vector<DType> dtypes;
  std::vector<Layout> layouts;
  std::vector<std::string> only;
  bool first_rule_only = false;  // only each family's rule for each problem (sm90's first rule, gemv's default)
  bool first_use = false;        // the kernels first-use tuning builds: the rules and sm90's other rule candidates
  bool sweep = false;            // what `sm90:sweep` times: sm90's rule candidates and the rungs not rated yet
  std::vector<std::string> configs;  // only these configurations (where feasible), e.g. a tuner's candidates
  int every = 1;                 // keep every n-th configuration of the feasible set (a spread-out subset)
  bool all = false;              // the whole feasible set, however large (past 1,000 instantiations, only so)
  std::string cubin_dir;         // when set, each cubin is written there (for cuobjdump -sass / nvdisasm)
  bool overwrite = false;        // replace cubins already in cubin_dir
};

// Returns the exit status: 0 when everything built without spills, local memory or serialized wgmma, 1 otherwise.
int run_compile(const CompileOptions& o);

}  // namespace tilewise::cli
