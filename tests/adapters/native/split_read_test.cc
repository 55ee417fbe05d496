// The split read of a JSON snapshot (adapters/native/snapshot_reader.h,
// SnapshotReadOptions; docs/performance.md#a-native-snapshot-in-two-halves):
// wherever the second half is looked for, the snapshot, its warnings and its
// errors are the ones a one-thread read gives, and the halves are joined at a
// node's series.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <string>
#include <vector>

#include "adapters/byte_source.h"
#include "adapters/native/snapshot_reader.h"
#include "tests/sanitizers/sanitized.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

// Everything a read gives, as text: the error, or the snapshot's info, nodes,
// edges, frames, every series (values as hex floats) and warnings.
std::string Describe(const Result<Snapshot>& r) {
  if (!r) return "error: " + r.error().Format();
  const Snapshot& s = *r;
  std::string out = fmt::format("{} {} {} {} {} {}\n", s.info.engine, s.info.name, s.info.captured,
                                s.info.fps.value_or(-1), s.info.frame_budget_ms.value_or(-1),
                                fmt::join(s.info.source, ","));
  for (NodeIndex i = 0; i < s.network.size(); ++i) {
    const Node& n = s.network.node(i);
    out += fmt::format("node {} {} {} {} {}", n.id, n.type, n.family, n.parent, n.output);
    for (const auto& [key, value] : n.params) out += fmt::format(" {}={}", key, value);
    out += "\n";
  }
  for (const Edge& e : s.network.edges()) {
    out += fmt::format("edge {} {} {}\n", e.from, e.to, static_cast<int>(e.kind));
  }
  auto values = [&](std::span<const double> v) {
    std::string text;
    for (double x : v) text += fmt::format(" {:a}", x);
    return text;
  };
  out +=
      fmt::format("index {}\nframe_ms{}\nprofiler_ms{}\n", fmt::join(s.samples.frame_index(), ","),
                  values(s.samples.frame_ms()), values(s.samples.profiler_ms()));
  for (NodeIndex i = 0; i < s.network.size(); ++i) {
    for (size_t m = 0; m < kMetricCount; ++m) {
      if (!s.samples.has_series(i, static_cast<Metric>(m))) continue;
      out += fmt::format("series {} {}{}\n", i, m,
                         values(s.samples.series(i, static_cast<Metric>(m))));
    }
  }
  for (const std::string& w : s.warnings) out += "warning: " + w + "\n";
  return out;
}

Result<Snapshot> ReadText(std::string_view text, std::optional<uint64_t> split_from,
                          bool* joined = nullptr) {
  auto source = ByteSource::FromString(text, "snapshot.json");
  return ReadSnapshotSource(*source, {.threads = split_from ? JsonThreads::kTwo : JsonThreads::kOne,
                                      .split_from = split_from,
                                      .joined = joined});
}

// Reads `text` split from every offset in `offsets` (every byte: every 7th
// under ThreadSanitizer, where each split's thread costs tens of
// milliseconds) and checks each read against the one-thread read; returns
// how many splits were joined.
int ExpectReadAlike(std::string_view text) {
  const std::string one = Describe(ReadText(text, std::nullopt));
  const uint64_t stride = testing::kThreadSanitizer ? 7 : 1;
  int joined = 0;
  for (uint64_t from = 0; from < text.size(); from += stride) {
    bool split_joined = false;
    EXPECT_EQ(one, Describe(ReadText(text, from, &split_joined))) << "split from byte " << from;
    joined += split_joined;
  }
  return joined;
}

// One node's series a line, as the TouchDesigner exporter and gen_native.py
// write: several metrics, nulls, an unknown metric and unknown keys on both
// sides of any split.
constexpr const char* kSnapshot = R"({
  "cookgraph": 1,
  "engine": "touchdesigner",
  "name": "split",
  "fps": 60,
  "nodes": [
    {"id": "/p/a", "type": "noiseTOP", "family": "TOP", "params": {"resolutionw": "1280"}},
    {"id": "/p/b", "type": "levelTOP", "family": "TOP", "inputs": ["/p/a"]},
    {"id": "/p/c", "type": "nullTOP", "family": "TOP", "inputs": ["/p/b"], "output": true},
    {"id": "/p/d", "type": "mathCHOP", "family": "CHOP", "refs": ["/p/c"]}
  ],
  "frames": {
    "index": [10, 11, 12],
    "frame_ms": [16.1, null, 17.5],
    "series": {
      "/p/a": {"cook_ms": [1.5, 1.25, 2], "gpu_ms": [0.5, null, 0.75]},
      "/p/b": {"cook_ms": [0.1, 0.2, 0.3], "shading": [1, 2, 3]},
      "/p/c": {"cooks": [1, 1, 2], "cook_ms": [3e-1, 4.5E0, 0]},
      "/p/d": {"cook_ms": [0.01, 0.02, 0.03], "gpu_mem_mb": [10, 10, 12], "shading": [4, 5, 6]}
    },
    "profiler_ms": [15, 16, 17]
  },
  "comment": "after the frames"
})";

