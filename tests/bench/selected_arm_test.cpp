// The arm `selected`'s names: each form the library can run, and a clear error for a file it names that is not there.
#include "bench/selected_arm.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"

namespace tilewise::bench {
namespace {

std::string error_of(const std::string& name) {
  try {
    make_selected_arm(name);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SelectedArm, EveryFormIsAnArmAndOtherNamesAreNot) {
  const std::string floor = std::string(TILEWISE_SOURCE_DIR) + "/data/floor-h200.json";
  for (const std::string& name : {std::string("selected"), std::string("selected:floor"), "selected:floor:" + floor}) {
    const auto arm = make_selected_arm(name);
    ASSERT_NE(arm, nullptr) << name;
    EXPECT_EQ(arm->name(), name);
  }
  EXPECT_EQ(make_selected_arm("cublaslt"), nullptr);
  EXPECT_EQ(make_selected_arm("selectedx"), nullptr);
}

TEST(SelectedArm, AFileItNamesMustExist) {
  const std::string missing = (std::filesystem::temp_directory_path() / "tilewise-no-such-file.json").string();
  EXPECT_NE(error_of("selected:floor:" + missing).find("no floor at '" + missing + "'"), std::string::npos);
  EXPECT_NE(error_of("selected:floor:").find("no floor at ''"), std::string::npos);
  EXPECT_NE(error_of("selected:" + missing).find("no database at '" + missing + "'"), std::string::npos);
  EXPECT_NE(error_of("selected:tune:").find("name the database first-use tuning keeps"), std::string::npos);
}

}  // namespace
}  // namespace tilewise::bench
