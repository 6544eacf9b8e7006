// libFuzzer harness: the suite parser (core/suite.hpp) on arbitrary text, every problem it accepts validated, and
// every name read as a sweep problem's (core/sweep.hpp: sweep_problem_named, which reports read receipts' names with).
#include <cstddef>
#include <cstdint>
#include <sstream>

#include "core/error.hpp"
#include "core/suite.hpp"
#include "core/sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    for (const tilewise::SuiteEntry& e : tilewise::parse_suite(in, "fuzz.txt").entries) {
      const tilewise::Problem p = tilewise::make_problem(e.name, e.M, e.N, e.K, e.dtype.value_or(tilewise::DType::bf16),
                                                         e.layout.value_or(tilewise::Layout::TN), e.pad);
      tilewise::sweep_problem_named(e.name);
      try {
        tilewise::validate(p);
        tilewise::min_traffic_bytes(p);
      } catch (const tilewise::Error&) {
      }
    }
  } catch (const tilewise::Error&) {
  }
  return 0;
}
