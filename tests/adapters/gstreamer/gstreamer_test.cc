// The GStreamer adapter on the hand-written dumps and logs of
// tests/data/gstreamer (see the README there): nodes and ids, links through
// ghost and proxy pads, the `node_` prefix, request pads, tees, frames, the
// warnings for bad lines, and the errors a user can cause. Every expected
// number is worked out from the log in the comment beside it. The checks
// against real GStreamer runs are in tests/gstreamer.cmake.

#include "adapters/gstreamer/gstreamer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "adapters/gstreamer/records.h"
#include "metrics/analysis.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

using testing::WriteFile;

std::string Data(const std::string& name) {
  std::ifstream in(std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/gstreamer/" + name,
                   std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ErrorOf(const Result<Snapshot>& r) { return r ? "" : r.error().Format(); }

const Node& NodeOf(const Snapshot& s, const std::string& id) {
  static const Node kNone{.id = "(missing)"};
  auto n = s.network.Find(id);
  return n ? s.network.node(*n) : kNone;
}

std::string ParamOf(const Snapshot& s, const std::string& id, const std::string& key) {
  for (const auto& [k, v] : NodeOf(s, id).params) {
    if (k == key) return v;
  }
  return "(none)";
}

std::vector<double> Cook(const Snapshot& s, const std::string& id) {
  auto n = s.network.Find(id);
  if (!n) return {};
  auto series = s.samples.series(*n, Metric::kCookMs);
  return {series.begin(), series.end()};
}

bool HasEdge(const Snapshot& s, const std::string& from, const std::string& to) {
  auto f = s.network.Find(from), t = s.network.Find(to);
  if (!f || !t) return false;
  for (const Edge& e : s.network.edges()) {
    if (e.from == *f && e.to == *t && e.kind == EdgeKind::kData) return true;
  }
  return false;
}

bool Warned(const Snapshot& s, const std::string& text) {
  for (const std::string& w : s.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

std::string Warnings(const Snapshot& s) {
  std::string all;
  for (const std::string& w : s.warnings) all += w + "\n";
  return all;
}

Result<Snapshot> TeeBin() {
  return ParseGstreamer(Data("tee_bin.dot"), Data("tee_bin.log"), "tee_bin.dot", "tee_bin.log");
}

TEST(Gstreamer, ElementsAndBinsBecomeNodesNamedByTheirRealNames) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(s->info.engine, "gstreamer");
  EXPECT_EQ(s->info.name, "pipeline0");
  EXPECT_EQ(s->info.source, (std::vector<std::string>{"tee_bin.dot", "tee_bin.log"}));
  // Creation order (the dump lists newest first), bins before their children,
  // then the log's element that the dump lacks.
  std::vector<std::string> ids;
  for (const Node& n : s->network.nodes()) ids.push_back(n.id);
  EXPECT_EQ(ids, (std::vector<std::string>{
                     "/pipeline0", "/pipeline0/src-1", "/pipeline0/split", "/pipeline0/q-slow",
                     "/pipeline0/out-1", "/pipeline0/work-bin", "/pipeline0/work-bin/slow",
                     "/pipeline0/q-fast", "/pipeline0/out-2", "/pipeline0/late-comer"}));
  const Node& pipeline = NodeOf(*s, "/pipeline0");
  EXPECT_EQ(pipeline.type, "GstPipeline");
  EXPECT_EQ(pipeline.family, "bin");
  EXPECT_EQ(ParamOf(*s, "/pipeline0", "latency"), "0");
  const Node& bin = NodeOf(*s, "/pipeline0/work-bin");
  EXPECT_EQ(bin.type, "GstBin");
  EXPECT_EQ(bin.family, "bin");
  EXPECT_EQ(bin.parent, "/pipeline0");
  const Node& slow = NodeOf(*s, "/pipeline0/work-bin/slow");
  EXPECT_EQ(slow.type, "GstIdentity");
  EXPECT_EQ(slow.family, "element");
  EXPECT_EQ(slow.parent, "/pipeline0/work-bin");
  EXPECT_FALSE(slow.output);
  // g_strescape's escapes resolved: \" \\ and the octal bytes of UTF-8.
  EXPECT_EQ(ParamOf(*s, "/pipeline0/work-bin/slow", "sleep-time"), "4000");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/work-bin/slow", "comment"), "\"quiet\\loud\" caf\xC3\xA9");
  EXPECT_EQ(NodeOf(*s, "/pipeline0/split").type, "GstTee");
  EXPECT_EQ(NodeOf(*s, "/pipeline0/src-1").family, "element");
  EXPECT_TRUE(NodeOf(*s, "/pipeline0/out-1").output);
  EXPECT_TRUE(NodeOf(*s, "/pipeline0/out-2").output);
  EXPECT_EQ(s->network.nodes().size(), 10u);
}

TEST(Gstreamer, QueuesAreMarkedAsWaiting) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(NodeOf(*s, "/pipeline0/q-slow").family, "queue");
  EXPECT_EQ(NodeOf(*s, "/pipeline0/q-fast").family, "queue");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/q-fast", "leaky"), "downstream");
  EXPECT_TRUE(gst::IsQueueType("GstQueue2"));
  EXPECT_TRUE(gst::IsQueueType("GstMultiQueue"));
  EXPECT_FALSE(gst::IsQueueType("GstTee"));
}

TEST(Gstreamer, LinksResolveThroughGhostAndProxyPadsToElements) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/src-1", "/pipeline0/split"));
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/split", "/pipeline0/q-slow"));  // request pad src_0
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/split", "/pipeline0/q-fast"));  // request pad src_1
  // q-slow -> work-bin's ghost sink -> proxypad0 -> slow; slow -> proxypad1 -> ghost src -> out-1.
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/q-slow", "/pipeline0/work-bin/slow"));
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/work-bin/slow", "/pipeline0/out-1"));
  EXPECT_TRUE(HasEdge(*s, "/pipeline0/q-fast", "/pipeline0/out-2"));
  EXPECT_EQ(s->network.edges().size(), 6u);  // nothing to or from the bin itself
}

