// libFuzzer harness: a packed weight file through its reader (families/gemv/weight_file.hpp), and the weights of one
// it accepts dequantized.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "families/gemv/weight_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilewise::gemv::dequantize_cpu(
        tilewise::gemv::parse_packed(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.tww"));
  } catch (const tilewise::Error&) {
  }
  return 0;
}
