// The split parse of a Chrome trace (adapters/events.h, ParseJsonEventsSplit;
// docs/performance.md#both-cores-in-the-parse): wherever the second half
// starts, the records, warnings and errors are the ones a one-thread parse
// gives, and the halves are joined where the guess was right.

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/byte_source.h"
#include "adapters/chrome/chrome_trace.h"
#include "adapters/chrome/records.h"
#include "tests/gzip.h"
#include "tests/sanitizers/sanitized.h"
#include "tests/temp_dir.h"

namespace cookgraph::chrome {
namespace {

struct Read {
  Result<TraceRecords> records;
  bool joined = false;
};

Read Tokenize(std::string_view text, std::optional<uint64_t> split_from) {
  auto source = ByteSource::FromString(text, "trace.json");
  Read out{.records = Error{}};
  out.records = TokenizeChromeTrace(
      *source, TokenizeOptions{.split_from = split_from,
                               .joined = &out.joined,
                               .threads = split_from ? JsonThreads::kTwo : JsonThreads::kOne});
  return out;
}

std::string Show(const Result<TraceRecords>& r) {
  return r ? "records of " + std::to_string(r->events) + " events" : r.error().Format();
}

// Splits `text` from every offset in `offsets` and checks each read against
// the one-thread read; returns how many splits were joined.
int ExpectReadAlike(std::string_view text, const std::vector<uint64_t>& offsets) {
  const Read one = Tokenize(text, std::nullopt);
  int joined = 0;
  for (uint64_t from : offsets) {
    const Read split = Tokenize(text, from);
    joined += split.joined;
    if (one.records && split.records) {
      EXPECT_TRUE(*one.records == *split.records) << "split from byte " << from;
    } else {
      EXPECT_EQ(Show(one.records), Show(split.records)) << "split from byte " << from;
    }
  }
  return joined;
}

// A trace of `bytes` or a little more: one complete event a line, then
// distributedInfo (rank 3) after the events' array.
std::string ManyEvents(size_t bytes) {
  std::string text = "{\"traceEvents\": [\n";
  for (int i = 0; text.size() < bytes; ++i) {
    text += "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op" + std::to_string(i % 97) +
            "\", \"pid\": 1, \"tid\": " + std::to_string(i % 3) + ", \"ts\": " + std::to_string(i) +
            ".5, \"dur\": 0.25, \"args\": {\"External id\": " + std::to_string(i) + "}},\n";
  }
  text +=
      "{\"ph\": \"X\", \"name\": \"last\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1}\n],\n";
  return text + "\"distributedInfo\": {\"rank\": 3, \"world_size\": 4}}\n";
}

// Every byte; under ThreadSanitizer, where each split's thread costs tens of
// milliseconds, every 11th (still a split inside every key, value and event
// of these traces, and what it looks for is the hand-over between threads).
std::vector<uint64_t> EveryOffset(std::string_view text) {
  const uint64_t stride = testing::kThreadSanitizer ? 11 : 1;
  std::vector<uint64_t> offsets;
  for (uint64_t i = 0; i < text.size(); i += stride) offsets.push_back(i);
  return offsets;
}

// One event a line, as Kineto writes: B/E pairs, v1 and v2 flows, args kept
// once per node ("Input Dims" first seen in the second half for "late"),
// [memory] events, stream waits, and events left aside (no ph, no ts, async)
// on both sides of any split.
constexpr const char* kKinetoLike = R"({
  "schemaVersion": 1,
  "distributedInfo": {"rank": 1, "world_size": 2},
  "traceEvents": [
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "cpu_op", "name": "early", "pid": 1, "tid": 1, "ts": 1, "dur": 10, "args": {"Input Dims": [[1, 2], [3]], "Input type": ["float", "int"]}},
  {"ph": "B", "cat": "cpu_op", "name": "paired", "pid": 1, "tid": 2, "ts": 2},
  {"ph": "s", "cat": "fwdbwd", "id": 7, "name": "fwdbwd", "pid": 1, "tid": 1, "ts": 3},
  {"name": "no phase", "pid": 1, "tid": 1, "ts": 3},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4, "dur": 2, "args": {"correlation": 11}},
  {"ph": "i", "name": "[memory]", "pid": 1, "tid": 1, "ts": 5, "args": {"Device Type": 1, "Device Id": 0, "Bytes": 512, "Total Allocated": 1024, "Total Reserved": 2048}},
  {"ph": "b", "name": "async", "pid": 1, "tid": 1, "ts": 5, "id": 1},
  {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 8, "dur": 20, "args": {"correlation": 11, "stream": 7}},
  {"ph": "E", "pid": 1, "tid": 2, "ts": 30},
  {"ph": "X", "cat": "cpu_op", "name": "late", "pid": 1, "tid": 1, "ts": 31, "dur": 5, "args": {"Input Dims": [[4]], "name": "late_label"}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 37, "dur": 1, "args": {"wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 3}},
  {"ph": "f", "cat": "fwdbwd", "id": 7, "bp": "e", "name": "fwdbwd", "pid": 1, "tid": 1, "ts": 38},
  {"ph": "X", "cat": "cpu_op", "name": "flowing", "pid": 1, "tid": 2, "ts": 40, "dur": 1, "bind_id": 9, "flow_out": true},
  {"ph": "X", "cat": "cpu_op", "name": "no ts", "pid": 1, "tid": 2, "dur": 1},
  {"ph": "X", "cat": "cpu_op", "name": "early", "pid": 1, "tid": 2, "ts": 42, "dur": 1, "bind_id": 9, "flow_in": true, "args": {"Input Dims": [[9]]}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100}
  ],
  "traceName": "x.json", "deviceProperties": [{"id": 0, "name": "GPU", "totalGlobalMem": 1000}]
})";