TEST(Gstreamer, FrameKIsEachElementsKthBuffer) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  ASSERT_EQ(s->samples.frame_count(), 3u);
  EXPECT_EQ(s->samples.frame_index(), (std::vector<int64_t>{0, 1, 2}));
  // q-slow: 1000000, 5000000, 9000000 ns.
  EXPECT_EQ(Cook(*s, "/pipeline0/q-slow"), (std::vector<double>{1.0, 5.0, 9.0}));
  // slow: 4100000 ns, a malformed time (its buffer keeps its place), 4000000 ns;
  // the truncated record at line 21 names no element and adds nothing.
  auto slow = Cook(*s, "/pipeline0/work-bin/slow");
  ASSERT_EQ(slow.size(), 3u);
  EXPECT_DOUBLE_EQ(slow[0], 4.1);
  EXPECT_TRUE(std::isnan(slow[1]));
  EXPECT_DOUBLE_EQ(slow[2], 4.0);
  // q-fast: 20000, 30000 ns, then a negative time (2^64 - 100) as missing.
  auto fast = Cook(*s, "/pipeline0/q-fast");
  ASSERT_EQ(fast.size(), 3u);
  EXPECT_DOUBLE_EQ(fast[0], 0.02);
  EXPECT_DOUBLE_EQ(fast[1], 0.03);
  EXPECT_TRUE(std::isnan(fast[2]));
  // Sources and sinks have no samples but stay in the graph.
  EXPECT_TRUE(Cook(*s, "/pipeline0/src-1").empty());
  EXPECT_TRUE(Cook(*s, "/pipeline0/out-1").empty());
  // frame_ms: the slowest streaming thread's k-th buffer of work. Threads:
  // ...4c60 split 0.010, 0.012, 0.011; ...4c00 q-slow (waits) and slow 4.1,
  // (malformed), 4.0; ...4c01 q-fast only (waits: no work); ...4c09
  // late-comer 0.007. Never the `latency` records (out-1 5.2, 9.3, 13.1 ms).
  ASSERT_TRUE(s->samples.has_frame_ms());
  auto frame_ms = s->samples.frame_ms();
  EXPECT_DOUBLE_EQ(frame_ms[0], 4.1);
  EXPECT_DOUBLE_EQ(frame_ms[1], 0.012);
  EXPECT_DOUBLE_EQ(frame_ms[2], 4.0);
  // The caps feeding out-2 say 25/1.
  ASSERT_TRUE(s->info.fps.has_value());
  EXPECT_DOUBLE_EQ(*s->info.fps, 25.0);
}

TEST(Gstreamer, ATeeTakesItsFirstPushAndReportsEachPad) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  // src_0: 10000, 12000, 11000 ns; src_1: 30000, 25000 ns (its third record is
  // missing). A pad pair shares its entry time (ts - time: 34990000, then
  // 40988000 ns), so it is one buffer, one cook: the smaller time, as src_1's
  // also holds the push on src_0.
  EXPECT_EQ(Cook(*s, "/pipeline0/split"), (std::vector<double>{0.010, 0.012, 0.011}));
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_0::avg_ms"), "0.011");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_0::max_ms"), "0.012");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_0::buffers"), "3");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_0::peer"), "/pipeline0/q-slow");
  // 27500 ns: the double nearest 0.0275 lies just above it, so it rounds up.
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_1::avg_ms"), "0.028");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_1::max_ms"), "0.030");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_1::buffers"), "2");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/split", "src_1::peer"), "/pipeline0/q-fast");
  // Elements with one src pad get no per-pad params, but every linked src pad
  // its negotiated caps (a taillabel where the two ends differ).
  EXPECT_EQ(ParamOf(*s, "/pipeline0/q-slow", "src::avg_ms"), "(none)");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/src-1", "src::caps"), "video/x-raw, format=I420, framerate=25/1");
  EXPECT_EQ(ParamOf(*s, "/pipeline0/q-fast", "src::caps"),
            "video/x-raw, format=I420, width=320, height=240, framerate=25/1");
}

TEST(Gstreamer, BadLinesAreCountedWithTheirFirstExample) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  const std::string all = Warnings(*s);
  EXPECT_TRUE(Warned(*s, "2 malformed latency record line(s)")) << all;
  EXPECT_TRUE(Warned(*s, "tee_bin.log:16: ")) << all;  // the first: time=(guint64)4x00000
  EXPECT_TRUE(Warned(*s, "1 record(s) with a negative time")) << all;
  EXPECT_TRUE(Warned(*s, "tee_bin.log:19: ")) << all;
  EXPECT_TRUE(Warned(*s, "1 element(s) of the log are not in the dump")) << all;
  EXPECT_TRUE(Warned(*s, "late-comer (0x56000000dead)")) << all;
  // slow and q-fast have 2 samples, late-comer 1, the others 3.
  EXPECT_TRUE(Warned(*s, "3 element(s) have fewer samples than the 3 of the most sampled")) << all;
  EXPECT_FALSE(Warned(*s, "template")) << all;  // 1.22's templates are in the log
  EXPECT_FALSE(Warned(*s, "no `latency`")) << all;
  // The unknown element is kept, at the top level, with its one sample.
  const Node& late = NodeOf(*s, "/pipeline0/late-comer");
  EXPECT_EQ(late.parent, "/pipeline0");
  EXPECT_DOUBLE_EQ(Cook(*s, "/pipeline0/late-comer")[0], 0.007);
}

