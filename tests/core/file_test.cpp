// The one way files are read and written: inputs regular and bounded, outputs exclusive, atomic and never over an
// input or an existing file unless asked.
#include "core/file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "core/json.hpp"
#include "expect_error.hpp"
#include "temp_dir.hpp"

namespace tilewise::files {
namespace {

namespace fs = std::filesystem;
using testkit::Contains;
using testkit::error_of;

class Files : public ::testing::Test {
 protected:
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string put(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  testkit::TempDir temp_;
  const fs::path& dir_ = temp_.path();
};

TEST_F(Files, ReadsARegularFileWhole) {
  EXPECT_EQ(read(put("a.txt", std::string("x\0y", 3))), std::string("x\0y", 3));
  EXPECT_EQ(read(put("empty.txt", "")), "");
}

TEST_F(Files, RefusesWhatIsNotARegularFileByName) {
  fs::create_directory(dir_ / "folder");
  EXPECT_TRUE(Contains(error_of([&] { read(path("folder")); }), "folder: is a folder, not a file"));
  EXPECT_TRUE(Contains(error_of([&] { read(path("absent")); }), "absent: cannot open (No such file or directory)"));
  EXPECT_TRUE(Contains(error_of([&] { read("/dev/zero"); }), "/dev/zero: is a device, not a file"));
}

TEST_F(Files, AFifoIsRefusedWithoutWaitingForAWriter) {
  ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
  auto result = std::async(std::launch::async, [&] { return error_of([&] { read(path("fifo")); }); });
  ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the read blocked on the FIFO";
  EXPECT_TRUE(Contains(result.get(), "is a FIFO, not a file"));
}

TEST_F(Files, AFileOverTheLimitIsRefusedBeforeItIsRead) {
  const std::string big = put("big.json", "");
  ASSERT_EQ(truncate(big.c_str(), int64_t(8) << 30), 0);  // sparse: 8 GiB on paper, nothing on disk
  EXPECT_TRUE(Contains(error_of([&] { read(big); }), "holds 8589934592 bytes, over the limit of 1073741824"));
  EXPECT_TRUE(Contains(error_of([&] { read(put("ten.txt", "0123456789"), 9); }), "over the limit of 9"));
}

TEST_F(Files, LinksAreFollowedOnlyWhereAllowed) {
  put("target.txt", "t");
  fs::create_symlink(dir_ / "target.txt", dir_ / "link.txt");
  EXPECT_EQ(read(path("link.txt")), "t");
  EXPECT_TRUE(Contains(error_of([&] { open_regular(AT_FDCWD, path("link.txt"), "link", Links::refuse); }),
                       "link: is a symbolic link"));
}

TEST_F(Files, WriteRefusesAnExistingFileUnlessAskedToReplaceIt) {
  const std::string out = put("out.json", "old");
  EXPECT_TRUE(Contains(error_of([&] { write(out, "new", Existing::refuse); }),
                       "out.json exists; it is replaced only with --overwrite"));
  EXPECT_EQ(slurp(out), "old");
  write(out, "new", Existing::replace);
  EXPECT_EQ(slurp(out), "new");
  write(path("fresh.json"), "fresh", Existing::refuse);
  EXPECT_EQ(slurp(path("fresh.json")), "fresh");
  // Nothing but the outputs is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 2);
}

TEST_F(Files, WriteRefusesADanglingLinkAtTheOutputAndDoesNotWriteThroughIt) {
  fs::create_symlink(dir_ / "elsewhere.txt", dir_ / "out.json");
  EXPECT_TRUE(Contains(error_of([&] { write(path("out.json"), "x", Existing::refuse); }), "exists"));
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere.txt"));
  // Replacing replaces the link itself, never the file it points at.
  put("victim.txt", "precious");
  fs::remove(dir_ / "out.json");
  fs::create_symlink(dir_ / "victim.txt", dir_ / "out.json");
  write(path("out.json"), "x", Existing::replace);
  EXPECT_EQ(slurp(path("victim.txt")), "precious");
  EXPECT_FALSE(fs::is_symlink(dir_ / "out.json"));
}

TEST_F(Files, AnOutputNeverReplacesAFifoOrADeviceEvenWhenAskedTo) {
  // `-o /dev/null --overwrite` once replaced the device with a file: every writer and check_output refuse it.
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  for (Existing existing : {Existing::refuse, Existing::replace}) {
    EXPECT_TRUE(Contains(error_of([&] { write(path("fifo"), "x", existing); }),
                         "fifo: is a FIFO, not a file; an output replaces only a file"));
    EXPECT_TRUE(Contains(error_of([&] { check_output(path("fifo"), existing); }), "is a FIFO, not a file"));
    EXPECT_TRUE(Contains(error_of([&] { check_output("/dev/null", existing); }), "/dev/null: is a device, not a file"));
  }
  struct stat st {};
  ASSERT_EQ(::lstat(path("fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// `-o /dev/stdout --overwrite` would have replaced the system's link with a file: a link to a device or a FIFO is
// refused as what it points at is, while a link to a file (or to nothing) is still replaced, the link itself.
TEST_F(Files, AnOutputNeverReplacesALinkToAFifoOrADevice) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  fs::create_symlink("/dev/null", dir_ / "to-device");
  fs::create_symlink(dir_ / "fifo", dir_ / "to-fifo");
  for (Existing existing : {Existing::refuse, Existing::replace}) {
    EXPECT_TRUE(Contains(error_of([&] { write(path("to-device"), "x", existing); }),
                         "to-device: is a link to a device, not to a file"));
    EXPECT_TRUE(Contains(error_of([&] { check_output(path("to-fifo"), existing); }),
                         "to-fifo: is a link to a FIFO, not to a file"));
  }
  EXPECT_TRUE(fs::is_symlink(dir_ / "to-device"));
  EXPECT_TRUE(fs::is_symlink(dir_ / "to-fifo"));
  put("file.txt", "kept");
  fs::create_symlink(dir_ / "file.txt", dir_ / "to-file");
  write(path("to-file"), "new", Existing::replace);
  EXPECT_EQ(slurp(path("file.txt")), "kept");
  EXPECT_EQ(slurp(path("to-file")), "new");
}

// The old writers used "<path>.tmp" and "<path>.tmp.<pid>.<n>", opened with truncation: a link planted there made a
// write land on the link's target. The temporary file is now created exclusively under a random name.
TEST_F(Files, PlantedLinksAtPredictableTemporaryNamesAreNeverWrittenThrough) {
  put("victim.txt", "precious");
  const std::string out = path("out.json");
  for (const std::string& planted : {out + ".tmp", out + ".tmp." + std::to_string(getpid()) + ".0"})
    fs::create_symlink(dir_ / "victim.txt", planted);
  for (int i = 0; i < 20; ++i) write(out, "x", Existing::replace);
  EXPECT_EQ(slurp(path("victim.txt")), "precious");
  EXPECT_EQ(slurp(out), "x");
}

// A loop of links in TILEWISE_DB came out as "unexpected error: filesystem error: status: Too many levels of symbolic
// links": the file's purpose is named now.
TEST_F(Files, WhetherAFileExistsIsAnsweredOrItsPurposeIsNamed) {
  EXPECT_FALSE(exists(path("none.json"), "the database"));
  EXPECT_TRUE(exists(put("there.json", "{}"), "the database"));
  fs::create_symlink(dir_ / "b", dir_ / "a");
  fs::create_symlink(dir_ / "a", dir_ / "b");
  EXPECT_TRUE(Contains(error_of([&] { exists(path("a"), "the per-machine database"); }),
                       "a: the per-machine database cannot be reached (Too many levels of symbolic links)"));
}

TEST_F(Files, AnEmptyOutputPathIsNamedAsSuch) {
  EXPECT_EQ(error_of([&] { write("", "x", Existing::replace); }), "an empty path names no file to write");
  EXPECT_EQ(error_of([&] { check_output("", Existing::refuse); }), "an empty path names no file to write");
}

TEST_F(Files, WriteNeedsAnExistingFolder) {
  EXPECT_TRUE(Contains(error_of([&] { write(path("no/such/out.json"), "x", Existing::replace); }),
                       "its folder " + path("no/such") + " cannot be opened"));
  EXPECT_TRUE(Contains(error_of([&] { check_output(path("no/such/out.json"), Existing::replace); }),
                       "its folder " + path("no/such") + " does not exist"));
  fs::create_directory(dir_ / "folder");
  EXPECT_TRUE(Contains(error_of([&] { check_output(path("folder"), Existing::replace); }), "is a folder"));
  put("there.json", "");
  EXPECT_TRUE(Contains(error_of([&] { check_output(path("there.json"), Existing::refuse); }), "--overwrite"));
  check_output(path("there.json"), Existing::replace);
  check_output(path("new.json"), Existing::refuse);
}

TEST_F(Files, AnOutputThatIsAnInputIsRefusedWhateverItsSpelling) {
  const std::string in = put("w.bin", "weights");
  fs::create_symlink(dir_ / "w.bin", dir_ / "alias.bin");
  for (const std::string& out : {in, path("./w.bin"), path("alias.bin")})
    EXPECT_TRUE(Contains(error_of([&] { refuse_input_as_output(out, {path("other.bin"), in}); }),
                         "an output never replaces what it is made from"))
        << out;
  refuse_input_as_output(path("new.bin"), {in});
  refuse_input_as_output(put("other.bin", ""), {in});
}

TEST_F(Files, RandomNamesDiffer) { EXPECT_NE(random_hex(), random_hex()); }

TEST_F(Files, JsonErrorsNameTheFileAndWhere) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("bad.json", "{\n  \"a\": ]")); }), "bad.json:2:8: not valid JSON"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("huge.json", "[1e400]")); }), "huge.json: not valid JSON"));
  EXPECT_EQ(read_json(put("ok.json", "{\"a\": 1}"))["a"], 1);
}

