#include "metrics/diff.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace cookgraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A snapshot of unconnected nodes with the given cook_ms series (each empty,
// or as long as the longest: the frame count).
Snapshot MakeSnapshot(const std::vector<std::pair<std::string, std::vector<double>>>& series) {
  Snapshot s;
  for (const auto& [id, values] : series) EXPECT_TRUE(s.network.AddNode({.id = id}).ok());
  s.samples = Samples(s.network.size());
  size_t frames = 0;
  for (const auto& [id, values] : series) frames = std::max(frames, values.size());
  std::vector<int64_t> index(frames);
  for (size_t f = 0; f < frames; ++f) index[f] = static_cast<int64_t>(f);
  s.samples.SetFrameIndex(index);
  for (NodeIndex n = 0; n < series.size(); ++n) {
    if (!series[n].second.empty()) s.samples.SetSeries(n, Metric::kCookMs, series[n].second);
  }
  return s;
}

// `frames` values alternating mean - spread, mean + spread.
std::vector<double> Wobble(double mean, double spread, size_t frames) {
  std::vector<double> v(frames);
  for (size_t f = 0; f < frames; ++f) v[f] = mean + (f % 2 ? spread : -spread);
  return v;
}

SnapshotDiff Compare(const Snapshot& before, const Snapshot& after, DiffOptions options = {}) {
  return CompareSnapshots(before, Analyse(before), after, Analyse(after), options);
}

const NodeDiff& Find(const SnapshotDiff& diff, const std::string& id) {
  for (const NodeDiff& d : diff.nodes) {
    if (d.id == id) return d;
  }
  static const NodeDiff kNone;
  ADD_FAILURE() << "no node " << id;
  return kNone;
}

