#include "families/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "families/cublaslt/family.hpp"
#include "families/gemv/family.hpp"
#include "families/sm90/family.hpp"

namespace tilewise::families {

const std::vector<const Family*>& all_families() {
  static const std::vector<const Family*> all = {&gemv::family(), &sm90::family(), &cublaslt::family()};
  return all;
}

std::vector<std::string> family_names() {
  std::vector<std::string> out;
  for (const Family* f : all_families()) out.emplace_back(f->name());
  return out;
}

const Family* find_family(std::string_view name) {
  for (const Family* f : all_families())
    if (f->name() == name) return f;
  return nullptr;
}

const Family& family(std::string_view name) {
  if (const Family* f = find_family(name)) return *f;
  throw Error(fmt::format("unknown family '{}' (known: {})", name, fmt::join(family_names(), ", ")));
}

const Family& vendor_family() { return cublaslt::family(); }

std::map<std::string, std::string> rule_arms() {
  std::map<std::string, std::string> out;
  for (const Family* f : all_families())
    if (f != &vendor_family()) out.emplace(f->name(), f->name());
  return out;
}

std::string parse_config(std::string_view name, std::string_view text) { return family(name).canonical(text); }

}  // namespace tilewise::families
