// The history's flags (store/history.cc) on synthetic series of runs: a node
// that slows down is flagged at the run where it did and nowhere else; noise,
// new nodes, incomplete runs and unscored snapshots flag nothing.

#include "store/history.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "store/history_formats.h"

namespace cookgraph {
namespace {

constexpr size_t kFrames = 300;

struct NodeSpec {
  std::string id;
  double avg_ms;
  double std_ms;  // population standard deviation
  size_t n = kFrames;
};

StoredSnapshot StoredSnapshotOf(const std::string& name, const std::vector<NodeSpec>& nodes,
                        double frame_mean, double frame_std = 1.0) {
  StoredSnapshot s;
  s.summary.file = name + ".json";
  s.summary.name = name;
  s.summary.engine = "touchdesigner";
  s.summary.frames = kFrames;
  s.summary.frame_mean_ms = frame_mean;
  s.summary.frame_p95_ms = frame_mean + 1.645 * frame_std;
  s.summary.frame_std_ms = frame_std;
  s.nodes.columns = {"file",   "name",   "engine", "id",           "score",
                     "avg_ms", "std_ms", "p95_ms", "cooked_frames"};
  for (const NodeSpec& n : nodes) {
    const bool cooked = n.n > 0;
    auto stat = [&](double v) { return cooked ? ScoreValue(v) : ScoreValue(); };
    s.nodes.rows.push_back({s.summary.file, name, std::string("touchdesigner"), n.id,
                            stat(n.avg_ms * (1 + n.std_ms)), stat(n.avg_ms), stat(n.std_ms),
                            stat(n.avg_ms + 1.645 * n.std_ms), uint64_t{n.n}});
  }
  return s;
}

// Run N started on day N of November 2026.
std::string TimeOf(int64_t id) {
  char text[32];
  std::snprintf(text, sizeof text, "2026-11-%02dT09:00:00.000Z", static_cast<int>(id));
  return text;
}

StoredRun Run(int64_t id, std::vector<StoredSnapshot> snapshots, bool complete = true) {
  StoredRun r;
  r.id = id;
  r.started_at = TimeOf(id);
  r.finished_at = complete ? r.started_at : "";
  r.info.label = "run-" + std::to_string(id);
  r.snapshots = std::move(snapshots);
  return r;
}

// 30 runs of a network of 40 nodes; each run's means move by their standard
// error (the noise of 300 frames). `slow` rises by `factor` from run `from`.
std::vector<StoredRun> Series(const std::string& slow = "", double factor = 1.0, int64_t from = 20,
                              int runs = 30) {
  std::mt19937_64 random(7);
  std::normal_distribution<double> unit(0.0, 1.0);
  std::vector<StoredRun> out;
  for (int64_t run = 1; run <= runs; ++run) {
    std::vector<NodeSpec> nodes;
    double frame = 2.0;
    for (int i = 0; i < 40; ++i) {
      const std::string id = "/project1/op" + std::to_string(i);
      const double base = 0.1 + 0.05 * i;
      const double std_ms = 0.1 * base;
      double avg = base + unit(random) * std_ms / std::sqrt(double(kFrames));
      if (id == slow && run >= from) avg *= factor;
      nodes.push_back({id, avg, std_ms});
      frame += avg;
    }
    frame += unit(random) * 1.0 / std::sqrt(double(kFrames));
    out.push_back(Run(run, {StoredSnapshotOf("show", nodes, frame)}));
  }
  return out;
}

std::string Flags(const History& h) {
  std::string out;
  for (const HistoryFlag& f : h.flags) {
    out += std::to_string(f.run) + ":" + (f.node.empty() ? "frame" : f.node) + " ";
  }
  return out;
}

TEST(History, ANodeThatSlowsDownIsFlaggedWhereItDidAndNowhereElse) {
  Result<History> h = AnalyseHistory(Series("/project1/op3", 1.3), {});
  ASSERT_TRUE(h) << h.error().Format();
  EXPECT_EQ(Flags(*h), "20:/project1/op3 ");
  const HistoryFlag& f = h->flags.at(0);
  EXPECT_EQ(f.label, "run-20");
  EXPECT_EQ(f.snapshot, "show");
  EXPECT_EQ(f.before_run, 19);
  EXPECT_NEAR(f.change_pct, 30, 2);
  EXPECT_LT(f.p_value, 1e-50);
  EXPECT_EQ(f.n_before, kFrames);
  EXPECT_EQ(f.n_after, kFrames);
  EXPECT_FALSE(h->latest_flagged);
  // The trend: the frame time and the top nodes, then the flagged node.
  ASSERT_EQ(h->snapshots.size(), 1u);
  const SnapshotHistory& s = h->snapshots[0];
  EXPECT_EQ(s.top, 5u);
  EXPECT_EQ(s.nodes,
            (std::vector<std::string>{"/project1/op39", "/project1/op38", "/project1/op37",
                                      "/project1/op36", "/project1/op35", "/project1/op3"}));
  ASSERT_EQ(s.entries.size(), 30u);
  EXPECT_TRUE(s.entries[19].nodes[5].flagged);
  EXPECT_EQ(s.entries[19].nodes[5].before_run, 19);
  EXPECT_FALSE(s.entries[20].nodes[5].flagged);    // run 21 against run 20: both slow
  EXPECT_EQ(s.entries[0].nodes[5].before_run, 0);  // the first run has nothing to compare with
}

// PyTorch's profiler names a trace WORKER.TIMESTAMP.pt.trace.json, WORKER
// being host_pid unless given: the series is its folder and a named worker.
TEST(History, KinetoTraceNamesJoinOneSeries) {
  EXPECT_EQ(KinetoSeries("log/resnet/gpu-box_4123.1764400000123.pt.trace.json"),
            "resnet/pt.trace");
  EXPECT_EQ(KinetoSeries("log/resnet/other-host_99.1764400999999.pt.trace.json.gz"),
            "resnet/pt.trace");
  EXPECT_EQ(KinetoSeries("log/resnet/rank0.1764400000123.pt.trace.json"),
            "resnet/rank0.pt.trace");
  EXPECT_EQ(KinetoSeries("gpu-box_4123.1764400000123.pt.trace.json"), "pt.trace");
  for (const char* other : {"log/resnet/trace.json", "log/x.123.pt.trace.json",
                            "log/resnet/gpu-box_4123.1764400000123.json"}) {
    EXPECT_EQ(KinetoSeries(other), std::nullopt) << other;
  }
}

// Every series with one run: nothing compared, and the history says so.
TEST(History, EverySeriesOfOneRunIsAWarningNotAnAllClear) {
  std::vector<StoredRun> runs = Series();
  runs.resize(3);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].snapshots[0].summary.name = "name-" + std::to_string(i);
  }
  Result<History> h = AnalyseHistory(runs, {});
  ASSERT_TRUE(h);
  ASSERT_EQ(h->warnings.size(), 1u);
  EXPECT_NE(h->warnings[0].find("every stored series has a single run (3 series over 3 runs)"),
            std::string::npos);
  // One series of the same three runs: compared, no warning.
  runs = Series();
  runs.resize(3);
  Result<History> one = AnalyseHistory(runs, {});
  ASSERT_TRUE(one);
  EXPECT_TRUE(one->warnings.empty());
}

