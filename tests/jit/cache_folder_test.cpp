// The cache runs only what it built: its folder private and its own, every entry verified under the folder's secret
// key, and nothing but a plain file of the user's ever read. Each hostile entry below is rebuilt and replaced.
#include "jit/cache_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>

#include "expect_error.hpp"
#include "jit/cache.hpp"
#include "temp_dir.hpp"

namespace tilewise::jit {
namespace {

namespace fs = std::filesystem;
using testkit::Contains;
using testkit::error_of;

KernelBuild stream_read() { return {"stream_read.cuh", "tilewise::kernels::stream_read", "test", "sm_90a", {}}; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void put(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

class CacheFolderTest : public ::testing::Test {
 protected:
  void SetUp() override { use(root_ / "cache"); }
  void TearDown() override { unsetenv("TILEWISE_CACHE_DIR"); }
  void use(const fs::path& dir) {
    dir_ = dir;
    setenv("TILEWISE_CACHE_DIR", dir_.c_str(), 1);
  }
  fs::path entry() const { return dir_ / (cache_key(stream_read()) + ".cubin"); }
  // A first build, whose entry the tests then tamper with.
  Built first() {
    const Built b = build(stream_read());
    EXPECT_FALSE(b.from_cache);
    EXPECT_TRUE(fs::is_regular_file(entry()));
    return b;
  }
  // The build after the tampering must compile again, give the real kernel, and leave a good entry behind.
  void expect_rebuilt(const Built& real) {
    auto later = std::async(std::launch::async, [] { return build(stream_read()); });
    ASSERT_EQ(later.wait_for(std::chrono::seconds(120)), std::future_status::ready) << "the build hung";
    const Built again = later.get();
    EXPECT_FALSE(again.from_cache) << "a hostile entry was loaded";
    EXPECT_EQ(again.cubin, real.cubin);
    EXPECT_EQ(again.usage.registers, real.usage.registers);
    EXPECT_FALSE(fs::is_symlink(entry()));
    EXPECT_TRUE(fs::is_regular_file(entry()));
    EXPECT_TRUE(build(stream_read()).from_cache) << "the rebuilt entry replaced the hostile one";
  }
  testkit::TempDir temp_;
  const fs::path& root_ = temp_.path();
  fs::path dir_;
};

// The reference vector of the SipHash paper (appendix A): key 00..0f, message 00..0e.
TEST(SipHash, MatchesThePapersTestVector) {
  std::string key, message;
  for (int i = 0; i < 16; ++i) key += char(i);
  for (int i = 0; i < 15; ++i) message += char(i);
  EXPECT_EQ(siphash24(key, message), 0xa129ca6149be45e5ull);
}

TEST_F(CacheFolderTest, ANewFolderIsPrivateWhateverTheUmask) {
  const mode_t old = umask(0);
  first();
  umask(old);
  EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all);
  EXPECT_EQ(fs::status(dir_ / "key").permissions(), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::status(entry()).permissions() & (fs::perms::group_all | fs::perms::others_all), fs::perms::none);
}

TEST_F(CacheFolderTest, AFolderOthersCanWriteIsRefusedAndOneOthersCanReadIsMadePrivate) {
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::all);
  EXPECT_TRUE(Contains(error_of([] { build(stream_read()); }), "can be written by others (mode 0777)"));
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
  first();
  EXPECT_EQ(fs::status(dir_).permissions(), fs::perms::owner_all);
}

TEST_F(CacheFolderTest, AFolderOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "only root can give a folder to another user";
  fs::create_directories(dir_);
  ASSERT_EQ(chown(dir_.c_str(), 4242, 4242), 0);
  EXPECT_TRUE(Contains(error_of([] { build(stream_read()); }), "belongs to uid 4242, not to you"));
}

TEST_F(CacheFolderTest, WithoutHomeTheCacheIsInTheUsersOwnHomeNotATemporaryFolder) {
  unsetenv("TILEWISE_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const std::string saved = home ? home : "";
  unsetenv("HOME");
  const fs::path dir = cache_dir();
  if (!saved.empty()) setenv("HOME", saved.c_str(), 1);
  EXPECT_EQ(dir.filename(), "tilewise");
  EXPECT_NE(dir.string().rfind(fs::temp_directory_path().string(), 0), 0u) << dir;
}

TEST_F(CacheFolderTest, AnEditedEntryIsRebuilt) {
  const Built real = first();
  // A forged log (fewer registers), then forged cubin bytes: the entry's digest no longer verifies.
  std::string bytes = slurp(entry());
  const size_t at = bytes.find(fmt::format("Used {} registers", real.usage.registers));
  ASSERT_NE(at, std::string::npos);
  put(entry(), bytes.replace(at, 5 + std::to_string(real.usage.registers).size(), "Used 1"));
  expect_rebuilt(real);
  bytes = slurp(entry());
  for (size_t i = bytes.size() - 64; i < bytes.size(); ++i) bytes[i] = 'X';
  put(entry(), bytes);
  expect_rebuilt(real);
}

// An entry another cache wrote (another user's, a copy from another machine) is whole and well formed, but was
// not made under this folder's key. The unkeyed checksum of the first format let such an entry in.
TEST_F(CacheFolderTest, AnEntryFromAnotherCacheIsRebuilt) {
  use(root_ / "elsewhere");
  const Built real = first();
  const fs::path foreign = entry();
  use(root_ / "cache");
  first();
  fs::copy_file(foreign, entry(), fs::copy_options::overwrite_existing);
  expect_rebuilt(real);
}

TEST_F(CacheFolderTest, AFifoEntryNeitherHangsNorIsLoaded) {
  const Built real = first();
  fs::remove(entry());
  ASSERT_EQ(mkfifo(entry().c_str(), 0600), 0);
  expect_rebuilt(real);
}

TEST_F(CacheFolderTest, LinkedEntriesAreNotFollowed) {
  const Built real = first();
  const fs::path copy = root_ / "copy.cubin";
  fs::copy_file(entry(), copy);
  for (const fs::path& target : {copy, fs::path("/dev/zero")}) {
    SCOPED_TRACE(target.string());
    fs::remove(entry());
    fs::create_symlink(target, entry());
    expect_rebuilt(real);
  }
  fs::remove(entry());
  fs::create_hard_link(copy, entry());  // a second name of a file the folder does not own alone
  expect_rebuilt(real);
}

TEST_F(CacheFolderTest, AnOversizeEntryIsNotReadIntoMemory) {
  const Built real = first();
  ASSERT_EQ(truncate(entry().c_str(), int64_t(16) << 30), 0);  // sparse
  expect_rebuilt(real);
}

// The first writer opened "<entry>.tmp.<pid>.<n>" with truncation: a link planted there made a build overwrite the
// link's target. Temporary names are now random and created exclusively.
TEST_F(CacheFolderTest, APlantedTemporaryLinkIsNotWrittenThrough) {
  fs::create_directories(dir_);
  fs::permissions(dir_, fs::perms::owner_all);
  const fs::path victim = root_ / "victim.txt";
  put(victim, "precious");
  for (int n = 0; n < 4; ++n)
    fs::create_symlink(victim, entry().string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(n));
  const Built b = build(stream_read());
  EXPECT_FALSE(b.from_cache);
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_TRUE(build(stream_read()).from_cache);
}

TEST_F(CacheFolderTest, AKeyThatIsNotTheCachesOwnIsRefused) {
  first();
  fs::permissions(dir_ / "key", fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read);
  EXPECT_TRUE(Contains(error_of([] { build(stream_read()); }), "is not a key this cache made"));
  fs::remove(dir_ / "key");
  fs::create_symlink(root_ / "elsewhere-key", dir_ / "key");
  EXPECT_TRUE(Contains(error_of([] { build(stream_read()); }), "is not a key this cache made"));
}

}  // namespace
}  // namespace tilewise::jit
