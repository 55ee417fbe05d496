// Every reading command takes every format: native snapshots, Chrome traces
// (the real fixtures in tests/data/fixtures/traces), GStreamer recordings as two
// files or a folder; --format-in, --frame-marker and --limit; `cookgraph trace`.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/cli_run.h"
#include "tests/temp_dir.h"

namespace {

using cookgraph::testing::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

using cookgraph::testing::Cookgraph;
using cookgraph::testing::kSource;
using cookgraph::testing::Slurp;
using InputsRun = cookgraph::testing::CliRun;
const std::string kFixtures = kSource + "/tests/data/fixtures/traces";
const std::string kGstDot = "tests/data/gstreamer/tee_bin.dot";
const std::string kGstLog = "tests/data/gstreamer/tee_bin.log";

TEST(CliInputs, EveryRealTraceFixtureIsScored) {
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kFixtures)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    const InputsRun run = Cookgraph("score '" + entry.path().string() + "' --format json");
    ASSERT_EQ(run.exit_code, 0) << entry.path() << ": " << run.err;
    const json doc = json::parse(run.out);
    const json& snapshot = doc["snapshots"][0];
    EXPECT_GT(snapshot["nodes"].size(), 0u) << entry.path();
    EXPECT_GE(snapshot["frames"].get<int>(), 1) << entry.path();
    // Training traces have steps, not frames: no budget unless one is given
    // (Cli.TrainingTracesHaveNoBudgetUnlessOneIsGiven).
    EXPECT_TRUE(snapshot["frame_budget_ms"].is_null()) << entry.path();
    EXPECT_TRUE(snapshot["over_budget_frames"].is_null()) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, 11u);  // the 10 traces: 9 files and a folder of two ranks
}

TEST(CliInputs, GstreamerAsTwoFilesOrAFolderInEveryCommand) {
  TempDir dir, out;  // the recording's folder holds only the recording
  fs::copy_file(kSource + "/" + kGstDot, dir / "pipeline.dot");
  fs::copy_file(kSource + "/" + kGstLog, dir / "trace.log");
  const InputsRun pair = Cookgraph("score " + kGstDot + " " + kGstLog + " --format json");
  ASSERT_EQ(pair.exit_code, 0) << pair.err;
  const InputsRun folder = Cookgraph("score '" + dir.path() + "' --format json");
  ASSERT_EQ(folder.exit_code, 0) << folder.err;
  const json a = json::parse(pair.out)["snapshots"][0];
  const json b = json::parse(folder.out)["snapshots"][0];
  EXPECT_EQ(a["file"], kGstDot + " + " + kGstLog);
  EXPECT_EQ(a["engine"], "gstreamer");
  EXPECT_EQ(a["nodes"], b["nodes"]);
  EXPECT_EQ(Cookgraph("graph " + kGstDot + " " + kGstLog).exit_code, 0);
  EXPECT_EQ(Cookgraph("report '" + dir.path() + "' -o '" + out / "r.md" + "' --no-llm").exit_code, 0);
  EXPECT_EQ(Cookgraph("convert " + kGstDot + " " + kGstLog + " -o '" + out / "g.json" + "'").exit_code,
            0);
  EXPECT_EQ(Cookgraph("score '" + out / "g.json" + "' --format json").exit_code, 0);
  EXPECT_EQ(Cookgraph("ask '" + dir.path() + "' Q --model m --dry-run").exit_code, 0);
}

// A pipe given as a path (bash's `<(zcat trace.json.gz)`, a FIFO) is read
// once: opening it first to look for a GStreamer file used up its data
// ("not a format cookgraph reads").
TEST(CliInputs, APipeGivenAsAPathIsReadOnce) {
  TempDir dir;
  const std::string fifo = dir / "trace";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string command = "cd '" + kSource + "' && (timeout 30 cat examples/pytorch_model.json > '" +
                              fifo + "' &) && timeout 30 '" + cookgraph::testing::kBinary + "' score '" +
                              fifo + "' --format json >'" + dir / "out" + "' 2>'" + dir / "err" + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << Slurp(dir / "err");
  const json doc = json::parse(Slurp(dir / "out"));
  EXPECT_EQ(doc["snapshots"][0]["engine"], "pytorch");
  EXPECT_EQ(doc["snapshots"][0]["file"], fifo);
}

