// JSON stored gzip-compressed (x.json.gz): read as the plain file reads, and a bad stream named, never a crash, a
// hang or an output past the bound that plain files have.
#include "core/gzip.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>

#include "core/file.hpp"
#include "core/json.hpp"
#include "expect_error.hpp"
#include "temp_dir.hpp"

namespace tilewise {
namespace {

using testkit::Contains;
using testkit::error_of;

class Gzip : public ::testing::Test {
 protected:
  std::string put(const std::string& name, const std::string& bytes) const {
    std::ofstream(temp_.file(name), std::ios::binary) << bytes;
    return temp_.file(name);
  }
  testkit::TempDir temp_;
};

// Many 64 KiB pieces of output, so the inflate goes round its loop, in few JSON values (parsing thousands takes
// seconds under the sanitizers of scripts/ci-hardening.sh). Letters that do not repeat make a long stream to cut.
std::string large_document() {
  std::string letters;
  uint32_t x = 1;
  for (int i = 0; i < 300000; ++i) letters += char('a' + ((x = x * 1103515245 + 12345) >> 16) % 26);
  return nlohmann::json{{"schema", "x"}, {"notes", {letters, letters.substr(7)}}}.dump(1);
}

TEST_F(Gzip, ACompressedFileReadsAsThePlainOne) {
  const std::string text = large_document();
  ASSERT_GT(text.size(), size_t(1) << 19);
  EXPECT_EQ(read_json(put("doc.json.gz", gzip(text))), read_json(put("doc.json", text)));
  EXPECT_EQ(read_json(put("tiny.json.gz", gzip("{\"a\": 1}")))["a"], 1);
  EXPECT_EQ(gunzip(gzip(""), "nothing.gz", 0), "");  // a stream of no bytes is one
}

TEST_F(Gzip, ACorruptStreamIsNamed) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("plain.json.gz", "{\"a\": 1}")); }),
                       "plain.json.gz: not valid gzip (incorrect header check)"));
  std::string bad_crc = gzip("{\"a\": 1}");
  bad_crc[bad_crc.size() - 8] ^= 1;  // the trailer's CRC-32
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("crc.json.gz", bad_crc)); }),
                       "crc.json.gz: not valid gzip (incorrect data check)"));
  std::string bad_length = gzip("{\"a\": 1}");
  bad_length[bad_length.size() - 1] ^= 1;  // the trailer's length
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("length.json.gz", bad_length)); }),
                       "length.json.gz: not valid gzip (incorrect length check)"));
  std::string bad_block = gzip("{\"a\": 1}");
  bad_block[10] = char(0xff);  // the first deflate block's header: a block type that does not exist
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("block.json.gz", bad_block)); }),
                       "block.json.gz: not valid gzip (invalid block type)"));
}

TEST_F(Gzip, ATruncatedStreamIsNamed) {
  const std::string whole = gzip(large_document());
  for (const size_t kept : {size_t(1), size_t(5), whole.size() / 2, whole.size() - 1})
    EXPECT_TRUE(Contains(error_of([&] { read_json(put("cut.json.gz", whole.substr(0, kept))); }),
                         "cut.json.gz: truncated gzip stream"))
        << kept << " bytes kept";
}

TEST_F(Gzip, AnEmptyFileIsNamed) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("empty.json.gz", "")); }),
                       "empty.json.gz: not valid gzip (it is empty)"));
}

// A gzip bomb: a few kilobytes that inflate to a megabyte, past a bound of a thousand bytes. read_json's bound is
// files::kMaxTextBytes, the bound of a plain file.
TEST_F(Gzip, AStreamThatInflatesPastTheBoundIsRefused) {
  const std::string bomb = gzip(std::string(size_t(1) << 20, '0'));
  ASSERT_LT(bomb.size(), size_t(4096));
  EXPECT_TRUE(Contains(error_of([&] { gunzip(bomb, "bomb.json.gz", 1000); }), "bomb.json.gz: inflates past 1000 bytes"));
  EXPECT_EQ(gunzip(gzip(std::string(1000, '0')), "full.gz", 1000), std::string(1000, '0'));  // up to it is taken
  EXPECT_TRUE(Contains(error_of([&] { gunzip(gzip("{}"), "small.gz", 1); }), "small.gz: inflates past 1 bytes"));
}

// As gzip reads them: `cat a.gz b.gz` holds a's bytes then b's. Anything else after the last member is refused.
TEST_F(Gzip, MembersOneAfterAnotherReadAsOneAndOtherBytesAfterThemAreNamed) {
  EXPECT_EQ(read_json(put("two.json.gz", gzip("{\"a\": ") + gzip("1}")))["a"], 1);
  const std::string one = gzip("{\"a\": 1}");
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("junk.json.gz", one + "junk")); }),
                       "junk.json.gz: not valid gzip (the 4 bytes after the gzip stream, which ends at byte " +
                           std::to_string(one.size()) + ", are not another gzip member)"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("zeros.json.gz", one + std::string(3, '\0'))); }),
                       "zeros.json.gz: not valid gzip (the 3 bytes after the gzip stream"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("half.json.gz", one + one.substr(0, 12))); }),
                       "half.json.gz: truncated gzip stream"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("newline.json.gz", one + "\n")); }),
                       "newline.json.gz: not valid gzip (the 1 byte after the gzip stream, which ends at byte " +
                           std::to_string(one.size()) + ", is not another whole gzip member)"));
}

TEST_F(Gzip, JsonErrorsNameTheCompressedFileAndThePlaceInItsText) {
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("bad.json.gz", gzip("{\n  \"a\": ]"))); }),
                       "bad.json.gz:2:8: not valid JSON"));
  EXPECT_TRUE(Contains(error_of([&] { read_json(put("twice.json.gz", gzip("{\"a\": 1, \"a\": 2}"))); }),
                       "twice.json.gz: the key \"a\" appears twice"));
}

// What files::write writes under a .gz name is gzip (its magic bytes first) and reads back whole; a file made by the
// gzip program (the fuzz corpus's, `gzip -9n`) reads as well.
TEST_F(Gzip, AFileWrittenUnderAGzNameReadsBack) {
  const std::string text = large_document();
  files::write(temp_.file("out.json.gz"), text, files::Existing::refuse);
  const std::string written = files::read(temp_.file("out.json.gz"));
  EXPECT_EQ(written.substr(0, 2), "\x1f\x8b");
  EXPECT_LT(written.size(), text.size());
  EXPECT_EQ(read_json(temp_.file("out.json.gz")), nlohmann::json::parse(text));
  EXPECT_EQ(gzip(text), written);  // no name or time in the header: the same text, the same bytes
  EXPECT_TRUE(read_json(std::string(TILEWISE_SOURCE_DIR) + "/tests/fuzz/corpus/gunzip/floor-slice.json.gz").is_object());
}

TEST(DocumentStem, ACompressedDocumentHasThePlainOnesStem) {
  EXPECT_EQ(document_stem("results/floor-sweep-fit.json"), "floor-sweep-fit");
  EXPECT_EQ(document_stem("results/floor-sweep-fit.json.gz"), "floor-sweep-fit");
  EXPECT_EQ(document_stem("a.b/run.v2.json.gz"), "run.v2");
  EXPECT_EQ(document_stem("run"), "run");
}

}  // namespace
}  // namespace tilewise
