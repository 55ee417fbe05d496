// The limits of one input (adapters/input_limits.h): how `--limit KEY=VALUE`
// is read, the message of a limit passed, input-size in ByteSource (plain
// and gzip, so a gzip bomb stops), and that the defaults accept every example
// and fixture the project has. The limits of each reader are tested in
// reader_limits_test.cc and trace_limits_test.cc.

#include "adapters/input_limits.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "adapters/byte_source.h"
#include "adapters/input_reader.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const std::string kSource = COOKGRAPH_SOURCE_DIR;

std::string SetError(InputLimits& limits, std::string_view text) {
  Status set = SetLimit(limits, text);
  return set ? "" : set.error().message;
}

TEST(InputLimits, SizesTakeBinarySuffixesAndCountsTakeWholeNumbers) {
  InputLimits limits;
  EXPECT_EQ(SetError(limits, "input-size=64G"), "");
  EXPECT_EQ(limits.input_size, uint64_t{64} << 30);
  EXPECT_EQ(SetError(limits, "input-size=3KiB"), "");
  EXPECT_EQ(limits.input_size, 3072u);
  EXPECT_EQ(SetError(limits, "name-length=4096"), "");
  EXPECT_EQ(limits.name_length, 4096u);
  EXPECT_EQ(SetError(limits, "string-length=2m"), "");
  EXPECT_EQ(limits.string_length, uint64_t{2} << 20);
  EXPECT_EQ(SetError(limits, "dot-size=1T"), "");
  EXPECT_EQ(limits.dot_size, uint64_t{1} << 40);
  EXPECT_EQ(SetError(limits, "depth=512"), "");
  EXPECT_EQ(limits.depth, 512u);
  EXPECT_EQ(SetError(limits, "nodes=5000000"), "");
  EXPECT_EQ(limits.nodes, 5000000u);
  EXPECT_EQ(SetError(limits, "samples=7"), "");
  EXPECT_EQ(limits.samples, 7u);
}

TEST(InputLimits, BadSettingsSayWhatIsExpected) {
  InputLimits limits;
  const std::string keys =
      "KEY one of input-size, depth, nodes, name-length, string-length, samples, dot-size";
  EXPECT_EQ(SetError(limits, "depth"), "expected KEY=VALUE with " + keys + ", got 'depth'");
  EXPECT_EQ(SetError(limits, "size=1"), "expected KEY=VALUE with " + keys + ", got 'size=1'");
  EXPECT_EQ(SetError(limits, "depth=0"), "depth must be a whole number >= 1, got '0'");
  EXPECT_EQ(SetError(limits, "depth=1K"), "depth must be a whole number >= 1, got '1K'");
  EXPECT_EQ(SetError(limits, "nodes=-3"), "nodes must be a whole number >= 1, got '-3'");
  EXPECT_EQ(SetError(limits, "input-size=12X"),
            "input-size must be a number of bytes (with an optional K, M, G or T suffix) >= 1, "
            "got '12X'");
  EXPECT_NE(SetError(limits, "input-size=99999999999T"), "");  // past 2^64 bytes
  EXPECT_NE(SetError(limits, "input-size="), "");
  // Nothing was changed by the refused settings.
  EXPECT_EQ(limits.depth, InputLimits{}.depth);
  EXPECT_EQ(limits.input_size, InputLimits{}.input_size);
}

TEST(InputLimits, MessageNamesTheLimitItsValueAndHowToRaiseIt) {
  InputLimits limits;
  EXPECT_EQ(LimitMessage(limits, &InputLimits::depth, "arrays nest deeper than"),
            "arrays nest deeper than the depth limit of 256; if the input is genuine, raise it "
            "with --limit depth=1024");
  EXPECT_EQ(LimitMessage(limits, &InputLimits::input_size, "the input is larger than"),
            "the input is larger than the input-size limit of 64 GiB; if the input is genuine, "
            "raise it with --limit input-size=256G");
  limits.name_length = 1000;
  EXPECT_EQ(LimitMessage(limits, &InputLimits::name_length, "a key is longer than"),
            "a key is longer than the name-length limit of 1000 bytes; if the input is genuine, "
            "raise it with --limit name-length=4000");
  EXPECT_EQ(SpellLimits(InputLimits{}),
            "input-size=64G depth=256 nodes=10000000 name-length=64K string-length=16M "
            "samples=100000000 dot-size=64M");
  EXPECT_EQ(ShowSize(1), "1 byte");
  EXPECT_EQ(ShowSize(1536), "1536 bytes");
  EXPECT_EQ(ShowSize(3 << 20), "3 MiB");
}

