// A gzip file read block by block (adapters/gzip_stream.h): ISA-L inflates
// it, and ByteSource gives the bytes and the errors that zlib's gzread gives
// alone, the reader cookgraph used before. Each test reads the same file both
// ways: members one after another, headers with a name and extra bytes, a
// member's start across the edge of ISA-L's 256 KiB reads, stored and
// compressed blocks, bytes after the last member, and every kind of damage.

#include "adapters/gzip_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "adapters/byte_source.h"
#include "tests/gzip.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {
// Its own names: the unity build compiles this file with other tests' files.
namespace gzip_stream_test {

using cookgraph::testing::GzipMember;
using cookgraph::testing::WriteFile;

// Text that compresses as a trace does (tens of times, not thousands).
std::string TraceLike(size_t bytes, unsigned seed) {
  std::mt19937 rng(seed);
  std::string text = "[";
  while (text.size() < bytes) {
    text += "{\"ph\": \"X\", \"name\": \"aten::op" + std::to_string(rng() % 500) +
            "\", \"ts\": " + std::to_string(rng() % 100000000) +
            ", \"dur\": " + std::to_string(rng() % 999) + "},\n";
  }
  return text + "{}]";
}

struct Outcome {
  std::string bytes;
  std::string error;
  bool isal_to_the_end = false;  // ByteSource only: ISA-L read it all
};

// zlib alone: gzread to the end, its error in ByteSource's words.
Outcome ZlibRead(const std::string& path) {
  Outcome out;
  gzFile gz = gzopen(path.c_str(), "rb");
  EXPECT_NE(gz, nullptr);
  if (gz == nullptr) return out;
  std::vector<char> block(4096);
  int n = 0;
  while ((n = gzread(gz, block.data(), static_cast<unsigned>(block.size()))) > 0) {
    out.bytes.append(block.data(), static_cast<size_t>(n));
  }
  int code = Z_OK;
  const std::string what = gzerror(gz, &code);
  if (n < 0 || (code != Z_OK && code != Z_STREAM_END)) {
    // gzopen's messages start with the path.
    out.error = "gzip data is corrupt: " + what.substr(what.rfind(": ") + 2);
  }
  gzclose(gz);
  return out;
}

// ByteSource, block by block, in reads of random sizes up to 600 KB.
Outcome SourceRead(const std::string& path, unsigned seed) {
  Outcome out;
  auto opened = ByteSource::Open(path, {}, GzipRead::kBlocks);
  EXPECT_TRUE(opened) << path;
  if (!opened) return out;
  ByteSource& source = **opened;
  std::mt19937 rng(seed);
  std::vector<char> block(600000);
  for (size_t n; (n = source.Read(block.data(), 1 + rng() % block.size())) > 0;) {
    out.bytes.append(block.data(), n);
  }
  out.error = source.error();
  out.isal_to_the_end = source.InflatesWithIsal();
  return out;
}

TEST(GzipStream, OnlyAGzipFileIsStreamed) {
  cookgraph::testing::TempDir dir;
  WriteFile(dir / "plain.json", "[{\"ph\": \"X\"}]");
  WriteFile(dir / "one.json.gz", "\x1f");
  WriteFile(dir / "t.json.gz", GzipMember("[]"));
  for (const char* name : {"plain.json", "one.json.gz", "t.json.gz"}) {
    const int fd = open((dir / name).c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(GzipStream::Open(fd) != nullptr, std::string(name) == "t.json.gz") << name;
    close(fd);
  }
  // A plain file is read by zlib, which passes it through.
  EXPECT_FALSE(SourceRead(dir / "plain.json", 1).isal_to_the_end);
}

TEST(GzipStream, ReadsEveryMemberAsZlibDoesAcrossTheEdgesOfItsReads) {
  cookgraph::testing::TempDir dir;
  const std::string a = TraceLike(600000, 1), b = TraceLike(900000, 2), c = TraceLike(70000, 3);
  // The second member starts two and one bytes before, at, and one and five
  // bytes after the end of ISA-L's first and second 256 KiB reads (its magic
  // bytes, then its header, split), the first member's size set by its
  // header's file name.
  const size_t read = size_t{1} << 18;
  const std::string long_a = TraceLike(1600000, 4);
  std::vector<std::pair<std::string, std::string>> files;  // name, bytes
  for (const size_t edge : {read, 2 * read}) {
    const std::string& first_text = edge == read ? a : long_a;
    const size_t unnamed = GzipMember(first_text).size();
    ASSERT_LT(unnamed + 10, edge - 2);
    ASSERT_GT(unnamed + 100, edge - read);
    for (const size_t at : {edge - 2, edge - 1, edge, edge + 1, edge + 5}) {
      const std::string first = GzipMember(first_text, 6, at - unnamed - 1);
      ASSERT_EQ(first.size(), at);
      files.emplace_back("edge" + std::to_string(at) + ".json.gz", first + GzipMember(b, 1));
    }
  }
  files.emplace_back("levels.json.gz",
                     GzipMember(a, 0) + GzipMember("") + GzipMember(b, 9) + GzipMember(c, 1));
  files.emplace_back("extra.json.gz",
                     GzipMember(c, 6, 300, std::string(40000, 'e')) + GzipMember(a));
  files.emplace_back("garbage.json.gz", GzipMember(b) + "this is not gzip");
  files.emplace_back("one_magic_byte_after.json.gz", GzipMember(b) + "\x1f");
  files.emplace_back("empty.json.gz", GzipMember(""));
  for (const auto& [name, bytes] : files) {
    WriteFile(dir / name, bytes);
    const Outcome zlib = ZlibRead(dir / name);
    const Outcome ours = SourceRead(dir / name, 7);
    EXPECT_EQ(zlib.error, "") << name;
    EXPECT_EQ(ours.error, "") << name;
    EXPECT_EQ(ours.bytes.size(), zlib.bytes.size()) << name;
    EXPECT_TRUE(ours.bytes == zlib.bytes) << name;
    EXPECT_TRUE(ours.isal_to_the_end) << name;  // zlib never had to take over
  }
  EXPECT_EQ(ZlibRead(dir / "levels.json.gz").bytes, a + b + c);
}

TEST(GzipStream, RealKinetoTracesReadAsZlibReadsThem) {
  // The gzip files PyTorch's profiler wrote (tests/data/fixtures/traces, their
  // provenance beside them), each read block by block: ISA-L to the end, and
  // zlib's bytes.
  const std::filesystem::path traces =
      std::filesystem::path(COOKGRAPH_SOURCE_DIR) / "tests/data/fixtures/traces";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(traces)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".gz") continue;
    const Outcome zlib = ZlibRead(path);
    const Outcome ours = SourceRead(path, 9);
    EXPECT_EQ(zlib.error, "") << path;
    EXPECT_EQ(ours.error, "") << path;
    EXPECT_GT(ours.bytes.size(), 0u) << path;
    EXPECT_TRUE(ours.bytes == zlib.bytes) << path;
    EXPECT_TRUE(ours.isal_to_the_end) << path;
    ++files;
  }
  EXPECT_GE(files, 7u);
}