TEST(Gstreamer, NewerDumpsWithNodePrefixReadAlike) {
  auto s = ParseGstreamer(Data("node_prefix.dot"), Data("node_prefix.log"), "node_prefix.dot",
                          "node_prefix.log");
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(s->info.name, "pipe-x");
  std::vector<std::string> ids;
  for (const Node& n : s->network.nodes()) ids.push_back(n.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"/pipe-x", "/pipe-x/cam", "/pipe-x/caps-1",
                                           "/pipe-x/enc-bin", "/pipe-x/enc-bin/conv",
                                           "/pipe-x/enc-bin/enc", "/pipe-x/t", "/pipe-x/sink_0"}));
  EXPECT_TRUE(HasEdge(*s, "/pipe-x/cam", "/pipe-x/caps-1"));
  EXPECT_TRUE(HasEdge(*s, "/pipe-x/caps-1", "/pipe-x/enc-bin/conv"));
  EXPECT_TRUE(HasEdge(*s, "/pipe-x/enc-bin/conv", "/pipe-x/enc-bin/enc"));
  EXPECT_TRUE(HasEdge(*s, "/pipe-x/enc-bin/enc", "/pipe-x/t"));
  EXPECT_TRUE(HasEdge(*s, "/pipe-x/t", "/pipe-x/sink_0"));  // request pad src_0
  EXPECT_EQ(s->network.edges().size(), 5u);
  EXPECT_TRUE(NodeOf(*s, "/pipe-x/sink_0").output);
  EXPECT_EQ(ParamOf(*s, "/pipe-x/caps-1", "caps"), "video/x-raw, width=(int)320, height=(int)240");
  // Joined by pointer, every one of them: the one warning says the log has no
  // rusage records, so waiting cannot be told from work.
  ASSERT_EQ(s->warnings.size(), 1u) << Warnings(*s);
  EXPECT_NE(s->warnings[0].find("no thread-rusage records of the streaming threads"),
            std::string::npos)
      << Warnings(*s);
  EXPECT_EQ(Cook(*s, "/pipe-x/enc-bin/enc"), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(Cook(*s, "/pipe-x/t"), (std::vector<double>{0.003, 0.004}));
  EXPECT_EQ(ParamOf(*s, "/pipe-x/t", "src_0::avg_ms"), "(none)");  // one pad: no per-pad params
  // One thread: caps-1 0.007 + conv 0.35 + enc 2.5 + t 0.004 ms.
  EXPECT_DOUBLE_EQ(s->samples.frame_ms()[1], 0.007 + 0.35 + 2.5 + 0.004);
  EXPECT_DOUBLE_EQ(*s->info.fps, 30.0);
}