TEST(SplitParse, AKinetoLikeTraceReadsAlikeSplitAtAnyByte) {
  const int joined = ExpectReadAlike(kKinetoLike, EveryOffset(kKinetoLike));
  // Every split that starts before the last event finds an event after a
  // line break, and joins.
  EXPECT_GT(joined, 100);
}

TEST(SplitParse, TheHalvesJoinAtAnEventAndTheRecordsCarryOn) {
  const std::string_view text = kKinetoLike;
  const Read split = Tokenize(text, text.find("\"late\""));
  ASSERT_TRUE(split.records) << Show(split.records);
  EXPECT_TRUE(split.joined);
  const TraceRecords& r = *split.records;
  EXPECT_EQ(r.events, 17u);
  EXPECT_EQ(r.rank, 1);
  ASSERT_EQ(r.devices.size(), 1u);  // read after the second half ended
  EXPECT_EQ(r.devices[0].total_memory, 1000);
  EXPECT_EQ(r.no_ts.count, 1u);
  EXPECT_EQ(r.no_ts.First(), "traceEvents[14] at line 19");   // counted in the second half
  EXPECT_EQ(r.no_phase.First(), "traceEvents[4] at line 9");  // in the first
  EXPECT_EQ(r.waits.size(), 1u);
  EXPECT_EQ(r.waits[0].event, 11u);
}

TEST(SplitParse, AFlowCategoryPastTheKeySlotsReadsAlike) {
  // A numbered flow key holds its category's id, which a second half numbers
  // from 0: "late" is string 1 there, and string 70,000 and more in the
  // whole trace, past the key's slots, so its key is text in both reads.
  std::string text = "[\n";
  for (int i = 0; i < 70000; ++i) {
    text += R"({"ph": "X", "cat": "op", "name": "n)" + std::to_string(i) +
            R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(i) + R"(, "dur": 1},)" + "\n";
  }
  const size_t second = text.size();
  text += R"({"ph": "s", "cat": "late", "id": 4, "pid": 1, "tid": 1, "ts": 5},
{"ph": "s", "cat": "op", "id": 4, "pid": 1, "tid": 1, "ts": 6},
{"ph": "f", "cat": "late", "id": 4, "pid": 1, "tid": 1, "ts": 9, "bp": "e"},
{"ph": "f", "cat": "op", "id": 4, "pid": 1, "tid": 1, "ts": 9, "bp": "e"}
])";
  const Read one = Tokenize(text, std::nullopt);
  const Read split = Tokenize(text, second - 10);
  ASSERT_TRUE(one.records) << Show(one.records);
  ASSERT_TRUE(split.records) << Show(split.records);
  EXPECT_TRUE(split.joined);
  EXPECT_TRUE(*one.records == *split.records);
  const std::vector<FlowMark>& flows = split.records->flows;
  ASSERT_EQ(flows.size(), 4u);
  EXPECT_NE(flows[0].key & kTextFlowKey, 0u);  // "late": text
  EXPECT_EQ(flows[1].key & kTextFlowKey, 0u);  // "op", an early string: a number
  EXPECT_EQ(flows[0].key, flows[2].key);
  EXPECT_EQ(flows[1].key, flows[3].key);
  EXPECT_NE(flows[0].key, flows[1].key);
  EXPECT_EQ(split.records->flow_keys.size(), 1u);
}

