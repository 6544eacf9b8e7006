// libFuzzer harness: configuration text through every family's parser (families/registry.hpp parse_config, the one
// the databases, campaigns, receipts and arm names reach), an arm's overrides laid over what it accepts
// (families/fields.hpp overlay), and the canonical text read back: it must parse to itself. The input's first line is
// the configuration, the rest the overrides.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "families/fields.hpp"
#include "families/registry.hpp"

namespace {

// A canonical configuration that does not read back as itself is a parser bug: stop the fuzzer on it.
void require_fixed_point(const std::string& family, const std::string& canonical) {
  const std::string again = tilewise::families::parse_config(family, canonical);
  if (again != canonical) {
    std::fprintf(stderr, "%s: '%s' reads back as '%s'\n", family.c_str(), canonical.c_str(), again.c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view text = input.substr(0, newline);
  const std::string_view overrides = newline == std::string_view::npos ? "" : input.substr(newline + 1);
  try {
    tilewise::families::to_string(tilewise::families::parse_fields(text));
  } catch (const tilewise::Error&) {
  }
  for (const std::string& family : tilewise::families::family_names()) {
    try {
      const std::string canonical = tilewise::families::parse_config(family, text);
      require_fixed_point(family, canonical);
      const std::string changed = tilewise::families::overlay(canonical, overrides, "fuzz arm");
      require_fixed_point(family, tilewise::families::parse_config(family, changed));
    } catch (const tilewise::Error&) {
    }
  }
  return 0;
}