TEST(Gstreamer, APointerTheDumpLacksJoinsByAUniqueName) {
  std::string log = Data("node_prefix.log");
  for (size_t at = log.find("0x7f00000000c3"); at != std::string::npos;
       at = log.find("0x7f00000000c3")) {
    log.replace(at, 14, "0x7f0000009999");
  }
  auto s = ParseGstreamer(Data("node_prefix.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(Cook(*s, "/pipe-x/enc-bin/conv"), (std::vector<double>{0.25, 0.35}));
  EXPECT_TRUE(Warned(*s,
                     "1 element(s) joined to the dump by name, not by pointer, first conv "
                     "(0x7f0000009999 in the log)"))
      << Warnings(*s);
}

TEST(Gstreamer, ADumpAloneIsTheGraphWithAWarning) {
  auto s = ParseGstreamer(Data("tee_bin.dot"), "");
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(s->network.size(), 9u);
  EXPECT_EQ(s->samples.frame_count(), 0u);
  EXPECT_TRUE(Warned(*s, "no tracer log given")) << Warnings(*s);
  const Analysis a = Analyse(*s);  // and the analysis copes with no frames
  EXPECT_EQ(a.stats.size(), 9u);
}

TEST(Gstreamer, RecordsOfOnePadPairWithDifferentEntryTimesAreTwoCooks) {
  // A demuxer or multiqueue pushes different buffers on its pads: each record
  // its own entry time, each one cook. Here the tee's second src_1 record
  // entered 1 us later than its src_0 record (ts 41014000 - 25000).
  std::string log = Data("tee_bin.log");
  const std::string from = "time=(guint64)25000, ts=(guint64)41013000;";
  ASSERT_NE(log.find(from), std::string::npos);
  log.replace(log.find(from), from.size(), "time=(guint64)25000, ts=(guint64)41014000;");
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(Cook(*s, "/pipeline0/split"), (std::vector<double>{0.010, 0.012, 0.025, 0.011}));
}

TEST(Gstreamer, StreamingThreadsComeFromTheLogLines) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  ASSERT_TRUE(s->streaming.has_value());
  const Streaming& st = *s->streaming;
  ASSERT_EQ(st.threads.size(), 4u);  // in order of their first record
  auto ids = [&](const StreamingThread& t) {
    std::vector<std::string> out;
    for (NodeIndex n : t.elements) out.push_back(s->network.node(n).id);
    return out;
  };
  EXPECT_EQ(st.threads[0].thread, "0x55ad108f4c60");
  EXPECT_EQ(ids(st.threads[0]), (std::vector<std::string>{"/pipeline0/split"}));
  EXPECT_EQ(st.threads[1].thread, "0x55ad108f4c00");
  EXPECT_EQ(ids(st.threads[1]),
            (std::vector<std::string>{"/pipeline0/q-slow", "/pipeline0/work-bin/slow"}));
  EXPECT_EQ(st.threads[1].work, (std::vector<bool>{false, true}));
  EXPECT_EQ(ids(st.threads[2]), (std::vector<std::string>{"/pipeline0/q-fast"}));
  EXPECT_EQ(ids(st.threads[3]), (std::vector<std::string>{"/pipeline0/late-comer"}));
  // split: (0.010 + 0.012 + 0.011) / 3 buffers; slow: (4.1 + 4.0) / 3 (q-slow's
  // three cooks are the thread's buffers; slow's malformed one adds nothing).
  EXPECT_DOUBLE_EQ(st.threads[0].busy_ms_per_buffer, 0.033 / 3);
  EXPECT_EQ(st.threads[1].buffers, 3u);
  EXPECT_DOUBLE_EQ(st.threads[1].busy_ms_per_buffer, 8.1 / 3);
  EXPECT_EQ(st.threads[2].busy_ms_per_buffer, 0.0);  // a queue only waits
  EXPECT_FALSE(st.threads[2].costliest().has_value());
  // Periods from the caps: 25/1 feeds split (its only input) and leaves
  // q-fast, 40 ms; slow's thread sees plain "video/x-raw", no rate.
  ASSERT_TRUE(st.threads[0].buffer_period_ms.has_value());
  EXPECT_DOUBLE_EQ(*st.threads[0].buffer_period_ms, 40.0);
  EXPECT_DOUBLE_EQ(st.threads[0].utilisation().value_or(0), 0.011 / 40);
  EXPECT_FALSE(st.threads[1].buffer_period_ms.has_value());
  EXPECT_DOUBLE_EQ(st.threads[2].buffer_period_ms.value_or(0), 40.0);
  // Not every thread with work has a period: the most work per buffer wins.
  ASSERT_TRUE(st.bottleneck.has_value());
  EXPECT_EQ(*st.bottleneck, 1u);
  EXPECT_EQ(s->network.node(*st.threads[1].costliest()).id, "/pipeline0/work-bin/slow");
  // No rusage records: no CPU figures.
  EXPECT_FALSE(st.threads[1].cpu_load_pct.has_value());
  EXPECT_FALSE(st.process_cpu_load_pct.has_value());
  // The latency records are latency: out-2 0.1, 0.09, 0.08 and out-1 5.2, 9.3,
  // 13.1 ms; p95 at rank 4.75 of 6: 9.3 + 0.75 * 3.8.
  ASSERT_TRUE(st.latency.has_value());
  EXPECT_EQ(st.latency->records, 6u);
  EXPECT_DOUBLE_EQ(st.latency->mean_ms, (0.1 + 0.09 + 0.08 + 5.2 + 9.3 + 13.1) / 6);
  EXPECT_NEAR(st.latency->p95_ms, 12.15, 1e-12);
  EXPECT_DOUBLE_EQ(st.latency->max_ms, 13.1);
  // The budget is the frame interval of the caps, 40 ms: the slowest thread's
  // 4.1 ms buffers are well within it.
  const Analysis a = Analyse(*s);
  EXPECT_DOUBLE_EQ(a.budget_ms, 40.0);
  EXPECT_TRUE(a.frames.over_budget.empty());
}

TEST(Gstreamer, RusageRecordsGiveEachThreadsCpuLoad) {
  // 0x55ad108f4c00 = 94201795529728: 2 ms of CPU over 10 ms, then 6 ms over
  // the next 100 ms; the process 30 ms over 110 ms. A template line and a
  // record without its numbers (counted as malformed) are passed over.
  std::string log = Data("tee_bin.log");
  const std::string pre = "0:00:00.060000000 10671 0x55ad108f4c00 TRACE GST_TRACER :0:: ";
  log += pre + "new format string: thread-rusage, thread-id=(guint64)%lu, ts=(guint64)%lu;\n";
  log += pre + "thread-rusage, thread-id=(guint64)94201795529728, ts=(guint64)100000000, "
               "average-cpuload=(uint)30, current-cpuload=(uint)40, time=(guint64)3000000;\n";
  log += pre + "proc-rusage, process-id=(guint64)10671, ts=(guint64)100000000, "
               "average-cpuload=(uint)400, current-cpuload=(uint)400, time=(guint64)10000000;\n";
  log += pre + "thread-rusage, thread-id=(guint64)94201795529728, ts=(guint64)110000000, "
               "average-cpuload=(uint)45, current-cpuload=(uint)200, time=(guint64)5000000;\n";
  log += pre + "thread-rusage, thread-id=(guint64)94201795529728, ts=(guint64)210000000, "
               "average-cpuload=(uint)52, current-cpuload=(uint)60, time=(guint64)11000000;\n";
  log += pre + "thread-rusage, thread-id=(guint64)94201795529728, ts=(guint64)x;\n";
  log += pre + "proc-rusage, process-id=(guint64)10671, ts=(guint64)210000000, "
               "average-cpuload=(uint)190, current-cpuload=(uint)190, time=(guint64)40000000;\n";
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  ASSERT_EQ(0x55ad108f4c00u, 94201795529728u);
  const StreamingThread& t = s->streaming->threads[1];
  ASSERT_EQ(t.thread, "0x55ad108f4c00");
  ASSERT_TRUE(t.cpu_load_pct.has_value());
  // (11 - 3) ms of CPU over (210 - 100) ms.
  EXPECT_DOUBLE_EQ(*t.cpu_load_pct, 100.0 * 8e6 / 110e6);
  EXPECT_DOUBLE_EQ(*t.cpu_ms, 11.0);
  // A point at the first record 100 ms after the first (210 ms), none before.
  ASSERT_EQ(t.cpu_load_over_time.size(), 1u);
  EXPECT_DOUBLE_EQ(t.cpu_load_over_time[0].first, 210.0);
  EXPECT_DOUBLE_EQ(t.cpu_load_over_time[0].second, 100.0 * 8e6 / 110e6);
  ASSERT_TRUE(s->streaming->process_cpu_load_pct.has_value());
  EXPECT_DOUBLE_EQ(*s->streaming->process_cpu_load_pct, 100.0 * 30e6 / 110e6);
  // Threads without records have none.
  EXPECT_FALSE(s->streaming->threads[0].cpu_load_pct.has_value());
  EXPECT_TRUE(Warned(*s, "3 malformed latency record line(s)")) << Warnings(*s);
}

TEST(Gstreamer, QueuesStayOffTheCriticalPathAndOutOfTheShares) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  const Analysis a = Analyse(*s);
  const NodeIndex q = *s->network.Find("/pipeline0/q-slow");
  const NodeIndex slow = *s->network.Find("/pipeline0/work-bin/slow");
  EXPECT_TRUE(a.waiting[q]);
  EXPECT_FALSE(a.on_critical_path[q]);  // its 5 ms mean wait weighs nothing
  EXPECT_TRUE(a.on_critical_path[slow]);
  for (NodeIndex n : a.critical_path.nodes) EXPECT_FALSE(a.waiting[n]);
  EXPECT_EQ(a.stats[q].share, 0.0);
  EXPECT_GT(a.stats[slow].share, 0.0);
  EXPECT_EQ(Rank(a, SortKey::kScore).front(), slow);
}