TEST(SplitParse, ManyNamesThreadsAndCategoriesKeepTheirOwnIds) {
  // The tokenizer looks names, threads and categories up in small tables of
  // recent ones before the interner: with thousands, many share a slot, and
  // each slice must still get its own text's id, in one read and in two.
  std::string text = "[\n";
  const int kEvents = 9000;
  for (int i = 0; i < kEvents; ++i) {
    const int k = (i * 7919) % 3001;  // names in a scrambled order, each three times
    text += R"({"ph": "X", "cat": "c)" + std::to_string(k % 37) + R"(", "name": "name )" +
            std::string(k % 50, 'x') + std::to_string(k) + R"(", "pid": 1, "tid": )" +
            std::to_string(k % 23) + R"(, "ts": )" + std::to_string(i) + R"(, "dur": 1})" +
            (i + 1 < kEvents ? ",\n" : "\n]");
  }
  for (const std::optional<uint64_t> from :
       {std::optional<uint64_t>(), std::optional<uint64_t>(text.size() / 2)}) {
    const Read read = Tokenize(text, from);
    ASSERT_TRUE(read.records) << Show(read.records);
    const TraceRecords& r = *read.records;
    ASSERT_EQ(r.slices.size(), size_t{kEvents});
    for (int i = 0; i < kEvents; ++i) {
      const int k = (i * 7919) % 3001;
      const Slice& s = r.slices[static_cast<size_t>(i)];
      ASSERT_EQ(r.strings.str(s.name), "name " + std::string(k % 50, 'x') + std::to_string(k))
          << "event " << i;
      ASSERT_EQ(r.strings.str(s.cat), "c" + std::to_string(k % 37)) << "event " << i;
      ASSERT_EQ(r.strings.str(s.thread), "1\x1F" + std::to_string(k % 23)) << "event " << i;
    }
  }
}

TEST(FlowKeys, KeysAreEqualExactlyWhenTheirTextsAre) {
  // Numbered keys (FlowKeyOf) stand for "cat\x1Fid" and "\x1Ebind_id": the
  // same text, the same key; any other text, another key.
  TraceRecords r;
  const std::string q_1 = std::string("q\x1F") + "1", id_1_5 = std::string("1\x1F") + "5";
  const uint32_t q = r.strings.Intern("q"), q2 = r.strings.Intern(q_1);
  const uint32_t fwdbwd = r.strings.Intern("fwdbwd"), empty = r.strings.Intern("");
  const uint32_t fwdbwd_x = r.strings.Intern("fwdbwd\x1Fx");
  struct Case {
    std::string_view cat;
    uint32_t cat_id;
    std::string_view id;
    bool bind;
  };
  const std::vector<Case> cases = {{"q", q, "5", false},
                                   {"q", q, "05", false},
                                   {"q", q, "0", false},
                                   {"q", q, "00", false},
                                   {"q", q, id_1_5, false},
                                   {q_1, q2, "5", false},
                                   {"q", q, "140737488355327", false},  // 2^47 - 1: a number
                                   {"q", q, "140737488355328", false},  // 2^47: text
                                   {"q", q, "-5", false},
                                   {"q", q, "5.0", false},
                                   {"q", q, "", false},
                                   {"", kNone, "5", false},
                                   {"", empty, "5", false},
                                   {"", kNone, "5", true},
                                   {"", kNone, "05", true},
                                   {"fwdbwd", fwdbwd, "5", false},
                                   {"q", q, "abc", false},
                                   {"fwdbwd\x1Fx", fwdbwd_x, "5", false}};
  auto text = [](const Case& c) {
    return c.bind ? "\x1E" + std::string(c.id) : std::string(c.cat) + "\x1F" + std::string(c.id);
  };
  std::vector<FlowKey> keys;
  for (const Case& c : cases) {
    bool fwd = false;
    keys.push_back(FlowKeyOf(r, c.cat, c.cat_id, c.id, c.bind, fwd));
    EXPECT_EQ(fwd, text(c).starts_with("fwdbwd\x1F")) << text(c);
    bool again = false;  // the same text again: the same key
    EXPECT_EQ(FlowKeyOf(r, c.cat, c.cat_id, c.id, c.bind, again), keys.back()) << text(c);
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    for (size_t j = 0; j < cases.size(); ++j) {
      EXPECT_EQ(keys[i] == keys[j], text(cases[i]) == text(cases[j]))
          << text(cases[i]) << " against " << text(cases[j]);
    }
  }
  // Kineto's flows are numbers: no text is kept for them.
  EXPECT_EQ(keys[0] & kTextFlowKey, 0u);
  EXPECT_NE(keys[1] & kTextFlowKey, 0u);
}