TEST(GzipStream, DamageFailsWithZlibsWordsAfterBytesZlibGivesToo) {
  // A 3 MB trace in four members (about 900 KB: four of ISA-L's reads), one
  // byte of it changed, or cut short, at random places: ByteSource fails
  // exactly when zlib does, with zlib's message, after bytes that zlib gives
  // too, and reads the same bytes when zlib finds nothing wrong (a changed
  // byte in a header's unchecked fields).
  cookgraph::testing::TempDir dir;
  std::string gz;
  for (unsigned i = 0; i < 4; ++i) gz += GzipMember(TraceLike(750000, 10 + i), i == 2 ? 0 : 6);
  ASSERT_GT(gz.size(), size_t{3} << 18);
  std::mt19937 rng(39);
  int failed = 0, handed_to_zlib = 0;
  for (int round = 0; round < 60; ++round) {
    std::string bad = gz;
    const size_t at = rng() % gz.size();
    if (round % 3 == 2) {
      bad.resize(at);
    } else {
      bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
    }
    const std::string path = dir / ("bad" + std::to_string(round) + ".json.gz");
    WriteFile(path, bad);
    const Outcome zlib = ZlibRead(path);
    const Outcome ours = SourceRead(path, static_cast<unsigned>(round));
    EXPECT_EQ(ours.error, zlib.error) << round << " at " << at;
    if (zlib.error.empty()) {
      EXPECT_TRUE(ours.bytes == zlib.bytes) << round << " at " << at;
    } else {
      // A read that fails gives none of its bytes, so how many come before
      // an error depends on the sizes read: one reading is the start of the other.
      const size_t common = std::min(ours.bytes.size(), zlib.bytes.size());
      EXPECT_EQ(ours.bytes.compare(0, common, zlib.bytes, 0, common), 0) << round << " at " << at;
      EXPECT_GT(common, 0u) << round << " at " << at;
    }
    failed += !zlib.error.empty();
    handed_to_zlib += !ours.isal_to_the_end;
  }
  // Most damage is found, and ISA-L hands each such file to zlib.
  EXPECT_GE(failed, 40);
  EXPECT_GE(handed_to_zlib, failed);
}

