#pragma once
// What the subcommands share: numbers checked as they are parsed, so that a bad value is refused before any file is
// read or any GPU work starts (a benchmark's warm-up alone takes 10 s; CLI11's Range lets NaN through, as every
// comparison with it is false, and takes inf), and the groups that say which commands need a GPU.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace tilewise::cli {

// A finite number of at least `low` (`strictly`: above it).
inline CLI::Validator finite_number(double low = -HUGE_VAL, bool strictly = false) {
  const std::string rule =
      std::isinf(low) ? "a finite number" : fmt::format("a finite number {} {}", strictly ? ">" : ">=", low);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0') return "";  // not a number at all: the conversion says so
        if (!std::isfinite(v) || v < low || (strictly && v == low)) return fmt::format("{} is not {}", text, rule);
        return "";
      },
      rule);
}

// A whole number of at least 1.
inline const CLI::Validator& at_least_one() {
  static const CLI::Validator v = CLI::Range(1, std::numeric_limits<int>::max());
  return v;
}

// A whole number of type T from `low` up, checked as text (a seed, a weight file's shape): CLI11's conversion alone
// wraps -1 into an unsigned type and clamps past the type's range, so that two values would give one run or a size
// nobody typed.
template <typename T>
CLI::Validator whole(T low = std::numeric_limits<T>::min()) {
  const std::string range = fmt::format("{} .. {}", low, std::numeric_limits<T>::max());
  return CLI::Validator(
      [range, low](std::string& text) -> std::string {
        T v{};
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < low)
          return fmt::format("{} is not a whole number in {}", text, range);
        return "";
      },
      range);
}

// Help groups: `tilewise --help` lists each command under one, and `tilewise info` names the first's where no GPU is
// found. A command is in kNoGpu only where it runs whole without one (tests/cli/cli_test.cpp runs each).
inline const std::string kNoGpu = "Commands that need no GPU";
inline const std::string kGpu = "Commands that need a GPU";

// The commands of `app` in `group`, a command's own subcommands named after it ("db merge").
inline std::vector<std::string> commands_in(const CLI::App& app, const std::string& group) {
  std::vector<std::string> out;
  const auto named = [](const CLI::App* s) { return !s->get_name().empty(); };
  for (const CLI::App* sub : app.get_subcommands([&](const CLI::App* s) { return named(s) && s->get_group() == group; })) {
    const std::vector<const CLI::App*> inner = sub->get_subcommands(named);
    if (inner.empty()) out.push_back(sub->get_name());
    for (const CLI::App* i : inner) out.push_back(sub->get_name() + " " + i->get_name());
  }
  return out;
}

}  // namespace tilewise::cli
