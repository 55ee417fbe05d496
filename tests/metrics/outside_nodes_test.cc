#include "metrics/outside_nodes.h"

#include <gtest/gtest.h>

#include "tests/metrics/timeline_maker.h"

namespace cookgraph {
namespace {

using testing_timeline::kCpu;
using testing_timeline::kStream7;
using testing_timeline::Make;

// Markers are not nodes; every other event counts for its node.
Timeline WithMarkers(std::vector<testing_timeline::Spec> specs, size_t markers) {
  Timeline t = Make(specs);
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    if (t.events[i].kind == EventKind::kMarker) {
      t.events[i].node = kNoIndex;
      t.markers.push_back(i);
    }
  }
  EXPECT_EQ(t.markers.size(), markers);
  return t;
}

TEST(OutsideNodes, IsEachStepLessTheUnionOfItsNodesOnAnyTrack) {
  // Step 1 [0, 1000): work 100-300 on the CPU and 200-500 on a stream (union
  // 400), so 600 outside. Step 2 [1000, 2000): a node that began at 900, in
  // the first step, still runs until 1100, and one runs 1500-1600: 800 outside.
  const Timeline t = WithMarkers({{"run", EventKind::kMarker, kCpu, 0, 1000},
                                  {"run", EventKind::kMarker, kCpu, 1000, 1000},
                                  {"a", EventKind::kCpuOp, kCpu, 100, 200},
                                  {"k", EventKind::kKernel, kStream7, 200, 300},
                                  {"long", EventKind::kKernel, kStream7, 900, 200},
                                  {"b", EventKind::kCpuOp, kCpu, 1500, 100}},
                                 2);
  const auto out = TimeOutsideNodes({t});
  ASSERT_TRUE(out);
  EXPECT_EQ(out->steps, 2u);
  // Step 1 loses 100 more to "long" (900-1000): 500 outside; step 2, 800.
  EXPECT_DOUBLE_EQ(out->mean_ms, (500 + 800) / 2.0 / 1e6);
  EXPECT_DOUBLE_EQ(out->max_ms, 800 / 1e6);
  EXPECT_DOUBLE_EQ(out->share, 1300.0 / 2000.0);
  EXPECT_EQ(out->node_tracks, 1u);  // the stream: nodes off the markers' track
}

TEST(OutsideNodes, AnEarlierLongNodeBehindShortOnesStillCounts) {
  // "long" starts first and reaches into the step; "short" starts after it
  // but ends before the step: walking back from the step must not stop at it.
  const Timeline t = WithMarkers({{"long", EventKind::kCpuOp, kCpu, 0, 1500},
                                  {"short", EventKind::kCpuOp, kCpu, 10, 20},
                                  {"run", EventKind::kMarker, kCpu, 1000, 1000}},
                                 1);
  const auto out = TimeOutsideNodes({t});
  ASSERT_TRUE(out);
  EXPECT_DOUBLE_EQ(out->mean_ms, 500 / 1e6);
}

TEST(OutsideNodes, NothingWithoutSteps) {
  EXPECT_FALSE(TimeOutsideNodes({Make({{"a", EventKind::kCpuOp, kCpu, 0, 10}})}));
}

}  // namespace
}  // namespace cookgraph
