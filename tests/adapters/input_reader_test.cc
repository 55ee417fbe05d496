// Reading any input: formats recognised from their content, --format-in,
// GStreamer recordings given as two files or a folder, and inputs in no known
// format.

#include "adapters/input_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "adapters/input_files.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

namespace fs = std::filesystem;
using cookgraph::testing::TempDir;

const std::string kSourceDir = COOKGRAPH_SOURCE_DIR;

TEST(DetectFormat, FromTheContent) {
  EXPECT_EQ(DetectFormat(R"({"cookgraph": 1, "nodes": []})"), InputFormat::kNative);
  EXPECT_EQ(DetectFormat("\xEF\xBB\xBF{\n  \"engine\": \"x\",\n  \"cookgraph\" : 1}"),
            InputFormat::kNative);
  EXPECT_EQ(DetectFormat("# a snapshot\ncookgraph: 1\nnodes: []\n"), InputFormat::kNative);
  EXPECT_EQ(DetectFormat("   \n"), InputFormat::kNative);  // empty: the native reader says so
  EXPECT_EQ(DetectFormat(R"([{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2}])"),
            InputFormat::kChromeTrace);
  EXPECT_EQ(DetectFormat(R"({"schemaVersion": 1, "traceEvents": [{"ph": "X"}]})"),
            InputFormat::kChromeTrace);
  // A node named "cookgraph" in a trace does not make it a snapshot.
  EXPECT_EQ(DetectFormat(R"([{"name": "cookgraph", "ph": "X", "ts": 1, "dur": 2}])"),
            InputFormat::kChromeTrace);
  std::ifstream dot(kSourceDir + "/tests/data/gstreamer/tee_bin.dot");
  std::string dot_text((std::istreambuf_iterator<char>(dot)), {});
  EXPECT_EQ(DetectFormat(dot_text), InputFormat::kGstreamer);
  std::ifstream log(kSourceDir + "/tests/data/gstreamer/tee_bin.log");
  std::string log_text((std::istreambuf_iterator<char>(log)), {});
  EXPECT_EQ(DetectFormat(log_text), InputFormat::kGstreamer);
  EXPECT_FALSE(DetectFormat(R"({"title": "holiday photos"})"));
  EXPECT_FALSE(DetectFormat("digraph G { a -> b }"));
  EXPECT_FALSE(DetectFormat("\x89PNG\r\n\x1a\n"));
}

// The format is told from the first 256 KiB, as much as a file's head holds,
// however the bytes came: a gzip file inflated whole is a string, whose head is
// all of it, and was searched to its end.
TEST(DetectFormat, FromTheFirst256KiBAlone) {
  std::string trace = R"({"traceEvents": [)";
  while (trace.size() < (300u << 10)) trace += R"({"name": "op", "ph": "X", "ts": 1, "dur": 2},)";
  const std::string tail =
      R"({"name": "op", "ph": "X", "ts": 1, "dur": 2, "args": {"cookgraph": 1}}]})";
  EXPECT_EQ(DetectFormat(trace + tail), InputFormat::kChromeTrace);
  // Within them, that key makes a snapshot of it.
  EXPECT_EQ(DetectFormat(R"({"traceEvents": [)" + tail), InputFormat::kNative);
}