TEST(SnapshotSplitRead, ASnapshotReadsAlikeSplitAtAnyByte) {
  EXPECT_GT(ExpectReadAlike(kSnapshot), 0);
}

TEST(SnapshotSplitRead, TheHalvesJoinAtANodesSeries) {
  const std::string text = kSnapshot;
  bool joined = false;
  const auto split = ReadText(text, text.find("\"/p/c\": {\"cooks\""), &joined);
  ASSERT_TRUE(split) << split.error().Format();
  EXPECT_TRUE(joined);
  EXPECT_EQ(Describe(split), Describe(ReadText(text, std::nullopt)));
  // The unknown metric, seen in both halves: one warning, counted twice, at
  // its first place.
  ASSERT_EQ(split->warnings.size(), 2u);
  EXPECT_NE(split->warnings[1].find("2 times"), std::string::npos) << split->warnings[1];
}

TEST(SnapshotSplitRead, ACompactSnapshotReadsAlikeSplitAtAnyByte) {
  // One line, ids that hold '", "' and a params value shaped like a series:
  // some guesses fall inside a string or a node.
  const std::string text =
      R"({"cookgraph":1,"nodes":[{"id":"a\", \"b","type":"t","params":{"x":"1"}},)"
      R"({"id":"b","type":"t","params":{"y":{"cook_ms":1}}}],"frames":{"index":[1,2],)"
      R"("series":{"a\", \"b":{"cook_ms":[1,2]},"b":{"cook_ms":[3,4]},"c, \"d\": {\"cook_ms\"":{"cooks":[1,2]}}}})";
  ExpectReadAlike(text);
}

// Errors a one-thread read finds while it reads (a duplicate series, a
// series of another length than the index before it, a bad value), or at
// its end (an unknown id, lengths against an index after the series), in
// either half: the same error, at the same place.
TEST(SnapshotSplitRead, ErrorsInEitherHalfAreTheOnesOneThreadGives) {
  const std::string head = R"({"cookgraph": 1,
  "nodes": [{"id": "a", "type": "t"}, {"id": "b", "type": "t"}, {"id": "c", "type": "t"}],
  "frames": {
    "index": [1, 2],
    "series": {
      "a": {"cook_ms": [1, 2]},
)";
  const std::vector<std::string> tails = {
      // a duplicate across the halves
      R"(      "b": {"cook_ms": [1, 2]},
      "a": {"cook_ms": [3, 4]}
    }}})",
      // lengths against the index read before
      R"(      "b": {"cook_ms": [1, 2]},
      "c": {"cook_ms": [3, 4, 5]}
    }}})",
      // an unknown id, then a wrong length: the length is found first
      R"(      "x": {"cook_ms": [1, 2]},
      "c": {"cook_ms": [3]}
    }}})",
      // an unknown id at the end
      R"(      "b": {"cook_ms": [1, 2]},
      "x": {"cook_ms": [3, 4]}
    }}})",
      // a bad value, then a syntax error
      R"(      "b": {"cook_ms": [1, -2]},
      "c": {"cook_ms": [3, 4],}
    }}})",
      // the input ends inside the series
      R"(      "b": {"cook_ms": [1, 2]},
      "c": {"cook_ms": [3, )",
  };
  for (const std::string& tail : tails) {
    SCOPED_TRACE(tail);
    const std::string text = head + tail;
    EXPECT_FALSE(ReadText(text, std::nullopt));
    ExpectReadAlike(text);
  }
  // The index after the series: every length is checked at the end.
  const std::string late = R"({"cookgraph": 1,
  "nodes": [{"id": "a", "type": "t"}, {"id": "b", "type": "t"}],
  "frames": {
    "series": {
      "a": {"cook_ms": [1, 2]},
      "b": {"cook_ms": [1, 2, 3]}
    },
    "index": [1, 2]}})";
  EXPECT_FALSE(ReadText(late, std::nullopt));
  EXPECT_GT(ExpectReadAlike(late), 0);
}

