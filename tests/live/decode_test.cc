// The live protocol's two forms: JSON lines and OSC bundles (built here with
// liblo, as a sender would), and the errors a bad datagram gets.

#include "live/decode.h"

#include <gtest/gtest.h>
#include <lo/lo.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <string>

namespace cookgraph {
namespace {

// OSC's "immediately" time tag (sec 0, frac 1): liblo's LO_TT_IMMEDIATE is a
// C compound literal, which C++ does not have (clang: -Wc99-extensions).
lo_timetag Immediately() {
  lo_timetag t;
  t.sec = 0;
  t.frac = 1;
  return t;
}

double Value(const NodeSample& s, Metric m) { return s.values[static_cast<size_t>(m)]; }

// "" on success, else "LINE:COLUMN: WHERE: MESSAGE" with the parts the error has.
std::string Decode(std::string_view datagram, std::vector<FrameRecord>& out) {
  Status s = DecodeDatagram(datagram, out);
  if (s) return "";
  const Error& e = s.error();
  std::string text;
  if (e.line > 0) text += std::to_string(e.line) + ":";
  if (e.column > 0) text += std::to_string(e.column) + ":";
  if (!text.empty()) text += " ";
  return text + e.Format();
}

TEST(DecodeJson, BothNodeFormsAndEveryKey) {
  std::vector<FrameRecord> out;
  ASSERT_EQ(Decode(R"({"frame": 1201, "frame_ms": 16.4, "nodes": {"/p/a": 0.61,)"
                   R"( "/p/b": {"cook_ms": 1.25, "gpu_ms": 0.5, "cooks": 2, "cpu_mem_mb": 3,)"
                   R"( "gpu_mem_mb": 7.5}, "/p/c": null}})",
                   out),
            "");
  ASSERT_EQ(out.size(), 1u);
  const FrameRecord& r = out[0];
  EXPECT_EQ(r.frame, 1201);
  EXPECT_EQ(r.frame_ms, 16.4);
  EXPECT_FALSE(r.more);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(r.nodes[0].id, "/p/a");
  EXPECT_EQ(Value(r.nodes[0], Metric::kCookMs), 0.61);
  EXPECT_TRUE(IsMissing(Value(r.nodes[0], Metric::kGpuMs)));
  EXPECT_EQ(Value(r.nodes[1], Metric::kCookMs), 1.25);
  EXPECT_EQ(Value(r.nodes[1], Metric::kGpuMs), 0.5);
  EXPECT_EQ(Value(r.nodes[1], Metric::kCooks), 2);
  EXPECT_EQ(Value(r.nodes[1], Metric::kCpuMemMb), 3);
  EXPECT_EQ(Value(r.nodes[1], Metric::kGpuMemMb), 7.5);
  EXPECT_TRUE(IsMissing(Value(r.nodes[2], Metric::kCookMs)));  // null: did not cook
}

TEST(DecodeJson, ANumberTooLargeForADoubleIsAnErrorNotACrash) {
  // nlohmann throws out_of_range (not parse_error) for 1e999; it used to end
  // `cookgraph watch` (fuzz/regressions/live/number_overflow.bin).
  std::vector<FrameRecord> out;
  EXPECT_EQ(Decode("{\"frame\": 1, \"nodes\": {}}\n{\"frame\": 1e3081, \"nodes\": {}}", out),
            "2: invalid JSON: number overflow parsing '1e3081'");
  EXPECT_EQ(out.size(), 1u);  // the line before it stays
  out.clear();
  EXPECT_EQ(Decode("{\"frame\": 2, \"nodes\": {\"/p/a\": -1e999}}", out),
            "1: invalid JSON: number overflow parsing '-1e999'");
}

TEST(DecodeJson, SeveralLinesInOneDatagramAndParts) {
  std::vector<FrameRecord> out;
  ASSERT_EQ(Decode("{\"frame\": 7, \"more\": true, \"nodes\": {\"a\": 1}}\n\n"
                   "{\"frame\": 7, \"nodes\": {\"b\": 2}}\r\n",
                   out),
            "");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].more);
  EXPECT_FALSE(out[1].more);
  EXPECT_TRUE(IsMissing(out[0].frame_ms));
  EXPECT_EQ(out[1].nodes[0].id, "b");
}