TEST(History, NoiseAloneFlagsNothing) {
  Result<History> h = AnalyseHistory(Series(), {});
  ASSERT_TRUE(h);
  EXPECT_EQ(Flags(*h), "");
  // Some unchanged nodes do pass the t-test alone; the 5% gate keeps them out.
  HistoryOptions no_gate;
  no_gate.test.min_change_pct = 0;
  Result<History> loose = AnalyseHistory(Series(), no_gate);
  EXPECT_GT(loose->flags.size(), 3u) << "the size gate is what keeps noise out";
}

TEST(History, TheFlagIsWelchsTestOnTheStoredMoments) {
  Result<History> h = AnalyseHistory(Series("/project1/op3", 1.3), {});
  ASSERT_TRUE(h);
  const HistoryFlag& f = h->flags.at(0);
  // By hand: std_ms is the population deviation, so s² = std² · n / (n − 1).
  const double std_ms = 0.1 * (0.1 + 0.05 * 3);
  const double var = std_ms * std_ms * kFrames / (kFrames - 1);
  const double se = std::sqrt(var / kFrames + var / kFrames);
  EXPECT_NEAR(f.test.t, (f.after_ms - f.before_ms) / se, 1e-9);
  EXPECT_NEAR(f.test.df, 2.0 * (kFrames - 1), 1e-6);
}