TEST(Gstreamer, BareRecordsNameNoThread) {
  std::string log;
  std::istringstream in(Data("tee_bin.log"));
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find(":0:: ");
    if (at != std::string::npos) log += line.substr(at + 5) + "\n";
  }
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(Cook(*s, "/pipeline0/split"), (std::vector<double>{0.010, 0.012, 0.011}));
  EXPECT_FALSE(s->samples.has_frame_ms());
  EXPECT_TRUE(s->streaming->threads.empty());
  EXPECT_TRUE(Warned(*s, "no record line names its thread")) << Warnings(*s);
}

TEST(Gstreamer, NoLatencyRecordsMeansNoLatency) {
  std::string log;
  std::istringstream in(Data("tee_bin.log"));
  for (std::string line; std::getline(in, line);) {
    if (line.find(":: latency, ") == std::string::npos) log += line + "\n";
  }
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_TRUE(s->samples.has_frame_ms());  // the threads' work, as ever
  EXPECT_FALSE(s->streaming->latency.has_value());
  EXPECT_TRUE(Warned(*s, "no `latency` (source -> sink) records")) << Warnings(*s);
  // out-1 and out-2 are still outputs: they are sinks in the dump.
  EXPECT_TRUE(NodeOf(*s, "/pipeline0/out-1").output);
}

TEST(Gstreamer, LatencyRecordsAreTakenBySinkPadWhicheverSourceTheyName) {
  // Behind a mixer each buffer at a sink names the source whose probe came
  // first, now and then another: out-1's second record names src-2 here. The
  // k-th record at a sink pad is still its k-th buffer.
  std::string log = Data("tee_bin.log");
  const std::string from = "src-element-id=(string)0x5600000000a1, src-element=(string)src-1";
  const size_t second = log.rfind(
      from, log.find("sink-element=(string)out-1, sink=(string)sink, time=(guint64)9300000"));
  ASSERT_NE(second, std::string::npos);
  log.replace(second, from.size(),
              "src-element-id=(string)0x5600000000a9, src-element=(string)src-2");
  ASSERT_NE(log.find("src-2, src=(string)src, sink-element-id=(string)0x5600000000a5, "
                     "sink-element=(string)out-1, sink=(string)sink, time=(guint64)9300000"),
            std::string::npos);
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  // One group per sink pad: out-1 still ends records, so it is an output, and
  // every record is in the latency statistics.
  EXPECT_TRUE(NodeOf(*s, "/pipeline0/out-1").output);
  ASSERT_TRUE(s->streaming->latency.has_value());
  EXPECT_EQ(s->streaming->latency->records, 6u);
  EXPECT_DOUBLE_EQ(s->streaming->latency->max_ms, 13.1);
}

TEST(Gstreamer, LinesSplitAcrossReadsAndOverlongLinesAreRead) {
  // A 70000-byte junk line puts the next record across the reader's 64 KiB
  // chunk boundary; a 2 MiB line is cut, not held.
  const std::string record =
      "0:00:00.1 1 0x1 TRACE GST_TRACER :0:: element-latency, element-id=(string)0x7f00000000c4, "
      "element=(string)enc, src=(string)src, time=(guint64)3000000, ts=(guint64)1;\n";
  std::string log =
      std::string(70000, 'x') + "\n" + record + std::string(2 << 20, 'y') + "\n" + record;
  auto s = ParseGstreamer(Data("node_prefix.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(Cook(*s, "/pipe-x/enc-bin/enc"), (std::vector<double>{3.0, 3.0}));
}

TEST(Gstreamer, ACutDumpIsAnErrorWithItsLine) {
  const std::string dot = Data("tee_bin.dot");
  size_t cut = 0;
  for (int line = 0; line < 40; ++line) cut = dot.find('\n', cut) + 1;
  auto s = ParseGstreamer(dot.substr(0, cut), Data("tee_bin.log"), "cut.dot");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().file, "cut.dot");
  EXPECT_EQ(s.error().line, 41);  // the end of the text, after line 40's newline
  EXPECT_EQ(s.error().message, "the graph ends before its closing '}'");
}

TEST(Gstreamer, AnUnclosedStringIsAnErrorAtItsStart) {
  auto s = ParseGstreamer("digraph pipeline {\n  label=\"<GstPipeline>\\npipeline0;\n}\n", "",
                          "open.dot");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().Format(), "open.dot:2:9: a quoted string is not closed");
}

TEST(Gstreamer, SomethingElseIsNotADump) {
  auto s = ParseGstreamer("{\"cookgraph\": 1}", "", "x.json");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().line, 1);
  EXPECT_NE(s.error().message.find("not a GStreamer .dot dump"), std::string::npos);
}

TEST(Gstreamer, ALogWithoutRecordsIsAnError) {
  auto s = ParseGstreamer(Data("tee_bin.dot"), "0:00:00.000000001 1 0x1 INFO GST_INIT hello\n",
                          "tee_bin.dot", "quiet.log");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().file, "quiet.log");
  EXPECT_NE(s.error().message.find("no element-latency or latency records in 1 lines"),
            std::string::npos)
      << s.error().message;
}

