#pragma once
// What measured a tuned result: the GPU and the software that built and timed its kernels. A time measured under one
// identity says nothing about another (a driver or cuBLASLt update changes the vendor's kernels, another GPU changes
// everything), so a database carries the identity of each entry and is refused where it does not match.
#include <optional>
#include <string>
#include <vector>

#include "receipt/receipt.hpp"
#include "select/json_file.hpp"

namespace tilewise::select {

struct Identity {
  std::string gpu;
  int sm_count = 0;
  std::string cc, driver, cuda_runtime, cublaslt, nvrtc;
  std::string tilewise;  // the tool's version
  bool operator==(const Identity&) const = default;
};

// The receipt's machine description with the tool's version beside it.
Identity identity_of(const receipt::Machine& m, std::string tilewise_version);

// Every field that differs, as "gpu: 'NVIDIA H100' recorded, 'NVIDIA H200' running; ..."; nothing when they match.
std::optional<std::string> mismatch(const Identity& a, const Identity& b, std::string_view a_is = "recorded",
                                    std::string_view b_is = "running");

// The identity policy (docs/design.md): a time measured on another GPU (name, SM count, compute capability) or under
// another cuBLASLt major version says nothing here, so such a difference refuses; a driver, runtime, NVRTC, cuBLASLt
// minor or tilewise difference moves times a little and is let through with a warning the caller records.
struct Compatibility {
  std::vector<std::string> refuse;  // "gpu: 'NVIDIA H100' recorded, 'NVIDIA H200' running", one per field
  std::vector<std::string> warn;
};
Compatibility compatibility(const Identity& recorded, const Identity& running);

nlohmann::json to_json(const Identity& id);
Identity parse_identity(const At& at);  // throws Error naming the JSON pointer of a missing or mistyped field

}  // namespace tilewise::select