TEST(GzipStream, EveryReadButTheLastIsFull) {
  // As gzread: a read stops early only at the end, never at a member's end,
  // so that the head of a file (for recognising its format) is its first
  // 256 KiB however it is cut into members.
  cookgraph::testing::TempDir dir;
  std::string gz = GzipMember("   \n");
  std::string text = "   \n";
  for (int i = 0; i < 3000; ++i) {
    const std::string part = "{\"ph\": \"X\", \"ts\": " + std::to_string(i) + "},\n";
    gz += GzipMember(part, i % 3 == 0 ? 0 : 6);
    text += part;
  }
  const std::string last = TraceLike(400000, 5);
  gz += GzipMember(last);
  text += last;
  WriteFile(dir / "many.json.gz", gz);
  const int fd = open((dir / "many.json.gz").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  auto stream = GzipStream::Open(fd);
  ASSERT_NE(stream, nullptr);
  std::string got;
  std::vector<char> block(65536);
  for (int64_t n; (n = stream->Read(block.data(), block.size())) > 0;) {
    got.append(block.data(), static_cast<size_t>(n));
    if (got.size() < text.size()) {
      ASSERT_EQ(n, static_cast<int64_t>(block.size())) << got.size();
    }
  }
  close(fd);
  EXPECT_TRUE(got == text);
  auto source = ByteSource::Open(dir / "many.json.gz", {}, GzipRead::kBlocks);
  ASSERT_TRUE(source);
  EXPECT_EQ((*source)->Head().size(), size_t{1} << 18);
  EXPECT_FALSE((*source)->HeadIsWholeInput());
}

TEST(GzipStream, ReservedHeaderFlagsFailAsZlibDoes) {
  // ISA-L ignores the flags gzip reserves (0xE0); zlib refuses them. In the
  // first member, or in a later one after good bytes, read block by block or
  // (a small file) whole.
  cookgraph::testing::TempDir dir;
  const std::string a = TraceLike(300000, 6);
  for (const int flag : {0x20, 0x40, 0x80}) {
    std::string first = GzipMember(a), second = GzipMember(a);
    first[3] = static_cast<char>(first[3] | flag);
    second[3] = static_cast<char>(second[3] | flag);
    WriteFile(dir / "first.json.gz", first + GzipMember(a));
    WriteFile(dir / "second.json.gz", GzipMember(a) + second);
    for (const char* name : {"first.json.gz", "second.json.gz"}) {
      const Outcome zlib = ZlibRead(dir / name);
      const Outcome ours = SourceRead(dir / name, 3);
      EXPECT_EQ(zlib.error, "gzip data is corrupt: unknown header flags set") << name << flag;
      EXPECT_EQ(ours.error, zlib.error) << name << flag;
      EXPECT_FALSE(ours.isal_to_the_end) << name << flag;
      auto whole = ByteSource::Open(dir / name, {}, GzipRead::kWholeWhenSmall);
      ASSERT_TRUE(whole);
      std::vector<char> block(1 << 20);
      while ((*whole)->Read(block.data(), block.size()) > 0) {
      }
      EXPECT_EQ((*whole)->error(), zlib.error) << name << flag;
    }
  }
}

}  // namespace gzip_stream_test
}  // namespace
}  // namespace cookgraph