TEST(SplitParse, InputsOfARepeatedNodeReadAlike) {
  // TensorFlow's args.inputN: only a node's first event keeps them, so the
  // second half's "b" of the same node must leave no trace in the records,
  // not even an interned string ("b" is a name later on).
  const std::string text = R"([
{"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "args": {"input0": "a"}},
{"ph": "X", "name": "op", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"input0": "b"}},
{"ph": "X", "name": "z", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"input0": "c", "input1": "a"}},
{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 6, "dur": 1}
])";
  EXPECT_GT(ExpectReadAlike(text, EveryOffset(text)), 0);
  const Read r = Tokenize(text, text.find("\"b\"") - 40);
  ASSERT_TRUE(r.records) << Show(r.records);
  EXPECT_TRUE(r.joined);
  EXPECT_EQ(r.records->extras.at(r.records->strings.Find("op")).inputs,
            std::vector<std::string>{"a"});
  EXPECT_EQ(r.records->strings.Find("c"), kNone);  // inputs are text, never interned
}

TEST(SplitParse, ACompactArrayReadsAlikeSplitAtAnyByte) {
  // One line, the array form, a string that holds ",{" and args with an array
  // of objects: some guesses fall inside a string or an args value.
  const std::string text =
      R"([{"ph":"X","name":"a,{b","pid":1,"tid":1,"ts":0,"dur":10,"args":{"x":[{"y":1},{"y":2}]}},)"
      R"({"ph":"X","name":"c","pid":1,"tid":1,"ts":2,"dur":3},{"ph":"X","name":"a,{b","pid":1,"tid":1,"ts":6,"dur":1}])";
  EXPECT_GT(ExpectReadAlike(text, EveryOffset(text)), 0);
}

TEST(SplitParse, AnArrayWithoutItsClosingBracketReadsAlike) {
  for (std::string tail : {"", ",", ",\n"}) {
    const std::string text = std::string(R"([
{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 3})") +
                             tail;
    ExpectReadAlike(text, EveryOffset(text));
    const Read split = Tokenize(text, 60);
    ASSERT_TRUE(split.records) << Show(split.records);
    // After a last comma the second half ends expecting a value: an error
    // to it, so the first half reads that part itself.
    EXPECT_EQ(split.joined, tail.empty()) << "tail '" << tail << "'";
    EXPECT_TRUE(split.records->missing_bracket) << "tail '" << tail << "'";
  }
}

TEST(SplitParse, ATraceWithTwoEventArraysReadsAlike) {
  // A repeated "traceEvents" key: one parse reads both arrays, and args first
  // seen in the second half of the first array stay the first ones.
  const std::string text = R"({"traceEvents": [
{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 3, "args": {"grid": [1, 2]}}
], "traceEvents": [
{"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 12, "dur": 3, "args": {"grid": [3, 4]}},
{"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 16, "dur": 3}
]})";
  EXPECT_GT(ExpectReadAlike(text, EveryOffset(text)), 0);
  const Read r = Tokenize(text, 60);
  ASSERT_TRUE(r.records) << Show(r.records);
  EXPECT_EQ(r.records->events, 4u);
  const NodeExtras& b = r.records->extras.at(r.records->strings.Find("b"));
  ASSERT_EQ(b.params.size(), 1u);
  EXPECT_EQ(b.params[0].second, "[1, 2]");
}

TEST(SplitParse, PrettyPrintedArgsReadAlike) {
  // Objects of an args array on lines of their own: a guess there is inside
  // an event, and the first half reads on itself.
  const std::string text = R"({"traceEvents": [
  {"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "args": {"list": [
    {"k": 1},
    {"k": 2}
  ]}},
  {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 2, "dur": 3}
]})";
  const Read inside = Tokenize(text, text.find("{\"k\": 2}") - 8);
  EXPECT_FALSE(inside.joined);
  ExpectReadAlike(text, EveryOffset(text));
}