TEST(Gstreamer, ThreadsArePastTheNodesLimitAnErrorWithTheLine) {
  // A thread is kept like an element: tee_bin's 10 nodes and 4 threads fit a
  // nodes limit of 12; 20 more threads logging split's records do not.
  const std::string log = Data("tee_bin.log");
  auto fits = ParseGstreamer(Data("tee_bin.dot"), log, "tee_bin.dot", "tee_bin.log",
                             InputLimits{.nodes = 12});
  ASSERT_TRUE(fits) << ErrorOf(fits);
  std::string threads, rusage;
  for (int i = 0; i < 20; ++i) {
    threads += fmt::format(
        "0:00:00.1 1 0x7f{:04x} TRACE GST_TRACER :0:: element-latency, "
        "element-id=(string)0x5600000000a2, element=(string)split, src=(string)src_0, "
        "time=(guint64)1, ts=(guint64){};\n",
        i, 100 + i);
    rusage += fmt::format(
        "0:00:00.1 1 0x1 TRACE GST_TRACER :0:: thread-rusage, thread-id=(guint64){}, "
        "ts=(guint64)1, average-cpuload=(uint)1, current-cpuload=(uint)1, time=(guint64)1;\n",
        1000 + i);
  }
  auto past = ParseGstreamer(Data("tee_bin.dot"), log + threads, "tee_bin.dot", "tee_bin.log",
                             InputLimits{.nodes = 12});
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().file, "tee_bin.log");
  EXPECT_GT(past.error().line, 24);  // the first line past the limit
  EXPECT_NE(past.error().message.find("records of more threads than"), std::string::npos)
      << past.error().message;
  auto many = ParseGstreamer(Data("tee_bin.dot"), log + rusage, "tee_bin.dot", "tee_bin.log",
                             InputLimits{.nodes = 12});
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().message.find("thread-rusage records of more threads"), std::string::npos)
      << many.error().message;
  // A thread field longer than the name-length limit is refused, not kept.
  const std::string long_thread =
      "0:00:00.1 1 0x" + std::string(200, 'a') +
      " TRACE GST_TRACER :0:: element-latency, element-id=(string)0x5600000000a2, "
      "element=(string)split, src=(string)src_0, time=(guint64)1, ts=(guint64)2;\n";
  auto named = ParseGstreamer(Data("tee_bin.dot"), log + long_thread, "tee_bin.dot",
                              "tee_bin.log", InputLimits{.name_length = 100});
  ASSERT_FALSE(named);
  EXPECT_NE(named.error().message.find("thread"), std::string::npos) << named.error().message;
}