TEST(Diff, MatchesNodesByIdAndListsAddedAndRemoved) {
  const Snapshot before = MakeSnapshot(
      {{"/a", Wobble(1, 0.1, 10)}, {"/gone", Wobble(1, 0.1, 10)}, {"/b", Wobble(2, 0.1, 10)}});
  const Snapshot after = MakeSnapshot(
      {{"/b", Wobble(2, 0.1, 10)}, {"/new", Wobble(1, 0.1, 10)}, {"/a", Wobble(1, 0.1, 10)}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_THAT(diff.added, ElementsAre("/new"));
  EXPECT_THAT(diff.removed, ElementsAre("/gone"));
  ASSERT_EQ(diff.nodes.size(), 2u);
  const NodeDiff& b = Find(diff, "/b");
  EXPECT_EQ(b.before, 2u);
  EXPECT_EQ(b.after, 0u);
  EXPECT_EQ(diff.by_after[0], static_cast<size_t>(&b - diff.nodes.data()));
  EXPECT_EQ(diff.by_after[1], SnapshotDiff::kNotMatched);
  EXPECT_FALSE(diff.regressed());
}

TEST(Diff, ASignificantSlowdownOverTheMinimumIsARegression) {
  const Snapshot before =
      MakeSnapshot({{"/slow", Wobble(1.0, 0.05, 100)}, {"/same", Wobble(1, 0.05, 100)}});
  const Snapshot after =
      MakeSnapshot({{"/slow", Wobble(1.3, 0.05, 100)}, {"/same", Wobble(1, 0.05, 100)}});
  const SnapshotDiff diff = Compare(before, after);
  const NodeDiff& slow = Find(diff, "/slow");
  EXPECT_TRUE(slow.regression);
  EXPECT_NEAR(*slow.avg_pct, 30.0, 1e-9);
  EXPECT_NEAR(*slow.per_frame_pct, 30.0, 1e-9);
  ASSERT_TRUE(slow.p_value());
  EXPECT_LT(*slow.p_value(), 1e-12);
  EXPECT_TRUE(slow.note.empty());
  const NodeDiff& same = Find(diff, "/same");
  EXPECT_FALSE(same.regression);
  EXPECT_NEAR(*same.avg_pct, 0.0, 1e-9);
  EXPECT_EQ(diff.regressions, 1u);
  EXPECT_EQ(diff.nodes.front().id, "/slow") << "regressions come first";
  EXPECT_TRUE(diff.regressed());
}

TEST(Diff, ASignificantChangeUnderTheMinimumIsNoRegression) {
  // +2%, with so little noise that p is tiny: the size gate keeps it out.
  const Snapshot before = MakeSnapshot({{"/n", Wobble(1.0, 0.001, 200)}});
  const Snapshot after = MakeSnapshot({{"/n", Wobble(1.02, 0.001, 200)}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_LT(*diff.nodes[0].p_value(), 1e-12);
  EXPECT_FALSE(diff.nodes[0].regression);
  EXPECT_TRUE(Compare(before, after, {.alpha = 0.01, .min_change_pct = 1}).nodes[0].regression);
}

TEST(Diff, ALargeChangeInNoiseIsNoRegression) {
  // +20% of the mean, but the samples vary by ±100%: not significant.
  const Snapshot before = MakeSnapshot({{"/n", {1, 0.1, 1.9, 0.2, 1.8}}});
  const Snapshot after = MakeSnapshot({{"/n", {1.2, 0.1, 2.3, 0.3, 2.1}}});
  const SnapshotDiff diff = Compare(before, after);
  const NodeDiff& d = diff.nodes[0];
  EXPECT_GT(*d.avg_pct, 5.0);
  EXPECT_GT(*d.p_value(), 0.01);
  EXPECT_FALSE(d.regression);
}

TEST(Diff, ASignificantSpeedupIsAnImprovement) {
  const Snapshot before = MakeSnapshot({{"/n", Wobble(2.0, 0.05, 50)}});
  const Snapshot after = MakeSnapshot({{"/n", Wobble(1.0, 0.05, 50)}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_TRUE(diff.nodes[0].improvement);
  EXPECT_FALSE(diff.nodes[0].regression);
  EXPECT_LT(*diff.nodes[0].p_value(), 1e-12) << "the p-value is in the direction of the change";
  EXPECT_EQ(diff.improvements, 1u);
  EXPECT_TRUE(diff.frames.improvement);
}

TEST(Diff, NodesWithoutATestSayWhy) {
  const double n = NAN;
  const Snapshot before = MakeSnapshot({{"/never", {}},
                                {"/once", {n, n, 1.0, n}},
                                {"/starts", {}},
                                {"/stops", {1, 2, 1, 2}},
                                {"/constant", {2, 2, 2, 2}},
                                {"/steps", {2, 2, 2, 2}}});
  const Snapshot after = MakeSnapshot({{"/never", {n, n, n, n}},
                               {"/once", {5, 6, 5, 6}},
                               {"/starts", {1, 2, 1, 2}},
                               {"/stops", {}},
                               {"/constant", {2, 2, 2, 2}},
                               {"/steps", {3, 3, 3, 3}}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_EQ(Find(diff, "/never").note, "never cooked");
  EXPECT_FALSE(Find(diff, "/never").avg_pct);
  EXPECT_THAT(Find(diff, "/once").note, HasSubstr("too few samples (1 before, 4 after"));
  EXPECT_EQ(Find(diff, "/starts").note, "did not cook before");
  EXPECT_EQ(Find(diff, "/stops").note, "did not cook after");
  EXPECT_THAT(Find(diff, "/constant").note, HasSubstr("same constant"));
  for (const char* id : {"/never", "/once", "/starts", "/stops", "/constant"}) {
    EXPECT_FALSE(Find(diff, id).p_value()) << id;
    EXPECT_FALSE(Find(diff, id).regression) << id;
  }
  // Constant on both sides and different: the change is exact, p = 0.
  const NodeDiff& steps = Find(diff, "/steps");
  EXPECT_EQ(steps.p_value(), 0.0);
  EXPECT_TRUE(steps.regression);
  EXPECT_TRUE(steps.note.empty());
}

TEST(Diff, DifferentFrameCountsAreComparedAndNamed) {
  const Snapshot before = MakeSnapshot({{"/a", Wobble(1.0, 0.1, 40)}});
  const Snapshot after = MakeSnapshot({{"/a", Wobble(1.0, 0.1, 30)}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_EQ(diff.frames.frames_before, 40u);
  EXPECT_EQ(diff.frames.frames_after, 30u);
  EXPECT_NEAR(*diff.nodes[0].avg_pct, 0.0, 1e-9);
  EXPECT_FALSE(diff.nodes[0].regression);
  ASSERT_EQ(diff.warnings.size(), 1u);
  EXPECT_THAT(diff.warnings[0], HasSubstr("different frame counts (40 before, 30 after)"));
}

TEST(Diff, FrameTimeChangeIsTheChangeOfTheMeanFrameTime) {
  // Summed frame times: before 1 + 2 = 3 ms a frame ±, after 1.5 + 2 = 3.5 ms.
  const Snapshot before =
      MakeSnapshot({{"/a", Wobble(1.0, 0.01, 20)}, {"/b", Wobble(2.0, 0.01, 20)}});
  const Snapshot after =
      MakeSnapshot({{"/a", Wobble(1.5, 0.01, 20)}, {"/b", Wobble(2.0, 0.01, 20)}});
  const SnapshotDiff diff = Compare(before, after);
  EXPECT_NEAR(diff.frames.mean_before, 3.0, 1e-12);
  EXPECT_NEAR(diff.frames.mean_after, 3.5, 1e-12);
  EXPECT_NEAR(*diff.frames.change_pct, 100.0 / 6.0, 1e-9);
  EXPECT_TRUE(diff.frames.regression);
  EXPECT_TRUE(diff.warnings.empty());
}

TEST(Diff, EmptySnapshotsHaveNoFrameChange) {
  const Snapshot empty = MakeSnapshot({});
  const SnapshotDiff diff = Compare(empty, empty);
  EXPECT_FALSE(diff.frames.change_pct);
  EXPECT_FALSE(diff.frames.p_value());
  EXPECT_THAT(diff.frames.note, HasSubstr("too few frames"));
  EXPECT_FALSE(diff.regressed());
}

TEST(Diff, ChangePctIsRelativeToBefore) {
  EXPECT_DOUBLE_EQ(*ChangePct(2, 3), 50.0);
  EXPECT_DOUBLE_EQ(*ChangePct(2, 1), -50.0);
  EXPECT_FALSE(ChangePct(0, 1));
  EXPECT_FALSE(ChangePct(NAN, 1));
}

}  // namespace
}  // namespace cookgraph

namespace cookgraph {
namespace {

// Two runs of ops with their input shapes as params (Kineto's input_dims).
Snapshot WithShapes(const std::string& mm_dims, const std::string& relu_dims) {
  Snapshot s;
  EXPECT_TRUE(s.network.AddNode({.id = "aten::mm", .params = {{"input_dims", mm_dims}}}).ok());
  EXPECT_TRUE(s.network.AddNode({.id = "aten::relu", .params = {{"input_dims", relu_dims}}}).ok());
  s.samples = Samples(2);
  s.samples.SetFrameIndex({0, 1, 2, 3});
  s.samples.SetSeries(0, Metric::kCookMs, {1, 1.1, 0.9, 1});
  s.samples.SetSeries(1, Metric::kCookMs, {0.1, 0.1, 0.1, 0.1});
  return s;
}

TEST(Diff, ChangedInputShapesAreNamed) {
  const Snapshot before = WithShapes("[[64, 256], [256, 512]]", "[[64, 512]]");
  const SnapshotDiff same = CompareSnapshots(before, Analyse(before), before, Analyse(before));
  for (const std::string& w : same.warnings) EXPECT_THAT(w, ::testing::Not(HasSubstr("inputs")));
  const Snapshot after = WithShapes("[[128, 256], [256, 512]]", "[[64, 512]]");
  const SnapshotDiff diff = CompareSnapshots(before, Analyse(before), after, Analyse(after));
  ASSERT_EQ(diff.warnings.size(), 1u);
  EXPECT_EQ(diff.warnings[0],
            "the inputs changed: 1 op(s) were given other shapes or types, so their times "
            "measure other work (first: aten::mm input_dims [[64, 256], [256, 512]] → [[128, "
            "256], [256, 512]])");
}

}  // namespace
}  // namespace cookgraph