TEST(CliInputs, FormatInAndFrameMarker) {
  const std::string trace = "tests/data/chrome/onnxruntime_profile.json";
  const InputsRun forced = Cookgraph("score " + trace + " --format-in native");
  EXPECT_EQ(forced.exit_code, 2);
  EXPECT_NE(forced.err.find(trace), std::string::npos);
  EXPECT_EQ(Cookgraph("score " + trace + " --format-in chrome").exit_code, 0);
  EXPECT_EQ(Cookgraph("score " + trace + " --format-in csv").exit_code, 2);
  const InputsRun marker = Cookgraph("score " + trace + " --frame-marker 'model_run' --format json");
  ASSERT_EQ(marker.exit_code, 0) << marker.err;
  const InputsRun bad = Cookgraph("score " + trace + " --frame-marker '(' --format json");
  EXPECT_EQ(bad.exit_code, 2);
  const InputsRun none = Cookgraph("score tests/data/bad/not_a_snapshot.json");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("not a format cookgraph reads"), std::string::npos) << none.err;
}

TEST(CliInputs, TraceWritesAChromeTraceThatReadsBackToTheSameCookTimes) {
  TempDir dir;
  const InputsRun run = Cookgraph("trace examples/gstreamer_pipeline.json -o '" + dir / "t.json" + "'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("ui.perfetto.dev"), std::string::npos);
  const json trace = json::parse(Slurp(dir / "t.json"));
  EXPECT_TRUE(trace["traceEvents"].is_array());
  const InputsRun original = Cookgraph("score examples/gstreamer_pipeline.json --format json");
  const InputsRun again = Cookgraph("score '" + dir / "t.json" + "' --format json");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  // Parsed into names first: a range-for over parse(...)[...] would iterate
  // a temporary that is already destroyed (ASan: heap-use-after-free).
  const json original_doc = json::parse(original.out);
  const json again_doc = json::parse(again.out);
  std::map<std::string, double> avg;
  for (const json& node : original_doc["snapshots"][0]["nodes"]) {
    if (!node["avg_ms"].is_null()) avg[node["id"]] = node["avg_ms"];
  }
  size_t compared = 0;
  for (const json& node : again_doc["snapshots"][0]["nodes"]) {
    ASSERT_TRUE(avg.count(node["id"])) << node["id"];
    EXPECT_NEAR(node["avg_ms"].get<double>(), avg[node["id"]], 1e-6) << node["id"];
    ++compared;
  }
  EXPECT_EQ(compared, avg.size());
  const InputsRun to_stdout = Cookgraph("trace examples/gstreamer_pipeline.json -o -");
  EXPECT_EQ(to_stdout.exit_code, 0);
  EXPECT_TRUE(json::accept(to_stdout.out));
  const InputsRun bad = Cookgraph("trace tests/data/bad/malformed.json -o '" + dir / "bad.json" + "'");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "bad.json"));
}

// --limit on every command that reads inputs, before or after INPUT, one
// setting per occurrence; the last one of a key wins. The clean snapshot of
// the corpus nests 5 deep (frames.series.ID.cook_ms).
TEST(CliInputs, EveryReadingCommandTakesLimits) {
  TempDir dir;
  const std::string clean = "tests/data/bad/accepted/clean.json";
  const std::string error = "cookgraph: error: " + clean +
                            ":15:32: arrays and objects nest deeper than the depth limit of 4; if "
                            "the input is genuine, raise it with --limit depth=16\n";
  for (const std::string& command :
       {"score --limit nodes=9 --limit depth=4 " + clean, "graph " + clean + " --limit depth=4",
        "convert --limit depth=4 " + clean + " -o '" + dir / "c.json" + "'",
        "trace " + clean + " --limit depth=4 -o '" + dir / "t.json" + "'",
        "report " + clean + " --limit depth=4 --no-llm -o '" + dir / "r.md" + "'",
        "diff --limit depth=4 " + clean + " " + clean,
        "ask --limit depth=4 " + clean + " why --dry-run --model m",
        "score --limit depth=1 --limit depth=4 " + clean}) {
    const InputsRun run = Cookgraph(command);
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_EQ(run.err, error) << command;
    EXPECT_EQ(run.out, "") << command;
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
  EXPECT_EQ(Cookgraph("score --limit depth=5 " + clean).exit_code, 0);
  const InputsRun bad = Cookgraph("score " + clean + " --limit depth=lots");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "cookgraph: error: --limit: depth must be a whole number >= 1, got 'lots'\nRun with "
            "--help for usage.\n");
}

}  // namespace
