// The rolling window: parts joined into frames, gaps and late frames counted,
// the last N frames as a snapshot whose statistics are score's.

#include "live/window.h"

#include <gtest/gtest.h>

#include "metrics/analysis.h"

namespace cookgraph {
namespace {

FrameRecord Frame(int64_t frame, std::vector<std::pair<std::string, double>> cooks,
                  bool more = false, double frame_ms = kMissing) {
  FrameRecord r{.frame = frame, .frame_ms = frame_ms, .more = more};
  for (auto& [id, ms] : cooks) {
    NodeSample s{.id = id};
    s.values[static_cast<size_t>(Metric::kCookMs)] = ms;
    r.nodes.push_back(std::move(s));
  }
  return r;
}

TEST(LiveWindow, GapsLostAndLateFramesAreCounted) {
  LiveWindow w(100, false);
  w.Add(Frame(10, {{"a", 1}}));
  w.Add(Frame(11, {{"a", 1}}));
  w.Add(Frame(14, {{"a", 1}}));  // 12 and 13 lost: one gap
  w.Add(Frame(13, {{"a", 1}}));  // late: dropped
  w.Add(Frame(14, {{"a", 1}}));  // repeated: dropped
  w.Add(Frame(20, {{"a", 1}}));  // 15-19 lost
  const StreamCounts& c = w.counts();
  EXPECT_EQ(c.frames, 4u);
  EXPECT_EQ(c.gaps, 2u);
  EXPECT_EQ(c.lost_frames, 7u);
  EXPECT_EQ(c.late, 2u);
  EXPECT_EQ(c.first_frame, 10);
  EXPECT_EQ(c.last_frame, 20);
}

TEST(LiveWindow, PartsJoinIntoOneFrameAndAMissingLastPartIsIncomplete) {
  LiveWindow w(100, false);
  std::vector<int64_t> completed;
  w.OnFrame([&](const LiveFrame& f) { completed.push_back(f.frame); });
  w.Add(Frame(1, {{"a", 1.5}}, true, 9.0));
  w.Add(Frame(1, {{"b", 2}, {"a", 0.5}}, true));  // "a" twice in one frame: adds up
  EXPECT_TRUE(completed.empty());
  w.Add(Frame(1, {{"c", 3}}));
  EXPECT_EQ(completed, std::vector<int64_t>{1});
  w.Add(Frame(2, {{"a", 4}}, true));  // its last part never comes
  w.Add(Frame(3, {{"a", 5}}));
  EXPECT_EQ(completed, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(w.counts().incomplete, 1u);
  EXPECT_EQ(w.counts().gaps, 0u);
  w.Add(Frame(4, {{"a", 6}}, true));
  w.Flush();
  EXPECT_EQ(w.counts().incomplete, 2u);
  EXPECT_EQ(w.counts().frames, 4u);

  Snapshot s = w.WindowSnapshot(SnapshotInfo{});
  ASSERT_EQ(s.network.size(), 3u);
  EXPECT_EQ(s.network.node(0).id, "a");
  ASSERT_EQ(s.samples.frame_count(), 4u);
  auto a = s.samples.series(0, Metric::kCookMs);
  EXPECT_EQ(std::vector<double>(a.begin(), a.end()), (std::vector<double>{2.0, 4.0, 5.0, 6.0}));
  auto b = s.samples.series(1, Metric::kCookMs);
  EXPECT_EQ(b[0], 2.0);
  EXPECT_TRUE(IsMissing(b[1]));  // did not cook: missing, not zero
  EXPECT_EQ(s.samples.frame_ms()[0], 9.0);
  EXPECT_TRUE(IsMissing(s.samples.frame_ms()[1]));
}

TEST(LiveWindow, KeepsTheLastNFramesAndTheRecordKeepsAll) {
  LiveWindow rolling(3, false), recording(3, true);
  for (int64_t f = 1; f <= 10; ++f) {
    rolling.Add(Frame(f, {{"a", static_cast<double>(f)}}));
    recording.Add(Frame(f, {{"a", static_cast<double>(f)}}));
  }
  for (LiveWindow* w : {&rolling, &recording}) {
    Snapshot s = w->WindowSnapshot(SnapshotInfo{});
    EXPECT_EQ(s.samples.frame_index(), (std::vector<int64_t>{8, 9, 10}));
    Analysis analysis = Analyse(s);
    EXPECT_DOUBLE_EQ(analysis.stats[0].avg_ms, 9.0);
    EXPECT_DOUBLE_EQ(analysis.stats[0].max_ms, 10.0);
    EXPECT_DOUBLE_EQ(analysis.stats[0].std_ms, std::sqrt(2.0 / 3.0));
  }
  EXPECT_EQ(recording.RecordSnapshot(SnapshotInfo{})->samples.frame_count(), 10u);
}

TEST(LiveWindow, NothingToRecordIsAnErrorNotASnapshotThatCannotBeRead) {
  LiveWindow nothing(3, true);
  EXPECT_EQ(nothing.RecordSnapshot(SnapshotInfo{}).error().message,
            "no frame was received: not written");
  // Frames that name no node (an OSC bundle of /cookgraph/frame alone): the
  // recording would be a snapshot with no node, which no reader accepts
  // (found by fuzz/live_fuzz.cc).
  LiveWindow empty(3, true);
  empty.Add(Frame(1, {}));
  empty.Add(Frame(2, {}));
  EXPECT_EQ(empty.RecordSnapshot(SnapshotInfo{}).error().message,
            "2 frame(s) received, but no node in any of them: not written");
}

TEST(LiveWindow, ACookWithoutACountCountsOne) {
  LiveWindow w(10, false);
  FrameRecord twice = Frame(1, {{"a", 1.0}});
  twice.nodes[0].values[static_cast<size_t>(Metric::kCooks)] = 2;
  w.Add(std::move(twice));
  w.Add(Frame(2, {{"a", 1.0}}));  // a cook_ms without a count: one cook
  w.Add(Frame(3, {}));            // did not cook: no cook
  Snapshot s = w.WindowSnapshot(SnapshotInfo{});
  auto cooks = s.samples.series(0, Metric::kCooks);
  ASSERT_EQ(cooks.size(), 3u);
  EXPECT_EQ(cooks[0], 2.0);
  EXPECT_EQ(cooks[1], 1.0);
  EXPECT_TRUE(IsMissing(cooks[2]));
  EXPECT_DOUBLE_EQ(Analyse(s).stats[0].cooks_per_frame, 1.0);
}

TEST(LiveWindow, ANodeFirstSeenLaterHasMissingValuesBefore) {
  LiveWindow w(10, false);
  w.Add(Frame(1, {{"a", 1}}));
  w.Add(Frame(2, {{"a", 1}, {"late_comer", 3}}));
  Snapshot s = w.WindowSnapshot(SnapshotInfo{});
  auto series = s.samples.series(1, Metric::kCookMs);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_TRUE(IsMissing(series[0]));
  EXPECT_EQ(series[1], 3.0);
  Analysis analysis = Analyse(s);
  EXPECT_EQ(analysis.stats[1].cooked_frames, 1u);
  EXPECT_DOUBLE_EQ(analysis.stats[1].per_frame_ms, 1.5);  // sum over cooked ÷ all frames
}

}  // namespace
}  // namespace cookgraph
