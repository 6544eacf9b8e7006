// The one registry of families: found by name, each family's configurations parsed through it with one error form,
// its arms its own, and no layer above the families dispatching on a family's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include "core/error.hpp"
#include "expect_error.hpp"
#include "families/registry.hpp"

namespace tilewise::families {
namespace {

using testkit::Contains;
using testkit::error_of;

TEST(Registry, EveryFamilyIsFoundByItsNameAndAnUnknownOneIsNamed) {
  ASSERT_FALSE(all_families().empty());
  std::set<std::string> names;
  for (const Family* f : all_families()) {
    EXPECT_EQ(&family(f->name()), f);
    EXPECT_EQ(find_family(f->name()), f);
    EXPECT_TRUE(names.insert(std::string(f->name())).second) << f->name() << " registered twice";
  }
  EXPECT_EQ(find_family("tpu"), nullptr);
  EXPECT_EQ(error_of([] { family("tpu"); }), "unknown family 'tpu' (known: gemv, sm90, cublaslt)");
  EXPECT_EQ(vendor_family().name(), "cublaslt");
  EXPECT_EQ(rule_arms(), (std::map<std::string, std::string>{{"gemv", "gemv"}, {"sm90", "sm90"}}));
}

// The parsers' entry point: canonical text back, or an error naming the family, the field and the value.
TEST(Registry, ParseConfigCanonicalizesOrNamesTheFieldAndTheValue) {
  EXPECT_EQ(parse_config("sm90", "stages=5,block_m=64"),
            "block_m=64,block_n=128,stages=5,consumers=2,raster=m,group=8,store=direct,schedule=cooperative,"
            "cluster=1x1,split=1");
  EXPECT_EQ(parse_config("cublaslt", "algo=66"),
            "algo=66,tile=0,stages=0,splitk=1,reduction=0,swizzle=0,custom=0,inner=0,cluster=0");
  EXPECT_EQ(parse_config("gemv", "m=1,w=bf16,x=bf16,threads=256,cols=2,ksplit=1,unroll=4,hint=na,persistent=0"),
            "m=1,w=bf16,x=bf16,engine=fma,threads=256,cols=2,ksplit=1,unroll=4,hint=na,persistent=0,pdl=0");
  EXPECT_EQ(error_of([] { parse_config("sm90", "block_m=1e3"); }), "sm90 config 'block_m=1e3': block_m=1e3 is not an integer");
  EXPECT_EQ(error_of([] { parse_config("sm90", "store=tmem"); }),
            "sm90 config 'store=tmem': store=tmem is not one of tma, tma_ring, direct, staged");
  EXPECT_EQ(error_of([] { parse_config("cublaslt", "algo=66,cluster=70000"); }),
            "cublaslt config 'algo=66,cluster=70000': cluster=70000 is not an integer in 0..65535");
  EXPECT_EQ(error_of([] { parse_config("gemv", "m=1"); }), "gemv config 'm=1': w is required");
  EXPECT_EQ(error_of([] { parse_config("tpu", "a=1"); }), "unknown family 'tpu' (known: gemv, sm90, cublaslt)");
  // Hostile text: separators alone, stray bytes, a huge number, a key without a value.
  for (const std::string& family : family_names())
    for (const std::string& text : std::vector<std::string>{",", "=", "==", ",,", "a", "a=1,", std::string("block_m=\0", 9),
                                                          "\xff=\xfe", "block_m=99999999999999999999999999", "algo=",
                                                          "m=-0"}) {
      SCOPED_TRACE(family + " '" + text + "'");
      EXPECT_TRUE(Contains(error_of([&] { parse_config(family, text); }), family + " config '"));
    }
}

// What every family's canonical text reads back as, its tuner form included.
TEST(Registry, CanonicalTextIsAFixedPointAndTheTunersFormReadsBack) {
  const Problem p = make_problem("dec", 4, 4096, 4096, DType::bf16, Layout::TN);
  for (const Family* f : all_families()) {
    SCOPED_TRACE(std::string(f->name()));
    const std::string config = f->rule(p, 132).value_or(f == &vendor_family() ? "algo=66,tile=28" : "");
    ASSERT_FALSE(config.empty());
    const std::string canonical = f->canonical(config);
    EXPECT_EQ(f->canonical(canonical), canonical);
    EXPECT_EQ(f->canonical(to_string(f->tuner_fields(canonical))), canonical);
    EXPECT_EQ(keys(f->tuner_fields(canonical)), f->field_names());
    EXPECT_FALSE(f->describe(canonical).empty());
  }
}

TEST(Registry, EachArmBelongsToExactlyOneFamily) {
  for (const Family* f : all_families())
    for (const std::string& name : f->arm_names()) {
      if (name.find('<') != std::string::npos) continue;  // a pattern, such as sm90:<config>
      SCOPED_TRACE(name);
      EXPECT_NE(f->make_arm(name), nullptr);
      for (const Family* other : all_families())
        if (other != f) EXPECT_EQ(other->make_arm(name), nullptr);
    }
}

// docs/design.md: families live in one registry, and no layer above them dispatches on a family's name. A
// comparison against a family's name (or a name it prefixes, as its arms' are) anywhere in src/ outside
// src/families/ is such a dispatch.
TEST(Registry, NoLayerAboveTheFamiliesComparesAgainstAFamilysName) {
  namespace fs = std::filesystem;
  const fs::path src = fs::path(TILEWISE_SOURCE_DIR) / "src";
  ASSERT_TRUE(fs::is_directory(src)) << src;
  std::string names;
  for (const std::string& n : family_names()) names += (names.empty() ? "" : "|") + n;
  // A literal that is a family's name, or one it begins ("sm90:sweep", "cublaslt-default").
  const std::string literal = "\"(" + names + ")([:@-][^\"]*)?\"";
  const std::regex compared("(==|!=)\\s*" + literal + "|" + literal + "\\s*(==|!=)|(starts_with|find|rfind|compare)\\(\\s*" +
                            literal + "|IsMember\\(\\{[^}]*" + literal);
  std::vector<std::string> found;
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(src)) {
    const fs::path& path = entry.path();
    const std::string rel = fs::relative(path, src).generic_string();
    if (!entry.is_regular_file() || rel.starts_with("families/")) continue;
    ++files;
    std::ifstream in(path);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (std::regex_search(line, compared)) found.push_back("src/" + rel + ":" + std::to_string(n) + ": " + line);
  }
  EXPECT_GT(files, 50);
  std::string list;
  for (const std::string& f : found) list += f + "\n";
  EXPECT_TRUE(found.empty()) << "dispatch on a family's name outside src/families/ (ask families/registry.hpp):\n"
                             << list;
  // The check itself finds what it is for.
  EXPECT_TRUE(std::regex_search("  if (c.family == \"sm90\") return x;", compared));
  EXPECT_TRUE(std::regex_search("  if (name.starts_with(\"gemv:\"))", compared));
  EXPECT_TRUE(std::regex_search("  return \"cublaslt\" != family;", compared));
  EXPECT_TRUE(std::regex_search("->check(CLI::IsMember({\"sm90\", \"cublaslt\", \"gemv\"}));", compared));
  EXPECT_FALSE(std::regex_search("  std::vector<std::string> arms{\"cublaslt\", \"cublaslt-default\"};", compared));
}

}  // namespace
}  // namespace tilewise::families
