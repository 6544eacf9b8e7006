// libFuzzer harness: arbitrary bytes through the inflate that reads x.json.gz (core/gzip.hpp), under a bound small
// enough that a stream inflating past it is found within the run; an output over the bound aborts.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "core/gzip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr int64_t kBound = 1 << 20;
  try {
    const std::string out =
        tilewise::gunzip(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz", kBound);
    if (int64_t(out.size()) > kBound) std::abort();
  } catch (const tilewise::Error&) {
  }
  return 0;
}
