#pragma once
#include <stdexcept>
#include <string>

namespace tilewise {

// Every error a user can cause (bad shape, bad file, unsupported combination) is an Error whose message names
// the problem; the CLI prints it and exits non-zero instead of crashing.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tilewise
