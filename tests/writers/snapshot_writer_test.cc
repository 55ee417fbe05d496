#include "writers/snapshot_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "adapters/native/snapshot_reader.h"

#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

namespace fs = std::filesystem;

// A snapshot with every feature of the format: metadata, params, explicit
// parents, all six edge kinds, outputs, all five metrics, missing values,
// awkward strings and numbers that need all 17 digits.
Snapshot Rich() {
  Snapshot s;
  s.info.engine = "touchdesigner";
  s.info.name = "rich \"one\"\tä";
  s.info.source = {"a.toe", "b.toe"};
  s.info.captured = "2026-11-21T12:00:00Z";
  s.info.fps = 59.94;
  s.info.frame_budget_ms = 1000.0 / 59.94;
  Network& n = s.network;
  EXPECT_TRUE(n.AddNode({.id = "/p/a", .type = "noiseTOP", .family = "TOP",
                         .params = {{"resolutionw", "1920"}, {"expr", "op('x')[\"y\"]\\n"}}}));
  EXPECT_TRUE(n.AddNode({.id = "/p/b, with comma", .type = "t", .parent = "bin0"}));
  EXPECT_TRUE(n.AddNode({.id = "c", .output = true}));
  EXPECT_TRUE(n.AddNode({.id = "ctrl\x01\x7f\xc2\x85", .family = "k"}));  // C0, DEL, NEL
  n.AddEdge(0, 1, EdgeKind::kData);
  n.AddEdge(0, 1, EdgeKind::kData);  // parallel edges survive
  n.AddEdge(2, 1, EdgeKind::kRef);
  n.AddEdge(2, 0, EdgeKind::kFeedback);
  n.AddEdge(1, 2, EdgeKind::kData);
  n.AddEdge(0, 3, EdgeKind::kCall);
  n.AddEdge(0, 3, EdgeKind::kLaunch);
  n.AddEdge(3, 2, EdgeKind::kFlow);
  s.samples = Samples(4);
  s.samples.SetFrameIndex({-1, 0, 9007199254740993});
  s.samples.SetFrameMs({16.1, kMissing, 0.1 + 0.2});
  s.samples.SetProfilerMs({0.25, 1.0 / 3, kMissing});
  s.samples.SetSeries(0, Metric::kCookMs, {0.1 + 0.2, kMissing, 1e-300});
  s.samples.SetSeries(0, Metric::kCooks, {1, 0, 2});
  s.samples.SetSeries(1, Metric::kGpuMs, {1.0 / 3, 2.0 / 3, 5e11 + 0.1});
  s.samples.SetSeries(2, Metric::kCpuMemMb, {7.9, 7.9, 7.9});
  s.samples.SetSeries(2, Metric::kGpuMemMb, {0, 0, 0});
  return s;
}

