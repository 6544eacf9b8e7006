// The arm `selected`'s names: each form the library can run, and a clear error for a file it names that is not there.
#include "bench/selected_arm.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

// A floor file that is not one is refused when the arm is made, with the reader's reason, not on the GPU.
TEST(SelectedArm, AFloorFileIsReadWhenTheArmIsMade) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  EXPECT_NE(error_of("selected:floor:" + dir.string()).find("is a folder, not a file"), std::string::npos);
  const std::string not_json = (dir / "tilewise-selected-arm-not-a-floor.json").string();
  std::ofstream(not_json) << "{\"schema\": \"tilewise.database/1\"}";
  EXPECT_NE(error_of("selected:floor:" + not_json).find("is not tilewise.floor/2"), std::string::npos)
      << error_of("selected:floor:" + not_json);
  std::filesystem::remove(not_json);
}

// bench -o is checked against every file a run reads; the arm reports the files its name gives, so that no caller
// parses an arm's name a second time.
TEST(SelectedArm, ReportsTheFilesItsNameGives) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string floor = std::string(TILEWISE_SOURCE_DIR) + "/data/floor-h200.json";
  const std::string db = (dir / "tilewise-selected-arm-inputs-db.json").string();
  std::ofstream(db) << "{}";  // made, not read: the arm reads its database on the GPU
  const std::string kept = (dir / "tilewise-selected-arm-inputs-tune.json").string();
  EXPECT_EQ(make_selected_arm("selected")->inputs(), std::vector<std::string>{});
  EXPECT_EQ(make_selected_arm("selected:floor")->inputs(), std::vector<std::string>{});
  EXPECT_EQ(make_selected_arm("selected:floor:" + floor)->inputs(), std::vector<std::string>{floor});
  EXPECT_EQ(make_selected_arm("selected:" + db)->inputs(), std::vector<std::string>{db});
  EXPECT_EQ(make_selected_arm("selected:tune:" + kept)->inputs(), std::vector<std::string>{kept});
  std::filesystem::remove(db);
}

}  // namespace
}  // namespace tilewise::bench
