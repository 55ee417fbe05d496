// The limits (adapters/input_limits.h) in the native snapshot's stages, fed
// strings: the JSON and YAML tokenizers (depth, name-length for keys,
// string-length for values, numbers and YAML scalars, with both JSON threads)
// and the snapshot builder (nodes, name-length for every name, a series of the
// wrong length refused where it ends). Each limit is met exactly (accepted)
// and passed by one (refused with its place and the option that raises it).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "adapters/events.h"
#include "adapters/native/snapshot_reader.h"

namespace cookgraph {
namespace {

// Counts events; refuses nothing.
class Counter final : public EventHandler {
 public:
  size_t events = 0;
  bool BeginObject(Location) override { return ++events; }
  bool EndObject(Location) override { return ++events; }
  bool BeginArray(Location) override { return ++events; }
  bool EndArray(Location) override { return ++events; }
  bool Key(std::string_view, Location) override { return ++events; }
  bool Null(Location) override { return ++events; }
  bool Bool(bool, Location) override { return ++events; }
  bool Number(double, std::string_view, bool, Location) override { return ++events; }
  bool String(std::string_view, Location) override { return ++events; }
};

// The formatted error of parsing `text` as JSON ("" when accepted); with
// two threads too, which must agree.
std::string Json(const std::string& text, const InputLimits& limits) {
  std::string errors[2];
  for (JsonThreads threads : {JsonThreads::kOne, JsonThreads::kTwo}) {
    auto source = ByteSource::FromString(text, "t.json", limits);
    Counter counter;
    Status status = ParseJsonEvents(*source, counter, nullptr, threads);
    errors[threads == JsonThreads::kTwo] = status ? "" : status.error().Format();
  }
  EXPECT_EQ(errors[0], errors[1]) << "one and two threads disagree";
  return errors[0];
}

std::string Yaml(const std::string& text, const InputLimits& limits) {
  auto source = ByteSource::FromString(text, "t.yaml", limits);
  Counter counter;
  Status status = ParseYamlEvents(*source, counter);
  return status ? "" : status.error().Format();
}

std::string SnapshotError(const std::string& text, Spelling spelling, const InputLimits& limits) {
  auto read =
      ParseSnapshot(text, spelling, spelling == Spelling::kJson ? "t.json" : "t.yaml", limits);
  return read ? "" : read.error().Format();
}

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(ReaderLimits, JsonDepthIsCountedPerOpenContainer) {
  const InputLimits limits{.depth = 3};
  EXPECT_EQ(Json(Nested(3), limits), "");
  EXPECT_EQ(Json("{\"a\": [{}]}", limits), "");
  EXPECT_EQ(Json(Nested(4), limits),
            "t.json:1:4: arrays and objects nest deeper than the depth limit of 3; if the input "
            "is genuine, raise it with --limit depth=12");
  EXPECT_EQ(Json("{\"a\": [{\"b\": {}}]}", limits),
            "t.json:1:14: arrays and objects nest deeper than the depth limit of 3; if the input "
            "is genuine, raise it with --limit depth=12");
}

TEST(ReaderLimits, JsonKeysAreBoundedByNameLengthAndValuesByStringLength) {
  const InputLimits limits{.name_length = 8, .string_length = 16};
  EXPECT_EQ(Json("{\"12345678\": \"1234567890123456\"}", limits), "");
  EXPECT_EQ(Json("{\"123456789\": 1}", limits),
            "t.json:1:2: an object key is longer than the name-length limit of 8 bytes; if the "
            "input is genuine, raise it with --limit name-length=32");
  EXPECT_EQ(Json("[\"12345678901234567\"]", limits),
            "t.json:1:2: a string is longer than the string-length limit of 16 bytes; if the "
            "input is genuine, raise it with --limit string-length=64");
  // Escapes count as written: the bound is on what is buffered.
  EXPECT_EQ(Json("[\"\\u00e9\\u00e9\\u00e9\"]", limits),
            "t.json:1:2: a string is longer than the string-length limit of 16 bytes; if the input "
            "is genuine, raise it with --limit string-length=64");
  EXPECT_EQ(Json("[12345678901234567]", limits),
            "t.json:1:2: a number is longer than the string-length limit of 16 bytes; if the "
            "input is genuine, raise it with --limit string-length=64");
  EXPECT_EQ(Json("[1234567890.12345]", limits), "");
}

TEST(ReaderLimits, AJsonStringLongerThanABlockStopsAtTheLimit) {
  // 3 MiB in a string: longer than the reader's 1 MiB block, refused at
  // 2 MiB while it is read.
  const std::string text = "{\"k\": \"" + std::string(3 << 20, 'a') + "\"}";
  EXPECT_EQ(Json(text, InputLimits{.string_length = 2 << 20}),
            "t.json:1:7: a string is longer than the string-length limit of 2 MiB; if the input "
            "is genuine, raise it with --limit string-length=8M");
  EXPECT_EQ(Json(text, InputLimits{.string_length = 3 << 20}), "");
}

TEST(ReaderLimits, YamlDepthCountsMappingsAndSequences) {
  const InputLimits limits{.depth = 3};
  EXPECT_EQ(Yaml("a: [1, {c: 2}]\n", limits), "");
  EXPECT_EQ(Yaml("a:\n  b: [1, {c: 2}]\n", limits),
            "t.yaml:2:10: mappings and sequences nest deeper than the depth limit of 3; if the "
            "input is genuine, raise it with --limit depth=12");
  // Far deeper than libyaml or the C++ stack would like: refused at once.
  EXPECT_NE(Yaml("a: " + Nested(100000) + "\n", InputLimits{}).find("depth limit of 256"),
            std::string::npos);
}

TEST(ReaderLimits, YamlScalarsAreBoundedByStringLength) {
  const InputLimits limits{.string_length = 16};
  EXPECT_EQ(Yaml("a: \"1234567890123456\"\n", limits), "");
  EXPECT_EQ(Yaml("a: \"12345678901234567\"\n", limits),
            "t.yaml:1:4: a YAML scalar is longer than the string-length limit of 16 bytes; if the "
            "input is genuine, raise it with --limit string-length=64");
  // A scalar far longer than the limit and libyaml's read-ahead: reading
  // stops before libyaml holds it whole, at the place after the last event.
  EXPECT_EQ(Yaml("key: " + std::string(4 << 20, 'v') + "\n", InputLimits{.string_length = 1 << 20}),
            "t.yaml:1:4: a YAML scalar (or comment) after this point is longer than the "
            "string-length limit of 1 MiB; if the input is genuine, raise it with --limit "
            "string-length=4M");
  // The largest limit --limit takes is no limit, not one that wraps to
  // libyaml's read-ahead (it refused this 1 MiB scalar).
  EXPECT_EQ(Yaml("key: " + std::string(1 << 20, 'v') + "\n",
                 InputLimits{.string_length = UINT64_MAX}),
            "");
}

TEST(ReaderLimits, YamlBytesThatAreNotUtf8AreAtTheirLineAndColumn) {
  // libyaml gives only a byte offset for these: placed by the reader, also
  // past its first buffers.
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "k" + std::to_string(i) + ": value\n";
  text += "bad: caf\xE9\n";  // a lead byte of three, then a newline
  EXPECT_EQ(Yaml(text, InputLimits{}),
            "t.yaml:20001:9: invalid YAML: incomplete UTF-8 octet sequence");
  EXPECT_EQ(Yaml("a: 1\n\xFF\n", InputLimits{}),
            "t.yaml:2:1: invalid YAML: invalid leading UTF-8 octet (byte 0xFF)");
}

std::string Nodes(int count) {
  std::string text = "{\"cookgraph\": 1, \"nodes\": [";
  for (int i = 0; i < count; ++i)
    text += (i ? ", " : "") + std::string("{\"id\": \"n") + std::to_string(i) + "\"}";
  return text + "]}";
}

TEST(ReaderLimits, SnapshotNodesAreCountedAsTheyCome) {
  EXPECT_EQ(SnapshotError(Nodes(5), Spelling::kJson, InputLimits{.nodes = 5}), "");
  EXPECT_EQ(SnapshotError(Nodes(6), Spelling::kJson, InputLimits{.nodes = 5}),
            "t.json:1:99: nodes[5]: the network has more nodes than the nodes limit of 5; if the "
            "input is genuine, raise it with --limit nodes=20");
  EXPECT_EQ(SnapshotError("cookgraph: 1\nnodes: [{id: a}, {id: b}, {id: c}]\n", Spelling::kYaml,
                     InputLimits{.nodes = 2}),
            "t.yaml:2:27: nodes[2]: the network has more nodes than the nodes limit of 2; if the "
            "input is genuine, raise it with --limit nodes=8");
}

TEST(ReaderLimits, EveryNameOfASnapshotIsBoundedByNameLength) {
  // 9 bytes: "cookgraph", the longest key used here, fits.
  const InputLimits limits{.name_length = 9};
  const std::string name(10, 'x');
  auto refused = [&](const std::string& text) {
    return SnapshotError(text, Spelling::kJson, limits)
               .find("is 10 bytes long, longer than the name-length limit of 9 bytes") !=
           std::string::npos;
  };
  EXPECT_EQ(SnapshotError(
                "{\"cookgraph\": 1, \"nodes\": [{\"id\": \"123456789\", \"type\": \"123456789\"}]}",
                Spelling::kJson, limits),
            "");
  EXPECT_TRUE(refused("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"" + name + "\"}]}"));
  EXPECT_TRUE(
      refused("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\", \"type\": \"" + name + "\"}]}"));
  EXPECT_TRUE(
      refused("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\", \"family\": \"" + name + "\"}]}"));
  EXPECT_TRUE(
      refused("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\", \"inputs\": [\"" + name + "\"]}]}"));
  EXPECT_TRUE(
      refused("{\"cookgraph\": 1, \"engine\": \"" + name + "\", \"nodes\": [{\"id\": \"a\"}]}"));
  // Keys reach the builder from YAML unbounded by the tokenizer: a series id.
  EXPECT_EQ(SnapshotError("cookgraph: 1\nnodes: [{id: a}]\nframes:\n  index: [0]\n  series:\n    " +
                         name + ": {cook_ms: [1]}\n",
                     Spelling::kYaml, limits),
            "t.yaml:6:5: a key is 10 bytes long, longer than the name-length limit of 9 bytes; if "
            "the input is genuine, raise it with --limit name-length=36");
  // A parameter's value is not a name: bounded by string-length only.
  EXPECT_EQ(SnapshotError("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\", \"params\": {\"k\": \"" +
                         std::string(100, 'v') + "\"}}]}",
                     Spelling::kJson, limits),
            "");
}

TEST(ReaderLimits, ASeriesOfTheWrongLengthIsRefusedWhereItEnds) {
  // Empty series after a long index would each reserve the index's length:
  // the first one is refused as soon as it ends, at its place.
  std::string index;
  for (int i = 0; i < 1000; ++i) index += (i ? ", " : "") + std::to_string(i);
  std::string text =
      "{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\"}, {\"id\": \"b\"}], \"frames\": "
      "{\"index\": [" +
      index +
      "], \"series\": {\"a\": {\"cook_ms\": []}, \"b\": "
      "{\"cook_ms\": [}}}";  // broken after the first series
  const std::string error = SnapshotError(text, Spelling::kJson, InputLimits{});
  EXPECT_NE(error.find("series 'a': cook_ms has 0 values but frames.index has 1000"),
            std::string::npos)
      << error;
  // Series before the index are checked once it is known, as before.
  EXPECT_EQ(
      SnapshotError("{\"cookgraph\": 1, \"nodes\": [{\"id\": \"a\"}], \"frames\": {\"series\": "
                    "{\"a\": {\"cook_ms\": [1]}}, \"index\": [0, 1]}}",
                    Spelling::kJson, InputLimits{}),
      "t.json:1:82: series 'a': cook_ms has 1 values but frames.index has 2");
}

}  // namespace
}  // namespace cookgraph
