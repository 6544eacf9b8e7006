#pragma once
// What the library throws: tilewise::Error, and Unsupported for a valid request no kernel family serves.
#include <stdexcept>
#include <string>

#include "tilewise/export.hpp"

namespace tilewise {

// Every error a user can cause (bad shape, bad file, unsupported combination) is an Error whose message names
// the problem; the CLI prints it and exits non-zero instead of crashing.
class TILEWISE_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A valid problem that a kernel family declines (cuBLASLt has no fp8 kernel for M = 4, say): a fact about the
// family, reported as a skipped case rather than a failed measurement.
class TILEWISE_API Unsupported : public Error {
 public:
  using Error::Error;
};

}  // namespace tilewise