TEST(SplitParse, ErrorsAfterTheSplitAreTheOnesOneThreadGives) {
  // A syntax error, a value the tokenizer refuses, an event that is not an
  // object, and input cut short: each in the second half of some splits.
  const std::string head =
      "[\n{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1},\n";
  for (const std::string bad :
       {R"({"ph": "X", "name": "b", "ts": 1 "dur": 1})",
        R"({"ph": "X", "name": "b", "ts": "soon"})", R"([1, 2])",
        R"({"ph": "X", "name": "b", "ts": 1e400})", R"({"ph": "X", "name": "b)"}) {
    const std::string text =
        head + bad + ",\n{\"ph\": \"X\", \"name\": \"c\", \"ts\": 5, \"dur\": 1}\n]";
    ASSERT_FALSE(Tokenize(text, std::nullopt).records) << bad;
    ExpectReadAlike(text, EveryOffset(text));
  }
}

TEST(SplitParse, AFileOfManyBlocksIsSplitAtItsMiddle) {
  // 3 MiB: each half crosses the reader's 1 MiB blocks, and the first half
  // jumps in the file (ByteSource::SkipTo) to where the second half stopped.
  const std::string text = ManyEvents(3u << 20);
  testing::TempDir dir;
  const std::string path = dir / "large.json";
  std::ofstream(path) << text;
  const Read one = Tokenize(text, std::nullopt);
  ASSERT_TRUE(one.records) << Show(one.records);
  for (const uint64_t from : {uint64_t{1} << 20, text.size() / 2, text.size() - 200}) {
    auto source = ByteSource::Open(path);
    ASSERT_TRUE(source);
    bool joined = false;
    auto split = TokenizeChromeTrace(
        **source, {.split_from = from, .joined = &joined, .threads = JsonThreads::kTwo});
    ASSERT_TRUE(split) << Show(split);
    EXPECT_TRUE(joined) << "from byte " << from;
    EXPECT_TRUE(*split == *one.records) << "from byte " << from;
    EXPECT_EQ(split->rank, 3);  // after the array: read by the first half after its jump
  }
}

TEST(SplitParse, ATraceFileIsSplitAndAGzipFileIsNot) {
  testing::TempDir dir;
  const std::string text = kKinetoLike;
  const std::string plain = dir / "trace.json";
  std::ofstream(plain) << text;
  auto source = ByteSource::Open(plain);
  ASSERT_TRUE(source);
  bool joined = false;
  auto split = TokenizeChromeTrace(
      **source, {.split_from = text.size() / 2, .joined = &joined, .threads = JsonThreads::kTwo});
  ASSERT_TRUE(split) << Show(split);
  EXPECT_TRUE(joined);
  EXPECT_TRUE(*split == *Tokenize(text, std::nullopt).records);

  const std::string gz = dir / "trace.json.gz";
  gzFile out = gzopen(gz.c_str(), "wb");
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  auto zipped = ByteSource::Open(gz);
  ASSERT_TRUE(zipped);
  joined = true;
  auto whole = TokenizeChromeTrace(
      **zipped, {.split_from = text.size() / 2, .joined = &joined, .threads = JsonThreads::kTwo});
  ASSERT_TRUE(whole) << Show(whole);
  EXPECT_FALSE(joined);  // gzip is inflated from the start: one reader
  EXPECT_TRUE(*whole == *split);
}

