// libFuzzer harness: a floor's JSON through its reader and the families' rules it asks (select/floor.hpp, load_floor).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "core/json.hpp"
#include "select/floor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilewise::select::load_floor(
        tilewise::parse_json(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz"), "fuzz");
  } catch (const tilewise::Error&) {
  }
  return 0;
}
