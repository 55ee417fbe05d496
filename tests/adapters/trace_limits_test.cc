// The limits (adapters/input_limits.h) in the Chrome trace and GStreamer
// readers, fed strings: names (event names, categories, threads, args.name,
// op_name, inputN; element and pad names of the dump and the log), captured
// args (string-length), distinct operators and elements (nodes), frames ×
// nodes (samples), subgraph nesting (depth, without recursion) and the size of
// a dump read whole (dot-size). Each is met exactly and passed by one.

#include <gtest/gtest.h>

#include <string>

#include "adapters/chrome/chrome_trace.h"
#include "adapters/gstreamer/gstreamer.h"
#include "adapters/gstreamer/records.h"

namespace cookgraph {
namespace {

std::string Trace(const std::string& text, const InputLimits& limits) {
  auto read = ParseChromeTrace(text, {}, "t.json", limits);
  return read ? "" : read.error().Format();
}

// One X event per entry of `names`, each in its own ProfilerStep#k.
std::string Steps(int steps, int ops_per_step) {
  std::string text = "[";
  for (int k = 0; k < steps; ++k) {
    text += "{\"ph\": \"X\", \"name\": \"ProfilerStep#" + std::to_string(k) +
            "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(k * 100) + ", \"dur\": 100},\n";
    for (int i = 0; i < ops_per_step; ++i) {
      text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" +
              std::to_string(k * ops_per_step + i) +
              "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(k * 100 + i + 1) +
              ", \"dur\": 1},\n";
    }
  }
  text.resize(text.size() - 2);
  return text + "]";
}

std::string Event(const std::string& fields) {
  return "[{\"ph\": \"X\", \"name\": \"a\", \"ts\": 0, \"dur\": 1, \"pid\": 1, \"tid\": 1" +
         fields + "}]";
}

TEST(TraceLimits, EveryKeptTextOfAnEventIsANameBoundedByNameLength) {
  // 10 bytes: "Input Dims", the longest key used here, fits.
  const InputLimits limits{.name_length = 10};
  const std::string fits(10, 'x'), name(11, 'x');
  EXPECT_EQ(
      Trace(Event(", \"cat\": \"" + fits + "\", \"args\": {\"name\": \"" + fits + "\"}"), limits),
      "");
  EXPECT_EQ(Trace(Event(", \"cat\": \"" + name + "\""), limits),
            "t.json:1:86: traceEvents[0]: \"cat\" is 11 bytes long, longer than the name-length "
            "limit of 10 bytes; if the input is genuine, raise it with --limit name-length=40");
  for (const std::string& fields :
       {", \"tid\": \"" + name + "\"", ", \"id\": \"" + name + "\"",
        ", \"bind_id\": \"" + name + "\"", ", \"args\": {\"name\": \"" + name + "\"}",
        ", \"args\": {\"op_name\": \"" + name + "\"}",
        ", \"args\": {\"input0\": \"" + name + "\"}"}) {
    EXPECT_NE(
        Trace(Event(fields), limits).find("is 11 bytes long, longer than the name-length limit"),
        std::string::npos)
        << fields;
  }
  // Other args are not names: they are not kept, or bounded by string-length.
  EXPECT_EQ(
      Trace(Event(", \"args\": {\"note\": \"" + name + name + "\", \"Input Dims\": [[1, 2]]}"),
            limits),
      "");
}

TEST(TraceLimits, ACapturedArgIsBoundedByStringLength) {
  const std::string dims =
      ", \"args\": {\"Input Dims\": [[1, 2], [3, 4]]}";  // [[1, 2], [3, 4]]: 16 bytes
  EXPECT_EQ(Trace(Event(dims), InputLimits{.string_length = 16}), "");
  EXPECT_EQ(
      Trace(Event(dims), InputLimits{.string_length = 15}),
      "t.json:1:105: traceEvents[0]: args \"input_dims\" is longer than the string-length limit "
      "of 15 bytes; if the input is genuine, raise it with --limit string-length=60");
}

TEST(TraceLimits, DistinctOperatorsAreBoundedByNodes) {
  EXPECT_EQ(Trace(Steps(2, 3), InputLimits{.nodes = 6}), "");
  EXPECT_EQ(Trace(Steps(2, 3), InputLimits{.nodes = 5}),
            "t.json: traceEvents[7]: the trace has more distinct operators (nodes) than the nodes "
            "limit of 5; if the input is genuine, raise it with --limit nodes=20");
}

TEST(TraceLimits, FramesTimesOperatorsAreBoundedBySamples) {
  // 4 steps with one new operator each: 4 operators × 4 frames = 16 slots,
  // from 8 events.
  EXPECT_EQ(Trace(Steps(4, 1), InputLimits{.samples = 16}), "");
  EXPECT_EQ(Trace(Steps(4, 1), InputLimits{.samples = 15}),
            "t.json: 4 operators × 4 steps make more samples than the samples limit of 15; if the "
            "input is genuine, raise it with --limit samples=60");
}

TEST(TraceLimits, ChromeDepthAndInputSizeComeFromTheTokenizerAndSource) {
  // The events' array, the event, args, then four arrays: 7 deep at the 1.
  const std::string deep = Event(", \"args\": {\"Input Dims\": [[[[1]]]]}");
  EXPECT_EQ(Trace(deep, InputLimits{.depth = 7}), "");
  EXPECT_NE(Trace(deep, InputLimits{.depth = 6}).find("nest deeper than the depth limit of 6"),
            std::string::npos);
  EXPECT_NE(Trace(deep, InputLimits{.input_size = 20}).find("at byte 20: the input"),
            std::string::npos);
}

// A dump with `elements` elements in a row and `depth` levels of subgraphs
// that are not clusters (scopes without an element); its log gives each
// element `buffers` records.
std::string Dump(int elements, int depth = 0, const std::string& name = "e") {
  std::string text = "digraph pipeline {\n  label=\"<GstPipeline>\\npipeline0\";\n";
  for (int i = 0; i < elements; ++i) {
    const std::string id = name + std::to_string(i) + "_0x" + std::to_string(100 + i);
    text += "  subgraph cluster_" + id + " {\n    label=\"GstIdentity\\n" + name +
            std::to_string(i) + "\";\n    subgraph cluster_" + id + "_src {\n      " + id +
            "_src_0x1 [label=\"src\"];\n    }\n  }\n";
  }
  for (int d = 0; d < depth; ++d) text += "subgraph s {\n";
  for (int d = 0; d < depth; ++d) text += "}\n";
  return text + "}\n";
}

std::string Log(int elements, int buffers, const std::string& name = "e") {
  std::string text;
  for (int k = 0; k < buffers; ++k) {
    for (int i = 0; i < elements; ++i) {
      text +=
          "0:00:00.035000000 1 0x1 TRACE GST_TRACER :0:: element-latency, element-id=(string)0x" +
          std::to_string(100 + i) + ", element=(string)" + name + std::to_string(i) +
          ", src=(string)src, time=(guint64)1000, ts=(guint64)1;\n";
    }
  }
  return text;
}

std::string Gst(const std::string& dot, const std::string& log, const InputLimits& limits) {
  auto read = ParseGstreamer(dot, log, "p.dot", "t.log", limits);
  return read ? "" : read.error().Format();
}

TEST(TraceLimits, DumpSubgraphsNestWithoutRecursionUpToDepth) {
  EXPECT_EQ(Gst(Dump(1, 4), Log(1, 1), InputLimits{.depth = 4}), "");
  EXPECT_EQ(
      Gst(Dump(1, 5), Log(1, 1), InputLimits{.depth = 4}),
      "p.dot:13:12: subgraphs nest deeper than the depth limit of 4; if the input is genuine, "
      "raise it with --limit depth=16");
  // 200,000 levels, allowed: a recursive parser would overflow its stack.
  EXPECT_EQ(Gst(Dump(1, 200000), Log(1, 1), InputLimits{.depth = 200000}), "");
}

TEST(TraceLimits, IdsOfDeeplyNestedBinsAreBoundedByNameLength) {
  // Each bin's id is the path through the bins above it: 2,000 nested bins
  // named "bin" would make ids of up to 8 KB, 8 MB in all.
  std::string dot = "digraph pipeline {\n  label=\"<GstPipeline>\\npipeline0\";\n";
  for (int d = 0; d < 2000; ++d)
    dot += "subgraph cluster_bin_0x" + std::to_string(d + 1) + " {\n  label=\"GstBin\\nbin\";\n";
  for (int d = 0; d < 2000; ++d) dot += "}\n";
  dot += "}\n";
  EXPECT_EQ(Gst(dot, "", InputLimits{.depth = 2000, .name_length = 1000}),
            "p.dot:497: element 'bin': its id (the path through its bins) is 1002 bytes long, "
            "longer than the name-length limit of 1000 bytes; if the input is genuine, raise it "
            "with --limit name-length=4000");
}

TEST(TraceLimits, ElementsOfTheDumpAndTheLogAreBoundedByNodes) {
  // The pipeline itself is a node too: 3 elements make 4 nodes.
  EXPECT_EQ(Gst(Dump(3), Log(3, 2), InputLimits{.nodes = 4}), "");
  EXPECT_EQ(Gst(Dump(3), Log(3, 2), InputLimits{.nodes = 3}),
            "t.log: the dump's 3 elements and the log's 0 others make more nodes than the nodes "
            "limit of 3; if the input is genuine, raise it with --limit nodes=12");
  EXPECT_EQ(Gst(Dump(3), Log(3, 2), InputLimits{.nodes = 2}),
            "p.dot:15:29: the dump has more elements than the nodes limit of 2; if the input is "
            "genuine, raise it with --limit nodes=8");
  EXPECT_EQ(Gst(Dump(1), Log(3, 2), InputLimits{.nodes = 2}),
            "t.log:3: the log has records of more elements than the nodes limit of 2; if the "
            "input is genuine, raise it with --limit nodes=8");
}

TEST(TraceLimits, ElementNamesOfTheDumpAndTheLogAreBoundedByNameLength) {
  // 24 bytes: ids are "/pipeline0/" and the name, so names of 13 fit.
  const InputLimits limits{.name_length = 24};
  const std::string fits = "abcdefghijkl", name(24, 'n');  // a digit follows each
  EXPECT_EQ(Gst(Dump(2, 0, fits), Log(2, 1, fits), limits), "");
  EXPECT_EQ(Gst(Dump(1, 0, name), "", limits),
            "p.dot:3: element cluster_" + name +
                "0_0x100: its name is 25 bytes long, longer "
                "than the name-length limit of 24 bytes; if the input is genuine, raise it with "
                "--limit name-length=96");
  EXPECT_EQ(Gst(Dump(1, 0, fits), Log(1, 1, name), limits),
            "t.log:1: a record's element is 25 bytes long, longer than the name-length limit of "
            "24 bytes; if the input is genuine, raise it with --limit name-length=96");
}

TEST(TraceLimits, BuffersTimesSampledElementsAreBoundedBySamples) {
  EXPECT_EQ(Gst(Dump(3), Log(3, 4), InputLimits{.samples = 12}), "");
  EXPECT_EQ(Gst(Dump(3), Log(3, 4), InputLimits{.samples = 11}),
            "t.log: 3 sampled elements × 4 buffers make more samples than the samples limit of "
            "11; if the input is genuine, raise it with --limit samples=44");
}

TEST(TraceLimits, ADumpIsReadWholeOnlyUpToDotSize) {
  const std::string dot = Dump(1);
  EXPECT_EQ(Gst(dot, "", InputLimits{.dot_size = dot.size()}), "");
  EXPECT_EQ(Gst(dot, "", InputLimits{.dot_size = dot.size() - 1}),
            "p.dot: the .dot dump is larger than the dot-size limit of " +
                std::to_string(dot.size() - 1) +
                " bytes; if the input is genuine, raise it with --limit dot-size=" +
                std::to_string(4 * (dot.size() - 1)));
}

}  // namespace
}  // namespace cookgraph