// "/a/a/.../a": an id nested `depth` containers deep.
std::string Deep(int depth) {
  std::string id;
  for (int i = 0; i <= depth; ++i) id += "/a";
  return id;
}

TEST(DecodeJson, BadLinesNameTheLineAndWhatIsWrong) {
  struct Case {
    std::string datagram;
    std::string error;
  };
  const Case cases[] = {
      {"{\"frame\": 1, \"nodes\": {}}\n{\"frame\": oops}",
       "2:11: invalid JSON: syntax error while parsing value - invalid literal; last read: "
       "'\"frame\": o'"},
      {"{\"nodes\": {}}", "1: no \"frame\" (the engine's frame number)"},
      {"{\"frame\": 3}", "1: no \"nodes\" (give {} for a frame in which nothing cooked)"},
      {"{\"frame\": 3.5, \"nodes\": {}}", "1: frame: expected a whole number, got 3.5"},
      {"{\"frame\": \"3\", \"nodes\": {}}", "1: frame: expected a whole number, got \"3\""},
      {"{\"frame\": 3, \"nodes\": {\"a\": -1}}",
       "1: node 'a': expected a number from 0 to 1e12, got -1"},
      {"{\"frame\": 3, \"nodes\": {\"a\": {\"cook_ms\": 1, \"cooks\": 1.5}}}",
       "1: node 'a'.cooks: expected a whole number, got 1.5"},
      {"{\"frame\": 3, \"nodes\": {\"a\": {\"cook\": 1}}}",
       "1: node 'a': unknown key 'cook' (expected cook_ms, gpu_ms, cooks, cpu_mem_mb, "
       "gpu_mem_mb)"},
      {"{\"frame\": 3, \"nodes\": {\"" + Deep(300) + "\": 1}}",
       "1: node '" + Deep(300) + "': nests more than 256 containers"},
      {"{\"frame\": 3, \"nodes\": {\"a\": \"fast\"}}",
       "1: node 'a': expected a number, got string"},
      {"{\"frame\": 3, \"nodes\": [1]}",
       "1: nodes: expected an object of node id -> cook_ms or {cook_ms, gpu_ms, cooks, "
       "cpu_mem_mb, gpu_mem_mb}, got array"},
      {"{\"frame\": 3, \"nodes\": {}, \"fps\": 60}",
       "1: unknown key 'fps' (expected frame, frame_ms, more, nodes)"},
      {"{\"frame\": 3, \"more\": 1, \"nodes\": {}}", "1: more: expected true or false, got 1"},
      {"[1, 2]", "1: expected an object {\"frame\": N, \"nodes\": {...}}, got array"},
      {"/cookgraph/frame\0\0\0\0,i\0\0",
       "an OSC message outside a bundle: send each frame as "
       "one bundle (/cookgraph/frame, then /cookgraph/cook per "
       "node)"},
  };
  for (const Case& c : cases) {
    std::vector<FrameRecord> out;
    EXPECT_EQ(Decode(c.datagram, out), c.error) << c.datagram;
  }
  std::vector<FrameRecord> out;
  Decode("{\"frame\": 1, \"nodes\": {}}\n{\"frame\": oops}", out);
  EXPECT_EQ(out.size(), 1u);  // the good line before the bad one stays
}

// A bundle as a sender builds it with liblo.
class Bundle {
 public:
  Bundle() : bundle_(lo_bundle_new(Immediately())) {}
  ~Bundle() { lo_bundle_free_recursive(bundle_); }
  lo_message Add(const char* path) {
    lo_message m = lo_message_new();
    lo_bundle_add_message(bundle_, path, m);
    return m;
  }
  std::string Bytes() const {
    size_t size = 0;
    void* data = lo_bundle_serialise(bundle_, nullptr, &size);
    std::string out(static_cast<char*>(data), size);
    std::free(data);
    return out;
  }

 private:
  lo_bundle bundle_;
};

