// Every committed protocol (protocols/*.toml) parses: its arms exist and its metrics are known. Caught here, before
// it is committed and a GPU run refuses it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "protocol/protocol.hpp"

namespace tilewise::protocol {
namespace {

// Suite paths in a protocol are relative to the repository root, where the bench runs.
struct InRoot {
  std::filesystem::path was = std::filesystem::current_path();
  InRoot() { std::filesystem::current_path(TILEWISE_SOURCE_DIR); }
  ~InRoot() { std::filesystem::current_path(was); }
};

TEST(CommittedProtocols, EveryOneParses) {
  InRoot root;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator("protocols")) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(load_protocol(entry.path().string()));  // the loader refuses a file without predictions
    ++files;
  }
  EXPECT_GE(files, 3);
}

TEST(DecodeGemvProtocol, Parses) {
  const ProtocolFile pf = [] {
    InRoot root;
    return load_protocol("protocols/decode-gemv.toml");
  }();
  EXPECT_EQ(pf.instrument.only, std::vector<std::string>{"dec_m1_12288"});
  EXPECT_TRUE(pf.instrument.cold);
  EXPECT_EQ(pf.instrument.repeats, 10);
  EXPECT_GE(pf.predictions.size(), 6u);
  for (const std::string& arm : {"gemv:bf16", "gemv:int8", "gemv:int4", "gemv:fp8", "cublaslt"})
    EXPECT_NE(std::find(pf.instrument.arms.begin(), pf.instrument.arms.end(), arm), pf.instrument.arms.end()) << arm;
}

}  // namespace
}  // namespace tilewise::protocol