// nlohmann keeps the last of two equal keys: a database entry with `"us": 2.8, "us": 0.001` read as 0.001. A key given
// twice in one object is refused, with the keys of the objects around it; the same key in two objects is not.
TEST_F(Files, AKeyGivenTwiceInOneObjectIsRefused) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("top.json", "{\"a\": 1, \"a\": 2}")); }),
                       "top.json: the key \"a\" appears twice in the object at the top level"));
  EXPECT_TRUE(Contains(
      error_of([&] { read_json(put("deep.json", "{\"entries\": [{\"e\": {\"us\": 2.8, \"x\": {}, \"us\": 0.001}}]}")); }),
      "deep.json: the key \"us\" appears twice in the object at entries[].e"));
  const nlohmann::json j = read_json(put("apart.json", "{\"a\": {\"us\": 1}, \"b\": {\"us\": 2}, \"c\": [{\"us\": 3}, {\"us\": 4}]}"));
  EXPECT_EQ(j["c"][1]["us"], 4);
}

// Numbers an integer field could not hold are refused with their place; whole numbers written as doubles come back
// as integers (reading a double past an integer field's range is undefined; an integer's conversion is not).
TEST_F(Files, JsonNumbersAreOnesTheReadersCanHold) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("seed.json", "{\"r\": [{\"seed\": 30357113557647470224}]}")); }),
                       "seed.json: the number 3.035711355764747e+19 at r[0].seed is out of range"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("us.json", "{\"us\": 1.0e300}")); }),
                       "us.json: the number 1e+300 at us is out of range: no field of a tilewise document holds a "
                       "number under -2^63 or from 2^64 up"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("neg.json", "{\"n\": -9.3e18}")); }),
                       "neg.json: the number -9.3e+18 at n is out of range"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("frac.json", "{\"n\": 2147483648.5}")); }),
                       "frac.json: the number 2147483648.5 at n has a fraction and is past 2^31"));
  const nlohmann::json j = read_json(put("whole.json", "{\"a\": 1e10, \"b\": -3.0, \"c\": 1.5, \"d\": 1.8e19}"));
  EXPECT_TRUE(j["a"].is_number_integer());
  EXPECT_EQ(j["a"].get<int64_t>(), 10000000000);
  EXPECT_EQ(j["b"].get<int>(), -3);
  EXPECT_TRUE(j["c"].is_number_float());
  EXPECT_EQ(j["d"].get<uint64_t>(), 18000000000000000000u);
  EXPECT_EQ(read_json(put("seed-ok.json", "{\"seed\": 18446744073709551615}"))["seed"].get<uint64_t>(),
            18446744073709551615u);
  // Nesting deeper than a stack of calls could follow is walked, not a crash.
  const std::string deep = std::string(200000, '[') + "1e10" + std::string(200000, ']');
  EXPECT_NO_THROW(read_json(put("deep.json", deep)));
}

}  // namespace
}  // namespace tilewise::files
