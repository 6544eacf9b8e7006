// libFuzzer harness: a receipt's JSON through the checker (receipt/check.hpp), which reads every field and recomputes
// every derived figure.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "core/json.hpp"
#include "receipt/check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilewise::receipt::check(tilewise::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz"));
  } catch (const tilewise::Error&) {
  }
  return 0;
}
