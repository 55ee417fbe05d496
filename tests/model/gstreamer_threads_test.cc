#include "model/gstreamer_threads.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cookgraph {
namespace {

// Threads are named by what they run (docs/formats.md#threads-work-and-latency).
TEST(StreamingTest, ThreadsAreNamedByTheirWork) {
  Network net;
  auto add = [&](const std::string& id, const std::string& family) {
    return *net.AddNode({.id = id, .type = "T", .family = family});
  };
  const NodeIndex q0 = add("/pipeline0/queue0", "queue");
  const NodeIndex scale = add("/pipeline0/videoscale0", "element");
  const NodeIndex enc = add("/pipeline0/enc/theoraenc0", "element");
  const NodeIndex mux = add("/pipeline0/mux", "mixer");
  const NodeIndex q1 = add("/pipeline0/queue1", "queue");
  std::vector<StreamingThread> threads = {
      // Work: named after the element with the most time in it.
      {.thread = "0x1", .elements = {q0, scale, enc, mux}, .work = {false, true, true, false},
       .element_ms = {900, 10, 70, 500}},
      // Only waiting elements: after its first.
      {.thread = "0x2", .elements = {q1, mux}, .work = {false, false}, .element_ms = {5, 1}},
      // The same costliest element as the first: "#2".
      {.thread = "0x3", .elements = {enc}, .work = {true}, .element_ms = {1}},
      {.thread = "0x4"},
  };
  NameThreads(threads, net);
  EXPECT_EQ(threads[0].name, "theoraenc0 thread");
  EXPECT_EQ(threads[0].route, "queue0 → … → mux");
  EXPECT_EQ(threads[0].label(), "theoraenc0 thread (queue0 → … → mux)");
  EXPECT_EQ(threads[1].name, "queue1 thread");
  EXPECT_EQ(threads[1].route, "queue1 → mux");
  EXPECT_EQ(threads[2].name, "theoraenc0 thread #2");
  EXPECT_EQ(threads[2].label(), "theoraenc0 thread #2 (theoraenc0)");
  EXPECT_EQ(threads[3].name, "thread 0x4");
  EXPECT_EQ(threads[3].label(), "thread 0x4");
  // A thread never named (built by hand) still shows its pointer.
  EXPECT_EQ(StreamingThread{.thread = "0x5"}.label(), "thread 0x5");
}

}  // namespace
}  // namespace cookgraph