TEST(Gstreamer, RusageSeriesStayBoundedWhateverTheirTimestamps) {
  gst::RusageSeries series;
  // A record every 100 ms for 20 hours, then hostile jumps of 2^60 ns.
  for (uint64_t i = 0; i < 720'000; ++i) {
    series.Add({.ts_ns = i * gst::RusageSeries::kStepNs, .time_ns = i});
  }
  for (uint64_t i = 1; i < 16; ++i) series.Add({.ts_ns = i << 60, .time_ns = i});
  EXPECT_EQ(series.records, 720'015u);
  EXPECT_LT(series.kept.size(), 200'000u);  // not one per record
  EXPECT_EQ(series.last.ts_ns, uint64_t{15} << 60);
  // The first hour keeps every 100 ms step.
  EXPECT_EQ(series.kept[35'999].ts_ns, 35'999 * gst::RusageSeries::kStepNs);
  // Timestamps at the end of the range keep nothing more, however many.
  gst::RusageSeries end;
  end.Add({.ts_ns = 0});
  for (int i = 0; i < 100'000; ++i) end.Add({.ts_ns = UINT64_MAX, .time_ns = 1});
  EXPECT_LT(end.kept.size(), 100u);
  EXPECT_EQ(end.last.ts_ns, UINT64_MAX);
}

TEST(Gstreamer, BuffersNoThreadWorkedOnAreNotFramesOfWork) {
  // q-fast logs two more buffers than anything else (its own thread, no work):
  // frames 3 and 4 have no frame time and are left out of the statistics, so
  // per-frame values divide by the 3 frames with work.
  std::string log = Data("tee_bin.log");
  for (int i = 0; i < 2; ++i) {
    log += fmt::format(
        "0:00:00.06{} 10671 0x55ad108f4c01 TRACE GST_TRACER :0:: element-latency, "
        "element-id=(string)0x5600000000a6, element=(string)q-fast, src=(string)src, "
        "time=(guint64)40000, ts=(guint64){};\n",
        i, 60000000 + i * 1000000);
  }
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  ASSERT_EQ(s->samples.frame_count(), 5u);
  const Analysis a = Analyse(*s);
  EXPECT_EQ(a.frames.counted, 3u);
  EXPECT_TRUE(std::isnan(a.frames.frame_ms[3]));
  EXPECT_DOUBLE_EQ(a.frames.mean_ms, (4.1 + 0.012 + 4.0) / 3);
  const NodeIndex split = *s->network.Find("/pipeline0/split");
  EXPECT_DOUBLE_EQ(a.stats[split].per_frame_ms, 0.033 / 3);
  EXPECT_DOUBLE_EQ(a.stats[split].cooks_per_frame, 1.0);
}

TEST(Gstreamer, AThreadFieldThatIsNotAPointerNamesNoThread) {
  // A third field that is not "0x" and hex digits (an escape sequence, text)
  // is not a thread: the record counts, with no thread.
  std::string log = Data("tee_bin.log");
  const std::string from = "10671 0x55ad108f4c09 TRACE";
  ASSERT_NE(log.find(from), std::string::npos);
  log.replace(log.find(from), from.size(), "10671 0x55|`x`\x1b]0;X\x07 TRACE");
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(s->streaming->threads.size(), 3u);  // late-comer's thread is gone
  EXPECT_DOUBLE_EQ(Cook(*s, "/pipeline0/late-comer")[0], 0.007);
  for (const StreamingThread& t : s->streaming->threads) {
    EXPECT_EQ(t.thread.find_first_not_of("0123456789abcdefx"), std::string::npos) << t.thread;
  }
}

TEST(Gstreamer, AQueueTheDumpLacksStillWaits) {
  // A queue made after the dump (a dynamic branch): its default name says so.
  std::string log = Data("tee_bin.log");
  log += "0:00:00.07 10671 0x55ad108f4c0a TRACE GST_TRACER :0:: element-latency, "
         "element-id=(string)0x56000000beef, element=(string)queue7, src=(string)src, "
         "time=(guint64)90000000, ts=(guint64)99000000;\n";
  auto s = ParseGstreamer(Data("tee_bin.dot"), log);
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(NodeOf(*s, "/pipeline0/queue7").family, "queue");
  EXPECT_EQ(NodeOf(*s, "/pipeline0/late-comer").family, "element");
  // Its 90 ms wait is no thread's work.
  EXPECT_EQ(s->streaming->threads.back().busy_ms_per_buffer, 0.0);
}

TEST(Gstreamer, ACorruptGzipLogIsAnError) {
  testing::TempDir dir;
  WriteFile(dir / "pipeline.PAUSED_PLAYING.dot", Data("tee_bin.dot"));
  // A gzip header, then bytes that are no deflate stream.
  WriteFile(dir / "trace.log.gz",
        std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10) + std::string(64, '\xff'));
  auto s = ReadGstreamer({dir / "pipeline.PAUSED_PLAYING.dot", dir / "trace.log.gz"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().file, dir / "trace.log.gz");
}

TEST(Gstreamer, ADirectoryGivesThePlayingDumpAndTheLogByContent) {
  testing::TempDir dir;
  const std::string dot = Data("tee_bin.dot");
  WriteFile(dir / "0.00.00.010000000-gst-launch.NULL_READY.dot", dot);
  WriteFile(dir / "0.00.00.020000000-gst-launch.PAUSED_PLAYING.dot", dot);
  WriteFile(dir / "0.00.01.500000000-gst-launch.PAUSED_PLAYING.dot", dot);  // later: wins
  WriteFile(dir / "0.00.09.000000000-gst-launch.PLAYING_PAUSED.dot", dot);
  WriteFile(dir / "recording", Data("tee_bin.log"));  // no extension: found by content
  WriteFile(dir / "pipeline.txt", "videotestsrc ! fakesink\n");
  auto found = FindGstreamerInputs({dir.path()});
  ASSERT_TRUE(found) << found.error().Format();
  EXPECT_EQ(found->dot, dir / "0.00.01.500000000-gst-launch.PAUSED_PLAYING.dot");
  EXPECT_EQ(found->log, dir / "recording");
  auto s = ReadGstreamer({dir.path()});
  ASSERT_TRUE(s) << ErrorOf(s);
  EXPECT_EQ(s->samples.frame_count(), 3u);

  WriteFile(dir / "second.log", Data("node_prefix.log"));
  auto two = FindGstreamerInputs({dir.path()});
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message.find("more than one tracer log"), std::string::npos);
  // Naming the files settles it.
  auto named = FindGstreamerInputs(
      {dir / "0.00.00.020000000-gst-launch.PAUSED_PLAYING.dot", dir / "second.log"});
  ASSERT_TRUE(named) << named.error().Format();
  EXPECT_EQ(named->log, dir / "second.log");
}

TEST(Gstreamer, InputsThatAreNeitherAreErrors) {
  testing::TempDir dir;
  WriteFile(dir / "notes.txt", "hello\n");
  auto neither = FindGstreamerInputs({dir / "notes.txt"});
  ASSERT_FALSE(neither);
  EXPECT_EQ(neither.error().file, dir / "notes.txt");
  EXPECT_NE(neither.error().message.find("neither a GStreamer .dot dump"), std::string::npos);
  auto missing = FindGstreamerInputs({dir / "nope.dot"});
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no such file or directory");
  WriteFile(dir / "trace.log", Data("tee_bin.log"));
  auto no_dump = FindGstreamerInputs({dir.path()});
  ASSERT_FALSE(no_dump);
  EXPECT_NE(no_dump.error().message.find("no GStreamer .dot dump found"), std::string::npos);
}

TEST(Gstreamer, StripColourRemovesAnsiSequencesOnly) {
  std::string scratch;
  const std::string_view plain = "0:00:00.1 10671 0x55 DEBUG GST_TRACER x";
  EXPECT_EQ(gst::StripColour(plain, scratch).data(), plain.data());  // no copy when there is none
  EXPECT_EQ(gst::StripColour("0x55 \x1b[00;32mDEBUG\x1b[00m  GST_TRACER x", scratch),
            "0x55 DEBUG  GST_TRACER x");
  EXPECT_EQ(gst::StripColour("cut \x1b[00;3", scratch), "cut ");  // a sequence cut at the end
}

TEST(Gstreamer, SniffersTellDumpsAndLogsFromOtherInputs) {
  EXPECT_TRUE(LooksLikeGstreamerDot(Data("tee_bin.dot").substr(0, 4096)));
  EXPECT_TRUE(LooksLikeGstreamerDot(Data("node_prefix.dot").substr(0, 600)));
  EXPECT_FALSE(LooksLikeGstreamerDot("digraph cookgraph {\n  \"a\" -> \"b\";\n}\n"));
  EXPECT_FALSE(LooksLikeGstreamerDot("{\"cookgraph\": 1}"));
  EXPECT_TRUE(LooksLikeGstreamerLog(Data("tee_bin.log").substr(0, 4096)));
  EXPECT_TRUE(LooksLikeGstreamerLog(Data("node_prefix.log").substr(0, 100)));  // a record, cut
  // A record without the debug prefix (grep output) and a coloured debug line.
  EXPECT_TRUE(LooksLikeGstreamerLog("latency, src-element-id=(string)0x1, src-element=(string)a"));
  EXPECT_TRUE(LooksLikeGstreamerLog(
      "0:00:00.009417111 10671 0x55ad10869550 \x1b[00;32mDEBUG\x1b[00m  GST_TRACER x\n"));
  EXPECT_FALSE(LooksLikeGstreamerLog("{\"traceEvents\": []}"));
  EXPECT_FALSE(LooksLikeGstreamerLog("digraph pipeline {\n"));
  EXPECT_FALSE(LooksLikeGstreamerLog("hello\nworld\n"));
}

// A Markdown report quotes log lines after other text on their line: a bullet
// with backticks, a blockquote, a table cell, a sentence. None is a log.
constexpr std::string_view kQuotingReport =
    "# cookgraph report: pipeline0\n"
    "\n"
    "## Evidence\n"
    "\n"
    "- 1 malformed record, first at trace.log:16: `0:00:00.016329277 22049 0x5593eb72b460 "
    "TRACE             GST_TRACER :0:: element-latency, element-id=(string)0x5593eb711f10, "
    "element=(string)audioconvert0, src=(string)src, time=(guint64)x, ts=(guint64)16302864;`\n"
    "> 0:00:00.009602698 10671 0x55ad10869550 DEBUG             GST_TRACER "
    "gsttracerrecord.c:123:gst_tracer_record_build_format: new format string: latency, "
    "src-element-id=(string)%s, src-element=(string)%s\n"
    "| queue0 | 0:00:00.020000000 1 0x1 TRACE GST_TRACER :0:: latency, "
    "src-element-id=(string)0x1, src-element=(string)src |\n"
    "The log says latency, src-element-id=(string)0x1 and element-latency, "
    "element-id=(string)0x2.\n";

TEST(Gstreamer, AReportQuotingLogLinesIsNotALog) {
  EXPECT_FALSE(LooksLikeGstreamerLog(kQuotingReport));
  // The same lines where a line starts are a log.
  EXPECT_TRUE(
      LooksLikeGstreamerLog("# notes\n0:00:00.020000000 1 0x1 TRACE GST_TRACER :0:: latency, "
                            "src-element-id=(string)0x1, src-element=(string)src\n"));

  // A report written into the recording's folder leaves one log there.
  testing::TempDir dir;
  WriteFile(dir / "0.00.00.020000000-gst-launch.PAUSED_PLAYING.dot", Data("tee_bin.dot"));
  WriteFile(dir / "trace.log", Data("tee_bin.log"));
  WriteFile(dir / "report.md", std::string(kQuotingReport));
  auto found = FindGstreamerInputs({dir.path()});
  ASSERT_TRUE(found) << found.error().Format();
  EXPECT_EQ(found->log, dir / "trace.log");
  auto named = FindGstreamerInputs({dir / "report.md"});
  ASSERT_FALSE(named);
  EXPECT_NE(named.error().message.find("neither a GStreamer .dot dump"), std::string::npos);
}

// When each cook began (Streaming::cook_start_ms): the record's ts - time, in
// ms since the earliest entry in the log (split's first buffer, ts 35000000 -
// time 10000), worked out by hand from tests/data/gstreamer/tee_bin.log; a
// tee's two pushes of one buffer are one cook; a record whose time cannot be
// read keeps its place with no start.
TEST(Gstreamer, EachCookStartsWhenItsBufferEnteredTheElementOnItsThread) {
  auto s = TeeBin();
  ASSERT_TRUE(s) << ErrorOf(s);
  ASSERT_TRUE(s->streaming);
  const Streaming& st = *s->streaming;
  ASSERT_EQ(st.cook_start_ms.size(), s->network.size());
  auto start = [&](const std::string& id, size_t k) {
    const NodeIndex n = *s->network.Find(id);
    return k < st.cook_start_ms[n].size() ? st.cook_start_ms[n][k] : -1.0;
  };
  auto thread = [&](const std::string& id, size_t k) -> std::string {
    const NodeIndex n = *s->network.Find(id);
    const uint32_t t = st.cook_thread[n][k];
    return t < st.threads.size() ? st.threads[t].thread : "none";
  };
  const std::string p = "/pipeline0/";
  auto id = [&](const std::string& name) {
    for (const Node& node : s->network.nodes()) {
      if (node.id.ends_with("/" + name)) return node.id;
    }
    return p + name;
  };
  EXPECT_NEAR(start(id("split"), 0), 0.0, 1e-9);
  EXPECT_NEAR(start(id("q-slow"), 0), 0.010, 1e-9);   // 36000000 - 1000000
  EXPECT_NEAR(start(id("slow"), 0), 1.010, 1e-9);     // 40100000 - 4100000
  EXPECT_NEAR(start(id("q-fast"), 0), 1.090, 1e-9);   // 36100000 - 20000
  EXPECT_NEAR(start(id("split"), 1), 5.998, 1e-9);    // 41000000 - 12000; src_1's 41013000 - 25000 too
  EXPECT_TRUE(std::isnan(start(id("slow"), 1)));      // time=(guint64)4x00000: unreadable
  EXPECT_EQ(thread(id("split"), 0), "0x55ad108f4c60");
  EXPECT_EQ(thread(id("slow"), 0), "0x55ad108f4c00");
  EXPECT_EQ(thread(id("q-fast"), 0), "0x55ad108f4c01");
}

}  // namespace
}  // namespace cookgraph
