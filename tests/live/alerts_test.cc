// Alerts: once per episode, an episode ends after quiet frames under the
// threshold, no alert without a crossing.

#include "live/alerts.h"

#include <gtest/gtest.h>

namespace cookgraph {
namespace {

LiveFrame AlertFrame(int64_t frame, double a_ms, double b_ms = 0.5, double frame_ms = kMissing) {
  LiveFrame f{.frame = frame, .frame_ms = frame_ms};
  MetricValues a = NoValues(), b = NoValues();
  a[static_cast<size_t>(Metric::kCookMs)] = a_ms;
  b[static_cast<size_t>(Metric::kCookMs)] = b_ms;
  if (!IsMissing(a_ms)) f.nodes.emplace_back(0, a);
  f.nodes.emplace_back(1, b);
  return f;
}

const std::vector<std::string> kIds = {"/p/a", "/p/b"};

TEST(Alerts, OneAlertPerEpisodeNotPerFrame) {
  AlertTracker t({.node_ms = 5.0, .budget_ms = std::nullopt, .quiet_frames = 3});
  std::vector<int64_t> alerted;
  auto run = [&](int64_t frame, double a_ms) {
    for (size_t i : t.Observe(AlertFrame(frame, a_ms), kIds))
      alerted.push_back(t.episodes()[i].first_frame);
  };
  run(1, 1);
  run(2, 9);   // starts an episode
  run(3, 12);  // still over: no new alert
  run(4, 1);
  run(5, 6);  // back over before 3 quiet frames: the same episode
  run(6, 1);
  run(7, kMissing);  // did not cook: counts as under
  run(8, 1);         // third quiet frame: the episode ends
  run(9, 7);         // a new episode
  EXPECT_EQ(alerted, (std::vector<int64_t>{2, 9}));
  ASSERT_EQ(t.episodes().size(), 2u);
  const AlertEpisode& e = t.episodes()[0];
  EXPECT_EQ(e.node, "/p/a");
  EXPECT_EQ(e.first_frame, 2);
  EXPECT_EQ(e.last_frame, 5);
  EXPECT_EQ(e.frames_over, 3u);
  EXPECT_EQ(e.first_ms, 9.0);
  EXPECT_EQ(e.peak_ms, 12.0);
  EXPECT_EQ(e.peak_frame, 3);
}

TEST(Alerts, NoThresholdCrossedNoAlert) {
  AlertTracker t({.node_ms = 5.0, .budget_ms = 16.0, .quiet_frames = 1});
  for (int64_t f = 0; f < 1000; ++f)
    EXPECT_TRUE(t.Observe(AlertFrame(f, 4.999, 4.999), kIds).empty());  // 9.998 ms a frame
  EXPECT_TRUE(t.episodes().empty());
  AlertTracker none({.node_ms = std::nullopt, .budget_ms = std::nullopt, .quiet_frames = 1});
  EXPECT_TRUE(none.Observe(AlertFrame(1, 1e6), kIds).empty());
}

TEST(Alerts, BudgetUsesTheMeasuredFrameTimeElseTheSumOfCooks) {
  AlertTracker t({.node_ms = std::nullopt, .budget_ms = 10.0, .quiet_frames = 1});
  EXPECT_TRUE(t.Observe(AlertFrame(1, 6, 3.5), kIds).empty());       // 9.5 ms summed
  EXPECT_EQ(t.Observe(AlertFrame(2, 6, 4.5), kIds).size(), 1u);      // 10.5 ms summed
  EXPECT_TRUE(t.Observe(AlertFrame(3, 1, 1, 9.0), kIds).empty());    // measured 9 ms: ends it
  EXPECT_EQ(t.Observe(AlertFrame(4, 1, 1, 10.5), kIds).size(), 1u);  // measured, over
  ASSERT_EQ(t.episodes().size(), 2u);
  EXPECT_EQ(t.episodes()[0].kind, AlertEpisode::Kind::kBudget);
  EXPECT_EQ(t.episodes()[0].first_ms, 10.5);
  EXPECT_EQ(t.episodes()[1].first_frame, 4);
}

}  // namespace
}  // namespace cookgraph
