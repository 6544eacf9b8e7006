// libFuzzer harness: a protocol's TOML through its reader (protocol/protocol.hpp). Suites it names are read relative to
// the working directory (the repository root in scripts/ci-hardening.sh).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "protocol/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilewise::protocol::parse_protocol(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  } catch (const tilewise::Error&) {
  }
  return 0;
}