bool SameBits(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return false;
  return a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void ExpectSame(const Snapshot& a, const Snapshot& b) {
  EXPECT_EQ(a.info.engine, b.info.engine);
  EXPECT_EQ(a.info.name, b.info.name);
  EXPECT_EQ(a.info.source, b.info.source);
  EXPECT_EQ(a.info.captured, b.info.captured);
  EXPECT_EQ(a.info.fps, b.info.fps);
  EXPECT_EQ(a.info.frame_budget_ms, b.info.frame_budget_ms);
  ASSERT_EQ(a.network.size(), b.network.size());
  for (NodeIndex i = 0; i < a.network.size(); ++i) {
    const Node& x = a.network.node(i);
    const Node& y = b.network.node(i);
    EXPECT_EQ(x.id, y.id);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.family, y.family);
    EXPECT_EQ(x.parent, y.parent);
    EXPECT_EQ(x.params, y.params);
    EXPECT_EQ(x.output, y.output);
  }
  // Edges as a multiset: the writer groups them by target.
  auto edges = [](const Network& n) {
    std::vector<std::tuple<NodeIndex, NodeIndex, int>> out;
    for (const Edge& e : n.edges()) out.emplace_back(e.from, e.to, static_cast<int>(e.kind));
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(edges(a.network), edges(b.network));
  EXPECT_EQ(a.samples.frame_index(), b.samples.frame_index());
  EXPECT_TRUE(SameBits(a.samples.frame_ms(), b.samples.frame_ms()));
  EXPECT_TRUE(SameBits(a.samples.profiler_ms(), b.samples.profiler_ms()));
  for (NodeIndex i = 0; i < a.network.size(); ++i) {
    for (int m = 0; m < kMetricCount; ++m) {
      EXPECT_TRUE(SameBits(a.samples.series(i, static_cast<Metric>(m)),
                           b.samples.series(i, static_cast<Metric>(m))))
          << "node " << i << " metric " << m;
    }
  }
}

using cookgraph::testing::TempDir;

TEST(SnapshotWriter, JsonRoundTripLosesNothing) {
  Snapshot original = Rich();
  std::string text = SnapshotToJson(original);
  auto back = ParseSnapshot(text, Spelling::kJson, "rt.json");
  ASSERT_TRUE(back) << back.error().Format() << "\n" << text;
  ExpectSame(original, *back);
  EXPECT_EQ(SnapshotToJson(*back), text);  // stable after one pass
}

TEST(SnapshotWriter, YamlRoundTripLosesNothing) {
  Snapshot original = Rich();
  std::string text = SnapshotToYaml(original);
  auto back = ParseSnapshot(text, Spelling::kYaml, "rt.yaml");
  ASSERT_TRUE(back) << back.error().Format() << "\n" << text;
  ExpectSame(original, *back);
  EXPECT_EQ(SnapshotToYaml(*back), text);
}

TEST(SnapshotWriter, ProfilerMsFollowsFrameMsAndIsLeftOutWhenAbsent) {
  Snapshot s = Rich();
  EXPECT_NE(SnapshotToJson(s).find("    \"frame_ms\": [16.1, null, 0.30000000000000004],\n"
                                   "    \"profiler_ms\": [0.25, 0.3333333333333333, null],\n"),
            std::string::npos)
      << SnapshotToJson(s);
  EXPECT_NE(SnapshotToYaml(s).find("  frame_ms: [16.1, null, 0.30000000000000004]\n"
                                   "  profiler_ms: [0.25, 0.3333333333333333, null]\n"),
            std::string::npos)
      << SnapshotToYaml(s);
  s.samples.SetProfilerMs({});
  EXPECT_EQ(SnapshotToJson(s).find("profiler_ms"), std::string::npos);
  EXPECT_EQ(SnapshotToYaml(s).find("profiler_ms"), std::string::npos);
}

TEST(SnapshotWriter, KeysLongerThanYamlAllowsImplicitlyRoundTrip) {
  Snapshot s;
  std::string id = "/p/" + std::string(1100, 'x');
  std::string param(1100, 'k');
  ASSERT_TRUE(s.network.AddNode({.id = id, .params = {{param, "v"}, {"short", "w"}}}));
  s.samples = Samples(1);
  s.samples.SetFrameIndex({7});
  s.samples.SetSeries(0, Metric::kCookMs, {1.5});
  for (const std::string& text : {SnapshotToYaml(s), SnapshotToJson(s)}) {
    bool yaml = text.rfind("cookgraph: 1", 0) == 0;
    auto back = ParseSnapshot(text, yaml ? Spelling::kYaml : Spelling::kJson, "long");
    ASSERT_TRUE(back) << back.error().Format();
    ExpectSame(s, *back);
  }
}

TEST(SnapshotWriter, FilesInEverySpellingRoundTrip) {
  TempDir dir;
  Snapshot original = Rich();
  for (const char* name : {"x.json", "x.json.gz", "x.yaml", "x.yml"}) {
    std::string path = dir / name;
    ASSERT_TRUE(WriteSnapshotFile(original, path)) << name;
    auto back = ReadSnapshotFile(path);
    ASSERT_TRUE(back) << back.error().Format();
    ExpectSame(original, *back);
  }
  // The gzip file really is gzip.
  std::ifstream gz(dir / "x.json.gz", std::ios::binary);
  char magic[2] = {};
  gz.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  // No temporary files are left behind.
  size_t files = 0;
  for ([[maybe_unused]] auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 4u);
}

TEST(SnapshotWriter, UnknownExtensionIsRefusedAndWritesNothing) {
  TempDir dir;
  Status s = WriteSnapshotFile(Rich(), dir / "x.txt");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "unknown output extension: use .json, .json.gz, .yaml or .yml");
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(SnapshotWriter, UnwritableFolderIsAnErrorNamingTheFile) {
  Status s = WriteSnapshotFile(Rich(), "/nonexistent/dir/x.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().file, "/nonexistent/dir/x.json");
}

TEST(SnapshotReaderFiles, GzipIsRecognisedByContentAndTruncationIsReported) {
  TempDir dir;
  std::string path = dir / "x.json.gz";
  ASSERT_TRUE(WriteSnapshotFile(Rich(), path));
  // Same bytes under a name without the extension: still read as gzip JSON.
  fs::copy_file(path, dir / "renamed.dat");
  EXPECT_TRUE(ReadSnapshotFile(dir / "renamed.dat"));
  // Cut the gzip stream in half.
  auto size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  auto cut = ReadSnapshotFile(path);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().file, path);
}

TEST(SnapshotReaderFiles, EmptyFile) {
  TempDir dir;
  std::ofstream(dir / "empty.json").close();
  auto r = ReadSnapshotFile(dir / "empty.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "the file is empty");
}

}  // namespace
}  // namespace cookgraph