TEST(DecodeOsc, ABundleIsOneFrame) {
  Bundle b;
  lo_message frame = b.Add("/cookgraph/frame");
  lo_message_add_int32(frame, 4242);
  lo_message_add_float(frame, 16.5f);
  lo_message a = b.Add("/cookgraph/cook");
  lo_message_add_string(a, "/project1/\"glsl\" caf\xc3\xa9");
  lo_message_add_float(a, 0.25f);
  lo_message c = b.Add("/cookgraph/cook");
  lo_message_add_string(c, "/project1/comp1");
  lo_message_add_double(c, 1.125);
  lo_message_add_double(c, 0.75);
  lo_message_add_int64(c, 3);
  lo_message d = b.Add("/cookgraph/cook");
  lo_message_add_string(d, "/project1/chop1");
  lo_message_add_float(d, 0.5f);
  lo_message_add_nil(d);  // no GPU time
  lo_message_add_int32(d, 2);
  b.Add("/cookgraph/more");
  std::vector<FrameRecord> out;
  ASSERT_EQ(Decode(b.Bytes(), out), "");
  ASSERT_EQ(out.size(), 1u);
  const FrameRecord& r = out[0];
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_TRUE(IsMissing(Value(r.nodes[2], Metric::kGpuMs)));
  EXPECT_EQ(Value(r.nodes[2], Metric::kCooks), 2);
  EXPECT_EQ(r.frame, 4242);
  EXPECT_EQ(r.frame_ms, 16.5);
  EXPECT_TRUE(r.more);
  EXPECT_EQ(r.nodes[0].id, "/project1/\"glsl\" caf\xc3\xa9");
  EXPECT_EQ(Value(r.nodes[0], Metric::kCookMs), 0.25);
  EXPECT_TRUE(IsMissing(Value(r.nodes[0], Metric::kCooks)));
  EXPECT_EQ(Value(r.nodes[1], Metric::kCookMs), 1.125);
  EXPECT_EQ(Value(r.nodes[1], Metric::kGpuMs), 0.75);
  EXPECT_EQ(Value(r.nodes[1], Metric::kCooks), 3);
}

TEST(DecodeOsc, BadBundlesNameTheMessageAndWhatIsWrong) {
  auto decode = [](const std::function<void(Bundle&)>& fill) {
    Bundle b;
    fill(b);
    std::vector<FrameRecord> out;
    return Decode(b.Bytes(), out);
  };
  EXPECT_EQ(decode([](Bundle& b) { lo_message_add_float(b.Add("/cookgraph/frame"), 1.0f); }),
            "message 1: /cookgraph/frame takes the frame number (i or h) and optionally the frame "
            "time in ms (f or d); got types 'f'");
  EXPECT_EQ(decode([](Bundle& b) {
              lo_message_add_int32(b.Add("/cookgraph/frame"), 1);
              lo_message m = b.Add("/cookgraph/cook");
              lo_message_add_string(m, "a");
              lo_message_add_float(m, NAN);
            }),
            "message 2: /cookgraph/cook: argument 2 out of range: nan (0 to 1e12)");
  EXPECT_EQ(decode([](Bundle& b) {
              lo_message_add_int32(b.Add("/cookgraph/frame"), 1);
              lo_message_add_float(b.Add("/cookgraph/cook"), 1.0f);
            }),
            "message 2: /cookgraph/cook takes the node id (s), cook_ms, and optionally gpu_ms "
            "and cooks; got types 'f'");
  EXPECT_EQ(decode([](Bundle& b) {
              lo_message_add_int32(b.Add("/cookgraph/frame"), 1);
              lo_message_add_int32(b.Add("/cookgraph/fps"), 60);
            }),
            "message 2: unknown address '/cookgraph/fps' (expected /cookgraph/frame, "
            "/cookgraph/cook, /cookgraph/more)");
  EXPECT_EQ(decode([](Bundle& b) {
              lo_message m = b.Add("/cookgraph/cook");
              lo_message_add_string(m, "a");
              lo_message_add_float(m, 1.0f);
            }),
            "an OSC bundle without /cookgraph/frame (the frame number comes first)");
  std::vector<FrameRecord> out;
  std::string cut("#bundle\0", 8);
  cut.append(8, '\0');                       // the time tag
  cut.append(std::string("\0\0\0\x10", 4));  // an element of 16 bytes, and nothing after
  EXPECT_EQ(Decode(cut, out),
            "bundle: an element of 16 bytes where 0 are left (sizes are multiples of 4)");
  EXPECT_EQ(Decode(std::string("#bundle\0\0\0", 11), out),
            "not an OSC bundle (it must start with \"#bundle\" and a time tag)");
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace cookgraph