// One line, two metrics a node (as json.dumps writes): the first key after a
// ',' past the middle is most often a metric, and the second half starts at
// the next node's series instead.
TEST(SnapshotSplitRead, ACompactSnapshotOfSeveralMetricsIsJoinedPastAMetric) {
  std::string text = R"({"cookgraph": 1, "nodes": [)";
  constexpr int kNodes = 200;
  for (int i = 0; i < kNodes; ++i) {
    text += fmt::format(R"({}{{"id": "n{}", "type": "t"}})", i ? ", " : "", i);
  }
  text += R"(], "frames": {"index": [1, 2, 3], "series": {)";
  for (int i = 0; i < kNodes; ++i) {
    text += fmt::format(R"({}"n{}": {{"cook_ms": [1, 2, {}], "gpu_ms": [0.5, 0.5, 0.{}]}})",
                        i ? ", " : "", i, i, i % 10);
  }
  text += "}}}";
  const std::string one = Describe(ReadText(text, std::nullopt));
  int joined = 0, splits = 0;
  for (uint64_t from = text.size() / 2; from < text.size() * 3 / 4; from += 97, ++splits) {
    bool split_joined = false;
    EXPECT_EQ(one, Describe(ReadText(text, from, &split_joined))) << "split from byte " << from;
    joined += split_joined;
  }
  EXPECT_EQ(joined, splits);
}

// A snapshot of several of the reader's 1 MiB blocks, as a file, read the
// way `cookgraph` reads one: split at its middle, and joined. A gzip file read
// block by block is read by one reader (it is inflated from the start); one
// that ReadSnapshotFile inflates whole (a string then, which two readers can
// share from 16 MiB on) reads the same.
TEST(SnapshotSplitRead, AFileIsSplitAtItsMiddleAndAGzipStreamIsNot) {
  std::string text = R"({"cookgraph": 1, "fps": 30, "nodes": [)";
  constexpr int kNodes = 2000;
  for (int i = 0; i < kNodes; ++i) {
    text += fmt::format(R"({}{{"id": "/p/n{}", "type": "t", "inputs": [{}]}})", i ? ",\n" : "\n", i,
                        i ? fmt::format("\"/p/n{}\"", i - 1) : "");
  }
  constexpr int kFrames = 200;
  std::vector<int> index(kFrames);
  for (int f = 0; f < kFrames; ++f) index[f] = 100 + f;
  text += fmt::format("],\n\"frames\": {{\"index\": [{}],\n\"series\": {{", fmt::join(index, ","));
  for (int i = 0; i < kNodes; ++i) {
    text += fmt::format("{}\"/p/n{}\": {{\"cook_ms\": [", i ? ",\n" : "\n", i);
    for (int f = 0; f < kFrames; ++f) {
      text += fmt::format("{}{}.{:03}", f ? "," : "", (i * 7 + f) % 13, (i + f) % 997);
    }
    text += "]}";
  }
  text += "\n}}}\n";
  ASSERT_GT(text.size(), 2u << 20);
  testing::TempDir dir;
  const std::string plain = dir / "large.json";
  std::ofstream(plain) << text;
  const std::string one = Describe(ReadText(text, std::nullopt));
  ASSERT_EQ(one.find("error"), std::string::npos) << one;
  auto read_file = [](const std::string& path, bool& joined) {
    auto source = ByteSource::Open(path);
    EXPECT_TRUE(source);
    return ReadSnapshotSource(**source, {.threads = JsonThreads::kTwo, .joined = &joined});
  };
  bool joined = false;
  EXPECT_EQ(Describe(read_file(plain, joined)), one);
  EXPECT_TRUE(joined);

  const std::string gz = dir / "large.json.gz";
  gzFile out = gzopen(gz.c_str(), "wb");
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  joined = true;
  EXPECT_EQ(Describe(read_file(gz, joined)), one);
  EXPECT_FALSE(joined);
  EXPECT_EQ(Describe(ReadSnapshotFile(gz)), one);
}

}  // namespace
}  // namespace cookgraph