// A gzip trace of 16 MiB or more inflates in the background (ReadInput's
// and ReadChromeTraceFile's way of opening it): the first half reads the
// bytes as they come, the second half places the split once the inflate
// ends, and the records are the one-thread read's. A copy damaged in its
// middle, whose first half is read before the damage is found, fails as
// reading it block by block does.
TEST(SplitParse, AGzipFileInflatingInTheBackgroundIsSplitWhereItsSecondHalfPlacesIt) {
  const std::string text = ManyEvents(17u << 20);
  testing::TempDir dir;
  const std::string gz = testing::GzipMember(text, 1);
  const std::string path = dir / "large.json.gz";
  std::ofstream(path, std::ios::binary) << gz;
  const Read one = Tokenize(text, std::nullopt);
  ASSERT_TRUE(one.records) << Show(one.records);
  // Read as the bytes come, the first half may keep up with the inflate and
  // leave no room for a second (no split, the same records); read once the
  // inflate has ended, it is split halfway, unless the second half's thread
  // waits for a core longer than the first half takes to read half the
  // file: at least one of three reads is split.
  int joins = 0;
  for (const bool inflated_first : {false, true, true, true}) {
    auto source = ByteSource::Open(path, {}, GzipRead::kWholeInBackground);
    ASSERT_TRUE(source);
    ASSERT_TRUE((*source)->InflatesInBackground());
    if (inflated_first) {
      ASSERT_TRUE((*source)->AwaitInflated());
    }
    bool joined = false;
    auto split = TokenizeChromeTrace(**source, {.joined = &joined, .threads = JsonThreads::kTwo});
    ASSERT_TRUE(split) << Show(split);
    EXPECT_TRUE(*split == *one.records) << "inflated first: " << inflated_first;
    EXPECT_EQ(split->rank, 3);  // after the array: read by the first half after its jump
    EXPECT_TRUE((*source)->Settle());
    joins += inflated_first && joined;
  }
  EXPECT_GE(joins, 1);

  std::string damaged = gz;
  damaged[gz.size() * 3 / 4] = static_cast<char>(damaged[gz.size() * 3 / 4] ^ 0x55);
  const std::string bad = dir / "damaged.json.gz";
  std::ofstream(bad, std::ios::binary) << damaged;
  auto blocks = ByteSource::Open(bad, {}, GzipRead::kBlocks);
  ASSERT_TRUE(blocks);
  const Result<Snapshot> expected = ReadChromeTrace(**blocks, {});
  ASSERT_FALSE(expected);
  const Result<Snapshot> got = ReadChromeTraceFile(bad, {});
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().Format(), expected.error().Format());
}

// The fixture traces (real profiler output), each split at three places; at
// its middle only under AddressSanitizer, and not under ThreadSanitizer,
// where the crafted traces above start the same threads in a fraction of the
// time.
TEST(SplitParse, EveryFixtureTraceReadsAlike) {
  if (testing::kThreadSanitizer) GTEST_SKIP() << "the crafted traces cover the threads";
  const std::filesystem::path folder =
      std::filesystem::path(COOKGRAPH_SOURCE_DIR) / "tests/data/fixtures/traces";
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(folder)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".json") && !path.ends_with(".json.gz")) continue;
    gzFile in = gzopen(path.c_str(), "rb");
    ASSERT_NE(in, nullptr) << path;
    std::string text;
    char buffer[1 << 16];
    for (int n; (n = gzread(in, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    gzclose(in);
    std::vector<uint64_t> offsets = {text.size() / 4, text.size() / 2, text.size() * 3 / 4};
    if (testing::kAddressSanitizer) offsets = {text.size() / 2};
    SCOPED_TRACE(path);
    // Every one of them writes an event a line: each split joins.
    EXPECT_EQ(ExpectReadAlike(text, offsets), static_cast<int>(offsets.size())) << path;
    ++files;
  }
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace cookgraph::chrome