TEST(ReadInput, EachFormatFromAFileOrAFolder) {
  Result<Snapshot> native = ReadInput({kSourceDir + "/examples/gstreamer_pipeline.json"});
  ASSERT_TRUE(native) << native.error().Format();
  EXPECT_EQ(native->info.engine, "gstreamer");

  Result<Snapshot> onnx = ReadInput({kSourceDir + "/tests/data/chrome/onnxruntime_profile.json"});
  ASSERT_TRUE(onnx) << onnx.error().Format();
  EXPECT_EQ(onnx->info.engine, "onnxruntime");

  const std::string dot = kSourceDir + "/tests/data/gstreamer/tee_bin.dot";
  const std::string log = kSourceDir + "/tests/data/gstreamer/tee_bin.log";
  Result<Snapshot> pair = ReadInput({dot, log});
  ASSERT_TRUE(pair) << pair.error().Format();
  EXPECT_EQ(pair->info.engine, "gstreamer");
  EXPECT_GT(pair->samples.frame_count(), 0u);

  TempDir dir;
  fs::copy_file(dot, dir / "0.00.01.000000000-gst-launch.PAUSED_PLAYING.dot");
  fs::copy_file(log, dir / "trace.log");
  Result<Snapshot> folder = ReadInput({dir.path()});
  ASSERT_TRUE(folder) << folder.error().Format();
  EXPECT_EQ(folder->network.size(), pair->network.size());
  EXPECT_EQ(folder->samples.frame_count(), pair->samples.frame_count());
}

TEST(ReadInput, FormatInOverridesTheRecognition) {
  const std::string trace = kSourceDir + "/tests/data/chrome/onnxruntime_profile.json";
  Result<Snapshot> as_native = ReadInput({trace}, {.format = InputFormat::kNative});
  ASSERT_FALSE(as_native);
  EXPECT_EQ(as_native.error().file, trace);
  Result<Snapshot> as_chrome = ReadInput({trace}, {.format = InputFormat::kChromeTrace});
  EXPECT_TRUE(as_chrome);
  EXPECT_EQ(ParseInputFormat("chrome"), InputFormat::kChromeTrace);
  EXPECT_EQ(ParseInputFormat("gst"), InputFormat::kGstreamer);
  EXPECT_FALSE(ParseInputFormat("csv"));
}

TEST(ReadInput, AnUnknownFormatListsTheFormatsThereAre) {
  TempDir dir;
  std::ofstream(dir / "photos.json") << R"({"title": "holiday photos"})";
  Result<Snapshot> read = ReadInput({dir / "photos.json"});
  ASSERT_FALSE(read);
  const std::string message = read.error().Format();
  EXPECT_NE(message.find(dir / "photos.json" + ": not a format cookgraph reads"),
            std::string::npos)
      << message;
  for (const char* format : {"cookgraph snapshot", "Chrome trace", "GStreamer"}) {
    EXPECT_NE(message.find(format), std::string::npos) << format;
  }
  Result<Snapshot> empty_folder = ReadInput({dir.path()});
  EXPECT_FALSE(empty_folder);
}

TEST(ExpandInputs, GstreamerFilesOfOneFolderAreOneInputAndItsFolderIsOne) {
  TempDir dir;
  fs::create_directories(dir / "batch/run1");
  const std::string dot = kSourceDir + "/tests/data/gstreamer/tee_bin.dot";
  const std::string log = kSourceDir + "/tests/data/gstreamer/tee_bin.log";
  fs::copy_file(dot, dir / "batch/run1/pipeline.dot");
  fs::copy_file(log, dir / "batch/run1/trace.log");
  std::ofstream(dir / "batch/a.json") << R"({"cookgraph": 1})";
  InputList list = ExpandInputs({dot, log, dir / "batch"});
  ASSERT_TRUE(list.errors.empty());
  ASSERT_EQ(list.inputs.size(), 3u);
  // Sorted by path: the two files given, then the folder's snapshot and recording.
  std::vector<std::vector<std::string>> paths;
  for (const Input& input : list.inputs) paths.push_back(input.paths);
  EXPECT_NE(std::find(paths.begin(), paths.end(), std::vector<std::string>{dot, log}),
            paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), std::vector<std::string>{dir / "batch/run1"}),
            paths.end());
  EXPECT_NE(std::find(paths.begin(), paths.end(), std::vector<std::string>{dir / "batch/a.json"}),
            paths.end());
  EXPECT_EQ((Input{{dot, log}}.name()), dot + " + " + log);
}

}  // namespace
}  // namespace cookgraph