TEST(History, ASlowerFrameTimeIsFlagged) {
  std::vector<StoredRun> runs = Series();
  for (size_t i = 24; i < runs.size(); ++i) *runs[i].snapshots[0].summary.frame_mean_ms *= 1.08;
  Result<History> h = AnalyseHistory(runs, {});
  EXPECT_EQ(Flags(*h), "25:frame ");
}

TEST(History, ASmallOrANoisyRiseIsNoFlag) {
  std::vector<StoredRun> small = Series("/project1/op3", 1.04);  // significant, but under 5%
  EXPECT_EQ(Flags(*AnalyseHistory(small, {})), "");
  std::vector<StoredRun> noisy = Series("/project1/op3", 1.3);
  for (StoredRun& r : noisy) {  // 3 cooked frames with a wide spread: not significant
    ScoreTable& t = r.snapshots[0].nodes;
    t.rows[3][6] = 0.5;
    t.rows[3][8] = uint64_t{3};
  }
  EXPECT_EQ(Flags(*AnalyseHistory(noisy, {})), "");
}

TEST(History, ANewNodeIsNotARegression) {
  std::vector<StoredRun> runs = Series();
  for (size_t i = 19; i < runs.size(); ++i) {
    StoredSnapshot& s = runs[i].snapshots[0];
    s.nodes.rows.push_back(s.nodes.rows.back());
    s.nodes.rows.back()[3] = std::string("/project1/new");
    s.nodes.rows.back()[4] = 99.0;  // score
    s.nodes.rows.back()[5] = 9.0;   // avg_ms
  }
  Result<History> h = AnalyseHistory(runs, {});
  EXPECT_EQ(Flags(*h), "");
  EXPECT_EQ(h->snapshots[0].nodes.front(), "/project1/new");  // the top node now
  EXPECT_EQ(h->snapshots[0].entries[19].nodes[0].before_run, 0);
}

TEST(History, AnIncompleteRunIsShownButNeitherJudgedNorABaseline) {
  std::vector<StoredRun> runs = Series("/project1/op3", 1.3);
  runs[19].finished_at.clear();  // run 20, the first slow one, was interrupted
  Result<History> h = AnalyseHistory(runs, {});
  EXPECT_EQ(Flags(*h), "21:/project1/op3 ");
  EXPECT_EQ(h->flags[0].before_run, 19);
  EXPECT_EQ(h->incomplete, std::vector<int64_t>{20});
  const HistoryEntry& e = h->snapshots[0].entries[19];
  EXPECT_FALSE(e.complete);
  EXPECT_EQ(e.frame.before_run, 0);
  EXPECT_TRUE(e.frame.mean_ms);
  // The latest run incomplete: --fail-on-regression judges the latest complete one.
  runs.back().finished_at.clear();
  runs[28].snapshots[0].nodes.rows[3][5] = 5.0;
  h = AnalyseHistory(runs, {});
  EXPECT_EQ(Flags(*h), "21:/project1/op3 29:/project1/op3 ");
  EXPECT_TRUE(h->latest_flagged);
}

TEST(History, ASnapshotThatCouldNotBeScoredIsSkipped) {
  std::vector<StoredRun> runs = Series("/project1/op3", 1.3);
  StoredSnapshot failed;
  failed.summary.file = "show.json";
  failed.summary.name = "show";
  failed.summary.error = "show.json:1:1: invalid JSON";
  runs[19].snapshots = {failed};
  Result<History> h = AnalyseHistory(runs, {});
  EXPECT_EQ(Flags(*h), "21:/project1/op3 ");
  EXPECT_EQ(h->snapshots[0].entries[19].error, "show.json:1:1: invalid JSON");
}

TEST(History, SinceShowsLaterRunsAndComparesTheFirstWithTheRunBefore) {
  HistoryOptions from20;
  from20.since_run = 20;
  Result<History> h = AnalyseHistory(Series("/project1/op3", 1.3), from20);
  EXPECT_EQ(Flags(*h), "20:/project1/op3 ");
  EXPECT_EQ(h->runs.size(), 11u);
  EXPECT_EQ(h->stored_runs, 30u);
  HistoryOptions from21;
  from21.since_run = 21;
  EXPECT_EQ(Flags(*AnalyseHistory(Series("/project1/op3", 1.3), from21)), "");
}