// Reads `source` to the end in small pieces; returns how many bytes came.
uint64_t Drain(ByteSource& source) {
  char buffer[4096];
  uint64_t total = 0;
  while (size_t n = source.Read(buffer, sizeof buffer)) total += n;
  return total;
}

TEST(InputLimits, AStringSourceStopsAtInputSize) {
  const std::string text(10000, ' ');
  auto exact = ByteSource::FromString(text, "t.json", InputLimits{.input_size = 10000});
  EXPECT_EQ(Drain(*exact), 10000u);
  EXPECT_FALSE(exact->failed()) << exact->error();

  auto over = ByteSource::FromString(text, "t.json", InputLimits{.input_size = 9999});
  EXPECT_EQ(Drain(*over), 9999u);
  ASSERT_TRUE(over->failed());
  EXPECT_EQ(over->error(),
            "at byte 9999: the input (decompressed) is larger than the input-size limit of 9999 "
            "bytes; if the input is genuine, raise it with --limit input-size=39996");
}

// A gzip file of `bytes` spaces, in one member.
void WriteGzip(const std::string& path, size_t bytes) {
  gzFile gz = gzopen(path.c_str(), "wb9");
  ASSERT_NE(gz, nullptr);
  const std::string block(1 << 16, ' ');
  for (size_t done = 0; done < bytes; done += block.size()) {
    ASSERT_GT(
        gzwrite(gz, block.data(), static_cast<unsigned>(std::min(block.size(), bytes - done))), 0);
  }
  ASSERT_EQ(gzclose(gz), Z_OK);
}

TEST(InputLimits, AGzipBombStopsAtInputSizeCountedDecompressed) {
  TempDir dir;
  WriteGzip(dir / "bomb.json.gz", size_t{64} << 20);  // 64 MiB in about 64 KiB
  ASSERT_LT(fs::file_size(dir / "bomb.json.gz"), 1u << 20);
  auto opened = ByteSource::Open(dir / "bomb.json.gz", InputLimits{.input_size = 1 << 20});
  ASSERT_TRUE(opened);
  EXPECT_EQ(Drain(**opened), 1u << 20);
  ASSERT_TRUE((*opened)->failed());
  EXPECT_EQ((*opened)->error(),
            "at byte 1048576: the input (decompressed) is larger than the input-size limit of 1 "
            "MiB; if the input is genuine, raise it with --limit input-size=4M");
  // The whole input through ReadInput: one Error naming the file.
  ReadOptions options;
  options.limits.input_size = 1 << 20;
  auto read = ReadInput({dir / "bomb.json.gz"}, options);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().Format(), dir / "bomb.json.gz" +
                                       ": at byte 1048576: the input (decompressed) is larger than "
                                       "the input-size limit of 1 MiB; if the input is genuine, "
                                       "raise it with --limit input-size=4M");
}

// The defaults must never refuse a real input: every example, test fixture
// and real trace (tests/data/fixtures) is read with them.
TEST(InputLimits, DefaultsAcceptEveryExampleAndFixture) {
  std::vector<std::vector<std::string>> inputs = {
      {kSource + "/examples/touchdesigner_feedback.json"},
      {kSource + "/examples/gstreamer_pipeline.json"},
      {kSource + "/examples/pytorch_model.json"},
      {kSource + "/tests/data/chrome/onnxruntime_profile.json"},
      {kSource + "/tests/data/chrome/synthetic_kineto.json"},
      {kSource + "/tests/data/gstreamer/tee_bin.dot",
       kSource + "/tests/data/gstreamer/tee_bin.log"},
      {kSource + "/tests/data/gstreamer/node_prefix.dot",
       kSource + "/tests/data/gstreamer/node_prefix.log"},
      {kSource + "/tests/data/bad/accepted/clean.yaml"},
      {kSource + "/tests/data/bad/accepted/clean_kineto.json.gz"},
  };
  for (const auto& entry : fs::recursive_directory_iterator(kSource + "/tests/data/fixtures")) {
    if (entry.is_regular_file() && entry.path().extension() != ".md") {
      inputs.push_back({entry.path()});
    }
  }
  size_t read = 0;
  for (const auto& paths : inputs) {
    auto snapshot = ReadInput(paths, ReadOptions{});
    EXPECT_TRUE(snapshot) << paths[0] << ": " << snapshot.error().Format();
    read += snapshot.ok();
  }
  EXPECT_EQ(read, inputs.size());
  EXPECT_EQ(inputs.size(), 9u + 11u);  // the 10 real traces: 9 files and two ranks
}

}  // namespace
}  // namespace cookgraph