TEST(History, NodeShowsOneNodeAndSuggestsAClosestId) {
  HistoryOptions one;
  one.node = "/project1/op3";
  Result<History> h = AnalyseHistory(Series("/project1/op3", 1.3), one);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->snapshots[0].nodes, std::vector<std::string>{"/project1/op3"});
  EXPECT_EQ(Flags(*h), "20:/project1/op3 ");
  one.node = "/projct1/op3";
  h = AnalyseHistory(Series(), one);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().Format(),
            "--node: no stored run has node '/projct1/op3' (did you mean '/project1/op3'?)");
  HistoryOptions snapshot;
  snapshot.snapshot = "shw";
  h = AnalyseHistory(Series(), snapshot);
  ASSERT_FALSE(h);
  EXPECT_EQ(h.error().Format(),
            "--snapshot: no stored run has a snapshot 'shw' (did you mean 'show'?)");
}

TEST(History, SnapshotsAreToldApartByName) {
  std::vector<StoredRun> runs = Series("/project1/op3", 1.3);
  for (StoredRun& r : runs) {  // a second network in every run, unchanged
    StoredSnapshot other = StoredSnapshotOf("other", {{"/a", 1.0, 0.1}}, 3.0);
    r.snapshots.push_back(other);
  }
  Result<History> h = AnalyseHistory(runs, {});
  ASSERT_EQ(h->snapshots.size(), 2u);
  EXPECT_EQ(h->snapshots[1].key, "other");
  EXPECT_EQ(Flags(*h), "20:/project1/op3 ");
}

TEST(History, SinceTakesARunIdOrAUtcTime) {
  HistoryOptions o;
  ASSERT_TRUE(ParseSince("12", o));
  EXPECT_EQ(o.since_run, 12);
  ASSERT_TRUE(ParseSince("2026-11-27", o));
  EXPECT_EQ(o.since_time, "2026-11-27");
  ASSERT_TRUE(ParseSince("2026-11-27 09:30", o));
  EXPECT_EQ(o.since_time, "2026-11-27T09:30");
  ASSERT_TRUE(ParseSince("2026-11-27T09:30:05Z", o));
  EXPECT_EQ(o.since_time, "2026-11-27T09:30:05");
  for (const char* bad : {"", "0", "yesterday", "2026-13-01", "2026-11-27T25:00", "27/11/2026"}) {
    Status s = ParseSince(bad, o);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.error().Format(),
              std::string("--since: expected a run id (12) or a UTC date or time "
                          "(2026-11-27, 2026-11-27T09:30), got '") +
                  bad + "'");
  }
}

TEST(History, SinceATimeKeepsTheRunsStartedFromThen) {
  std::vector<StoredRun> runs = Series("/project1/op3", 1.3);
  HistoryOptions o;
  ASSERT_TRUE(ParseSince("2026-11-20", o));
  Result<History> h = AnalyseHistory(runs, o);
  EXPECT_EQ(h->runs.front().id, 20);
  EXPECT_EQ(Flags(*h), "20:/project1/op3 ");
}

TEST(HistoryFormats, TheTableShowsTheFlagAndHostileTextAsText) {
  std::vector<StoredRun> runs = Series("/project1/op3", 1.3);
  runs[19].info.label = "evil\x1b[31m";
  Result<History> h = AnalyseHistory(runs, {});
  const std::string table = RenderHistory(HistoryFormat::kTable, *h, "runs.db");
  EXPECT_EQ(table.find('\x1b'), std::string::npos);
  EXPECT_NE(table.find("flags (1):"), std::string::npos) << table;
  EXPECT_NE(table.find("[6] /project1/op3 (flagged; not a top node)"), std::string::npos) << table;
  EXPECT_NE(table.find("evil?[31m"), std::string::npos) << table;
  const std::string csv = RenderHistory(HistoryFormat::kCsv, *h, "runs.db");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 30 * 7);
}

}  // namespace
}  // namespace cookgraph
