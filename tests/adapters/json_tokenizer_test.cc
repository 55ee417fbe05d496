// The JSON reader (adapters/json_tokenizer.cc) against nlohmann::json's SAX
// parser, a conforming and widely used parser: on every input both must agree
// on accepting it, and on accepted inputs give the same events with the same
// values. The inputs: hand-written edge cases of RFC 8259, thousands of seeded
// mutations of valid documents, and documents longer than the reader's block so
// that tokens straddle its refills.

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "adapters/events.h"
#include "tests/gzip.h"
#include "tests/sanitizers/sanitized.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

// Events as one line each. Numbers by value (and float spelling), so the two
// parsers' choices of integer type do not matter.
std::string NumberLine(double value, bool integer) {
  char text[64];
  if (value == 0) value = 0;  // -0 and 0 read the same
  std::snprintf(text, sizeof text, "%s %.17g", integer ? "int" : "num", value);
  return text;
}

class Recorder final : public EventHandler {
 public:
  std::vector<std::string> events;
  std::vector<Location> places;
  bool BeginObject(Location at) override { return Add("{", at); }
  bool EndObject(Location at) override { return Add("}", at); }
  bool BeginArray(Location at) override { return Add("[", at); }
  bool EndArray(Location at) override { return Add("]", at); }
  bool Key(std::string_view key, Location at) override { return Add("key " + std::string(key), at); }
  bool Null(Location at) override { return Add("null", at); }
  bool Bool(bool value, Location at) override { return Add(value ? "true" : "false", at); }
  bool Number(double value, std::string_view text, bool integer, Location at) override {
    // The spelling is the input's own.
    EXPECT_EQ(std::strtod(std::string(text).c_str(), nullptr), value) << text;
    return Add(NumberLine(value, integer), at);
  }
  bool String(std::string_view value, Location at) override {
    return Add("string " + std::string(value), at);
  }

 private:
  bool Add(std::string line, Location at) {
    events.push_back(std::move(line));
    places.push_back(at);
    return true;
  }
};

// Skips the value of every other key it is asked about (SkipsValue), and
// reads numbers from their text (ReadsNumberValues false): it must see the
// events Recorder sees, less the skipped values', and the same errors.
class Skipper final : public EventHandler {
 public:
  std::vector<std::string> events;
  bool BeginObject(Location) override { return Add("{"); }
  bool EndObject(Location) override { return Add("}"); }
  bool BeginArray(Location) override { return Add("["); }
  bool EndArray(Location) override { return Add("]"); }
  bool Key(std::string_view key, Location) override {
    skip_ = asked_++ % 2 == 0;
    return Add("key " + std::string(key));
  }
  bool Null(Location) override { return Add("null"); }
  bool Bool(bool value, Location) override { return Add(value ? "true" : "false"); }
  bool Number(double value, std::string_view text, bool integer, Location) override {
    const double read = std::strtod(std::string(text).c_str(), nullptr);
    EXPECT_TRUE(value == 0 || value == read) << text;  // 0 unless converted anyway
    return Add(NumberLine(read, integer));
  }
  bool String(std::string_view value, Location) override {
    return Add("string " + std::string(value));
  }
  bool SkipsValue() const override { return skip_; }
  bool ReadsNumberValues() const override { return false; }

 private:
  bool Add(std::string line) {
    events.push_back(std::move(line));
    return true;
  }
  size_t asked_ = 0;
  bool skip_ = false;
};

// Recorder's events less what Skipper skips: the value after every other key
// it sees (a skipped value's own keys are not asked about).
std::vector<std::string> WithoutSkipped(const std::vector<std::string>& all) {
  std::vector<std::string> out;
  size_t asked = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    out.push_back(all[i]);
    if (all[i].rfind("key ", 0) != 0 || asked++ % 2 != 0) continue;
    size_t j = i + 1;
    int depth = 0;
    do {
      if (j >= all.size()) break;
      if (all[j] == "{" || all[j] == "[") ++depth;
      if (all[j] == "}" || all[j] == "]") --depth;
      ++j;
    } while (depth > 0);
    i = j - 1;
  }
  return out;
}

struct Reference : nlohmann::json_sax<nlohmann::json> {
  std::vector<std::string> events;
  bool null() override { return Add("null"); }
  bool boolean(bool value) override { return Add(value ? "true" : "false"); }
  bool number_integer(number_integer_t value) override {
    return Add(NumberLine(static_cast<double>(value), true));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Add(NumberLine(static_cast<double>(value), true));
  }
  bool number_float(number_float_t value, const string_t& text) override {
    // nlohmann reads integers beyond 64 bits as floats; ours calls them integers.
    bool digits_only = text.find_first_of(".eE") == std::string::npos;
    return Add(NumberLine(value, digits_only));
  }
  bool string(string_t& value) override { return Add("string " + value); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return Add("{"); }
  bool key(string_t& key) override { return Add("key " + key); }
  bool end_object() override { return Add("}"); }
  bool start_array(std::size_t) override { return Add("["); }
  bool end_array() override { return Add("]"); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Add(std::string line) {
    events.push_back(std::move(line));
    return true;
  }
};

struct Outcome {
  bool ok = false;
  std::vector<std::string> events;
  Error error;
};

Outcome Ours(const std::string& text, JsonThreads threads = JsonThreads::kOne,
             const InputLimits& limits = {}) {
  auto source = ByteSource::FromString(text, "t.json", limits);
  Recorder recorder;
  Status status = ParseJsonEvents(*source, recorder, nullptr, threads);
  Outcome out{.ok = static_cast<bool>(status), .events = std::move(recorder.events)};
  if (!status) out.error = status.error();
  return out;
}

Outcome Theirs(const std::string& text) {
  Reference reference;
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(text, &reference, nlohmann::json::input_format_t::json,
                                   /*strict=*/true);
  } catch (const std::exception&) {
    ok = false;
  }
  return {.ok = ok, .events = std::move(reference.events)};
}

// Both accept with the same events, or both refuse; a refusal names the file,
// a line and a column, and says "invalid JSON".
void ExpectAgree(const std::string& text) {
  Outcome ours = Ours(text);
  Outcome theirs = Theirs(text);
  {
    // Skipped values are still read and checked: the same status, the same
    // error at the same place, the events less the skipped ones.
    auto source = ByteSource::FromString(text, "t.json");
    Skipper skipper;
    const Status status = ParseJsonEvents(*source, skipper, nullptr, JsonThreads::kOne);
    EXPECT_EQ(static_cast<bool>(status), ours.ok) << text;
    if (status && ours.ok) {
      EXPECT_EQ(skipper.events, WithoutSkipped(ours.events)) << text;
    }
    if (!status && !ours.ok) {
      EXPECT_EQ(status.error().message, ours.error.message) << text;
      EXPECT_EQ(status.error().line, ours.error.line) << text;
      EXPECT_EQ(status.error().column, ours.error.column) << text;
    }
  }
  // Two threads give the same events and the same error as one.
  Outcome two = Ours(text, JsonThreads::kTwo);
  EXPECT_EQ(two.ok, ours.ok);
  EXPECT_EQ(two.events, ours.events);
  EXPECT_EQ(two.error.message, ours.error.message);
  EXPECT_EQ(two.error.line, ours.error.line);
  EXPECT_EQ(two.error.column, ours.error.column);
  std::string shown = text.size() > 200 ? text.substr(0, 200) + "..." : text;
  ASSERT_EQ(ours.ok, theirs.ok) << shown << "\nours: " << ours.error.message;
  if (ours.ok) {
    EXPECT_EQ(ours.events, theirs.events) << shown;
  } else {
    EXPECT_EQ(ours.error.file, "t.json") << shown;
    EXPECT_GE(ours.error.line, 1) << shown;
    EXPECT_GE(ours.error.column, 1) << shown;
    EXPECT_EQ(ours.error.message.rfind("invalid JSON: ", 0), 0u) << ours.error.message;
  }
}

const char* const kCases[] = {
    // Valid.
    "{}", "[]", "0", "-0", "1", "-1", "1.5", "-1.5e3", "1E+2", "1e-2", "0.000123", "123456789012345678",
    "9007199254740993", "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
    "1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308", "1e-400", "0.1", "0.30000000000000004",
    "3.141592653589793238462643383279", "1e22", "1e23", "9007199254740992e-22", "[1e22, 1e-22, 123e-20]",
    "true", "false", "null", "\"\"", "\"a\"", R"("\"\\\/\b\f\n\r\t")", R"("\u0041\u00e9\u20AC")",
    R"("\ud83d\ude00")", R"("\u0000")", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"", " \t\r\n[ 1 , 2 ]\n ",
    R"({"a": [1, {"b": null}], "c": "d"})", "[[[[[]]]]]", R"({"": ""})", R"({"a": 1, "a": 2})",
    "\xEF\xBB\xBF{}",
    // Invalid.
    "", " ", "[", "]", "{", "}", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{\"a\":}", "{1:2}",
    "01", "-", "+1", ".5", "1.", "1.e2", "1e", "1e+", "0x10", "NaN", "Infinity", "-Infinity", "1e999",
    "-1e999", "tru", "truex", "nul", "[true false]", "\"abc", "\"a\nb\"", "\"a\tb\"", R"("\x")",
    R"("\u12")", R"("\u12G4")", R"("\ud800")", R"("\udc00")", R"("\ud800\u0041")", "\"\xc3\"",
    "\"\xc0\xaf\"", "\"\xe0\x80\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xff\"",
    "\"\x80\"", "[1]x", "{} {}", "[\"a\",]", "// comment\n{}", "{'a': 1}", "[1,,2]", "\xEF\xBB{}",
};

TEST(JsonEvents, AgreesWithNlohmannOnEdgeCases) {
  for (const char* text : kCases) ExpectAgree(text);
  // Each case as a skipped value and as a read one.
  for (const char* text : kCases) {
    std::string skipped = R"({"skip": )";
    skipped += text;
    skipped += R"(, "keep": [1, {"k": 2.5}]})";
    ExpectAgree(skipped);
    std::string read = R"({"skip": 1, "keep": )";
    read += text;
    read += "}";
    ExpectAgree(read);
  }
}

TEST(JsonEvents, ASkippedValueKeepsTheLimits) {
  // Nesting past the depth limit inside a skipped value fails where a read
  // one fails; a skipped number that overflows fails as a read one does.
  std::string deep = R"({"skip": )";
  deep.append(300, '[');
  deep.append(300, ']');
  deep += "}";
  for (const std::string& text : {deep, std::string(R"({"skip": [1e999]})")}) {
    auto read = ByteSource::FromString(text, "t.json");
    Recorder recorder;
    const Status want = ParseJsonEvents(*read, recorder, nullptr, JsonThreads::kOne);
    auto skipped = ByteSource::FromString(text, "t.json");
    Skipper skipper;
    const Status got = ParseJsonEvents(*skipped, skipper, nullptr, JsonThreads::kOne);
    ASSERT_FALSE(want) << text;
    ASSERT_FALSE(got) << text;
    EXPECT_EQ(got.error().message, want.error().message);
    EXPECT_EQ(got.error().column, want.error().column);
    EXPECT_EQ(skipper.events, (std::vector<std::string>{"{", "key skip"}));
  }
}

TEST(JsonEvents, AgreesWithNlohmannOnMutatedDocuments) {
  const std::string base[] = {
      R"({"cookgraph": 1, "nodes": [{"id": "/a/b", "type": "noiseTOP", "params": {"w": "1280"}},
  {"id": "c\u00e9", "inputs": ["/a/b"], "output": true}],
 "frames": {"index": [0, 1, 2], "frame_ms": [16.7, null, 1.5e1],
  "series": {"/a/b": {"cook_ms": [0.25, 0.5, -0.0]}}}})",
      R"([{"ph":"X","name":"aten::mm","ts":1024.551,"dur":154.519,"args":{"Input Dims":[[2,3],[3]]}},
{"ph":"s","id":7,"cat":"ac2g","bp":"e","name":"\"q\"\\"},{"ph":"M","args":{"name":"\ud83d\ude00"}}])",
  };
  std::mt19937 rng(20261122);
  const char alphabet[] = "{}[]:,\"\\0123456789.eE+-tfnaul \n\x80\xc3\xff";
  int accepted = 0, refused = 0;
  // Under ThreadSanitizer a tenth of the rounds: each starts a thread, and
  // what it looks for (the two threads' hand-over) is the same in every one.
  // Under AddressSanitizer a quarter: the fuzz targets' smoke runs mutate
  // the same readers there too (fuzz_smoke_native_json, fuzz_smoke_chrome_trace).
  const int rounds = testing::kThreadSanitizer ? 400 : testing::kAddressSanitizer ? 1000 : 4000;
  for (int round = 0; round < rounds; ++round) {
    std::string text = base[round % 2];
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % (text.size() + 1);
      switch (rng() % 4) {
        case 0:  // replace a byte
          if (at < text.size()) text[at] = alphabet[rng() % (sizeof alphabet - 1)];
          break;
        case 1:  // insert one
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), alphabet[rng() % (sizeof alphabet - 1)]);
          break;
        case 2:  // delete one
          if (at < text.size()) text.erase(at, 1);
          break;
        default:  // cut the rest
          text.resize(at);
          break;
      }
    }
    ExpectAgree(text);
    if (HasFatalFailure()) return;
    (Ours(text).ok ? accepted : refused)++;
  }
  // The mutations must exercise both sides.
  EXPECT_GT(accepted, rounds / 40);
  EXPECT_GT(refused, rounds / 4);
}

// Longer than the 1 MiB block, with strings (escaped and not, some long),
// numbers and literals of varied lengths, so that every kind of token is cut
// by a refill somewhere.
std::string LongDocument() {
  std::mt19937 rng(7);
  std::string text = "[\n";
  while (text.size() < (3u << 20)) {
    switch (rng() % 6) {
      case 0: text += "\"" + std::string(rng() % 40, 'x') + "\""; break;
      case 1: text += "\"a\\n\\u00e9\\ud83d\\ude00" + std::string(rng() % 9, 'y') + "\""; break;
      case 2: text += std::to_string(rng() % 100000) + "." + std::to_string(rng() % 1000) + "e-" + std::to_string(rng() % 30); break;
      case 3: text += rng() % 2 ? "true" : "null"; break;
      case 4: text += "\"" + std::string(5000 + rng() % 300000, 'z') + "\""; break;
      default: text += "{\"k\": -" + std::to_string(rng()) + "}"; break;
    }
    text += rng() % 3 == 0 ? ",\n" : ", ";
  }
  text += "0]";
  return text;
}

TEST(JsonEvents, TokensAcrossBlockBoundariesReadTheSame) { ExpectAgree(LongDocument()); }

// A file is read in large blocks straight into the reader's buffer (not
// through the source's own): the same events at the same places as the text
// read from memory, and errors at the same line and column, plain or gzip, on
// one thread or two.
TEST(JsonEvents, AFileReadsAsTheSameTextInMemory) {
  cookgraph::testing::TempDir dir;
  const std::string good = LongDocument();
  const std::string bad = good.substr(0, good.size() - 300) + "\n]x" +
                          good.substr(good.size() - 300);  // an error on the last line but one
  for (const std::string* text : {&good, &bad}) {
    const std::string plain = dir / "t.json", packed = dir / "t.json.gz";
    std::FILE* f = std::fopen(plain.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    ASSERT_EQ(std::fwrite(text->data(), 1, text->size(), f), text->size());
    ASSERT_EQ(std::fclose(f), 0);
    gzFile gz = gzopen(packed.c_str(), "wb1");
    ASSERT_NE(gz, nullptr);
    ASSERT_EQ(gzwrite(gz, text->data(), static_cast<unsigned>(text->size())),
              static_cast<int>(text->size()));
    ASSERT_EQ(gzclose(gz), Z_OK);
    // Read block by block, the gzip file's stored size is its compressed
    // size, under the 1 MiB block: the reader's buffer, sized by it, holds a
    // part of the text and is refilled and grown for the long strings.
    EXPECT_LT(std::filesystem::file_size(packed), uintmax_t{1} << 20);

    auto memory = ByteSource::FromString(*text, "t.json");
    Recorder expected;
    const Status want = ParseJsonEvents(*memory, expected, nullptr, JsonThreads::kOne);
    ASSERT_EQ(static_cast<bool>(want), text == &good);
    for (const std::string& path : {plain, packed}) {
      for (JsonThreads threads : {JsonThreads::kOne, JsonThreads::kTwo}) {
        auto source = ByteSource::Open(path);
        ASSERT_TRUE(source) << path;
        Recorder got;
        const Status status = ParseJsonEvents(**source, got, nullptr, threads);
        EXPECT_EQ(got.events, expected.events) << path;
        ASSERT_EQ(got.places.size(), expected.places.size()) << path;
        for (size_t i = 0; i < got.places.size(); ++i) {
          ASSERT_EQ(got.places[i].line, expected.places[i].line) << path << " event " << i;
          ASSERT_EQ(got.places[i].column, expected.places[i].column) << path << " event " << i;
        }
        ASSERT_EQ(static_cast<bool>(status), static_cast<bool>(want)) << path;
        if (!want) {
          EXPECT_EQ(status.error().message, want.error().message) << path;
          EXPECT_EQ(status.error().line, want.error().line) << path;
          EXPECT_EQ(status.error().column, want.error().column) << path;
          EXPECT_GT(status.error().line, 10) << path;
        }
      }
    }
  }
}

TEST(JsonEvents, PlacesAreLineAndColumnInBytes) {
  auto source = ByteSource::FromString("{\n  \"ab\": [12.5,\n   true]}", "t.json");
  Recorder r;
  ASSERT_TRUE(ParseJsonEvents(*source, r));
  ASSERT_EQ(r.events.size(), 7u);  // { key [ 12.5 true ] }
  // A number: where it starts. Everything else: just after its token.
  EXPECT_EQ(r.places[1].line, 2);  // the key
  EXPECT_EQ(r.places[1].column, 7);
  EXPECT_EQ(r.places[3].line, 2);  // 12.5
  EXPECT_EQ(r.places[3].column, 10);
  EXPECT_EQ(r.places[4].line, 3);  // true
  EXPECT_EQ(r.places[4].column, 8);
}


TEST(JsonEvents, PlacesAfterRunsOfBlanksAreCountedByteByByte) {
  // Runs of 0 to 40 blanks (spaces, tabs, CRs and line breaks, as indented
  // traces have them) between numbers, over more than one read block and in
  // both modes: each number's place must be its line and column counted one
  // byte at a time, here.
  std::mt19937 random(20261130);
  std::string text = "[";
  std::vector<size_t> starts;
  while (text.size() < (size_t{5} << 19)) {
    if (starts.size() > 0) text += ',';
    const int run = static_cast<int>(random() % 41);
    for (int k = 0; k < run; ++k) text += " \t\r\n"[random() % 4];
    starts.push_back(text.size());
    text += std::to_string(random() % 100000);
  }
  text += "]";
  std::vector<Location> expected;
  int64_t line = 1;
  size_t line_start = 0, next = 0;
  for (size_t i = 0; i < text.size() && next < starts.size(); ++i) {
    if (i == starts[next]) {
      expected.push_back({line, static_cast<int64_t>(i - line_start) + 1});
      ++next;
    }
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  for (JsonThreads threads : {JsonThreads::kOne, JsonThreads::kTwo}) {
    auto source = ByteSource::FromString(text, "t.json");
    Recorder r;
    ASSERT_TRUE(ParseJsonEvents(*source, r, nullptr, threads));
    ASSERT_EQ(r.places.size(), starts.size() + 2);  // [ numbers ]
    for (size_t k = 0; k < starts.size(); ++k) {
      ASSERT_EQ(r.places[k + 1].line, expected[k].line) << "number " << k;
      ASSERT_EQ(r.places[k + 1].column, expected[k].column) << "number " << k;
    }
  }
  // A perturbed text fails where the byte-by-byte count says.
  text.back() = 'x';
  Outcome bad = Ours(text);
  ASSERT_FALSE(bad.ok);
  EXPECT_EQ(bad.error.line, line);
  EXPECT_EQ(bad.error.column, static_cast<int64_t>(text.size() - 1 - line_start) + 1);
}
TEST(JsonEvents, ErrorsSayWhatAndWhere) {
  EXPECT_EQ(Ours("[1,\n 2,]").error.message, "invalid JSON: unexpected ']'; expected a value (an object, array, string, number, true, false or null)");
  Outcome cut = Ours("{\"a\": [1, 2");
  EXPECT_EQ(cut.error.message, "invalid JSON: unexpected end of input; expected ',' or ']'");
  Outcome control = Ours("[\"a\nb\"]");
  EXPECT_EQ(control.error.message, "invalid JSON: invalid string: control character U+000A must be escaped");
  EXPECT_EQ(control.error.line, 1);
  EXPECT_EQ(control.error.column, 4);
  EXPECT_EQ(Ours("[1e999]").error.message, "invalid JSON: number overflow parsing '1e999'");
  EXPECT_EQ(Ours("[\"\xff\"]").error.message, "invalid JSON: invalid string: ill-formed UTF-8 byte 0xFF");
}

TEST(JsonEvents, ReportsWhenTheInputEndedEarly) {
  for (const char* text : {"[1, 2", "{\"a\": \"b", "[tr", "[1.", "{\"a\""}) {
    auto source = ByteSource::FromString(text, "t.json");
    Recorder r;
    bool ended = false;
    EXPECT_FALSE(ParseJsonEvents(*source, r, &ended)) << text;
    EXPECT_TRUE(ended) << text;
  }
  auto source = ByteSource::FromString("[1, }", "t.json");
  Recorder r;
  bool ended = true;
  EXPECT_FALSE(ParseJsonEvents(*source, r, &ended));
  EXPECT_FALSE(ended);
}

// A handler that stops after `limit` events, as the readers do on a bad value.
class StopAfter final : public EventHandler {
 public:
  explicit StopAfter(size_t limit) : limit_(limit) {}
  size_t seen = 0;
  bool BeginObject(Location) override { return Next(); }
  bool EndObject(Location) override { return Next(); }
  bool BeginArray(Location) override { return Next(); }
  bool EndArray(Location) override { return Next(); }
  bool Key(std::string_view, Location) override { return Next(); }
  bool Null(Location) override { return Next(); }
  bool Bool(bool, Location) override { return Next(); }
  bool Number(double, std::string_view, bool, Location) override { return Next(); }
  bool String(std::string_view, Location) override { return Next(); }

 private:
  bool Next() { return ++seen < limit_; }
  size_t limit_;
};

TEST(JsonEvents, AHandlerStopEndsTheParseInBothModes) {
  std::string text = "[";
  for (int i = 0; i < 200000; ++i) text += std::to_string(i) + ",";
  text += "0]";  // 200,003 events
  for (size_t limit : {1, 5000, 8192, 8193, 150000}) {
    for (JsonThreads threads : {JsonThreads::kOne, JsonThreads::kTwo}) {
      auto source = ByteSource::FromString(text, "t.json");
      StopAfter handler(limit);
      bool ended = true;
      Status status = ParseJsonEvents(*source, handler, &ended, threads);
      ASSERT_FALSE(status);
      EXPECT_EQ(status.error().message, "");  // the handler's own error stands
      EXPECT_FALSE(ended);
      EXPECT_EQ(handler.seen, limit);  // not one event after the stop
    }
  }
}

TEST(JsonEvents, DeepNestingNeedsNoRecursion) {
  std::string text = std::string(200000, '[') + std::string(200000, ']');
  Outcome ours = Ours(text, JsonThreads::kOne, InputLimits{.depth = 200000});
  EXPECT_TRUE(ours.ok) << ours.error.Format();
  EXPECT_EQ(ours.events.size(), 400000u);
}

// A small gzip file opened to be read to its end (GzipRead::kWholeWhenSmall)
// is inflated whole by ISA-L: the same bytes as zlib's block-by-block reading,
// every member, the same errors for what is corrupt or cut short, and bombs
// left to block-by-block reading (adapters/byte_source.h).

std::string Gzip(const std::string& text) { return cookgraph::testing::GzipMember(text); }

void Write(const std::string& path, const std::string& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
  ASSERT_EQ(std::fclose(f), 0);
}

struct Read {
  std::string bytes;
  std::string error;
  uint64_t stored_size = 0;
  bool reopens = false;  // a string, which a split parse can read twice
};

Read ReadAll(const std::string& path, GzipRead gzip) {
  auto opened = ByteSource::Open(path, {}, gzip);
  EXPECT_TRUE(opened) << path;
  if (!opened) return {};
  ByteSource& source = **opened;
  Read out{.stored_size = source.stored_size()};
  source.Head();  // the first read, which Reopen() wants
  out.reopens = source.Reopen() != nullptr;
  char block[4096];
  for (size_t n; (n = source.Read(block, sizeof block)) > 0;) out.bytes.append(block, n);
  out.error = source.error();
  return out;
}

// Text that compresses as a trace does (tens of times, not thousands).
std::string TraceLike(size_t bytes) {
  std::mt19937 rng(39);
  std::string text = "[";
  while (text.size() < bytes) {
    text += "{\"ph\": \"X\", \"name\": \"aten::op" + std::to_string(rng() % 500) +
            "\", \"ts\": " + std::to_string(rng()) + ", \"dur\": " + std::to_string(rng() % 999) +
            "},\n";
  }
  return text + "{}]";
}

TEST(ByteSource, ReadKeepsLinesAndColumnsAsAdvanceDoes) {
  // Reads of random sizes over text with lines of 0 to 40 bytes: after each,
  // line(), column() and PositionBack() of the last byte and of a byte on the
  // line before agree with a count one byte at a time.
  std::mt19937 random(7);
  std::string text;
  while (text.size() < 300000) {
    text.append(random() % 41, 'x');
    text += '\n';
  }
  std::vector<int64_t> line_of(text.size() + 1), column_of(text.size() + 1);
  int64_t line = 1, column = 1;
  for (size_t i = 0; i <= text.size(); ++i) {
    line_of[i] = line;
    column_of[i] = column;
    if (i < text.size() && text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  auto source = ByteSource::FromString(text, "t.txt");
  std::vector<char> out(5000);
  size_t at = 0;
  while (at < text.size()) {
    const size_t n = source->Read(out.data(), 1 + random() % 4000);
    ASSERT_GT(n, 0u);
    at += n;
    ASSERT_EQ(source->line(), line_of[at]) << at;
    ASSERT_EQ(source->column(), column_of[at]) << at;
    const auto [last_line, last_column] = source->PositionBack(1);
    ASSERT_EQ(last_line, line_of[at - 1]) << at;
    ASSERT_EQ(last_column, column_of[at - 1]) << at;
    const auto back = static_cast<uint64_t>(column_of[at]);  // the previous line's line break
    if (at >= back && line_of[at] > 1) {
      const auto [prev_line, prev_column] = source->PositionBack(back);
      ASSERT_EQ(prev_line, line_of[at - back]) << at;
      ASSERT_EQ(prev_column, column_of[at - back]) << at;
    }
  }
}

TEST(ByteSource, ASmallGzipFileIsInflatedWholeToTheSameBytes) {
  cookgraph::testing::TempDir dir;
  const std::string text = TraceLike(3 << 20);
  const std::string gz = Gzip(text);
  Write(dir / "t.json.gz", gz);
  const Read whole = ReadAll(dir / "t.json.gz", GzipRead::kWholeWhenSmall);
  const Read blocks = ReadAll(dir / "t.json.gz", GzipRead::kBlocks);
  EXPECT_EQ(whole.bytes, text);
  EXPECT_EQ(blocks.bytes, text);
  EXPECT_EQ(whole.error, "");
  // Inflated whole: a string of the inflated size, which can be read twice.
  EXPECT_EQ(whole.stored_size, text.size());
  EXPECT_TRUE(whole.reopens);
  // Block by block: the stored size, one reader from the start.
  EXPECT_EQ(blocks.stored_size, gz.size());
  EXPECT_FALSE(blocks.reopens);
}

// The rest of an input in memory, as Read() would copy it: a string from its
// start, after a jump, and cut at the input-size limit; a gzip file inflated
// whole; nothing for a file read from storage.
TEST(ByteSource, TheRestInMemoryIsWhatReadWouldCopy) {
  const std::string text = "[{\"ph\": \"X\"},\n{\"ph\": \"B\"}]";
  auto whole = ByteSource::FromString(text, "t.json");
  EXPECT_EQ(whole->InMemoryRest(), std::optional<std::string_view>(text));
  ASSERT_TRUE(whole->SkipTo(14));
  EXPECT_EQ(whole->InMemoryRest(), std::optional<std::string_view>(text.substr(14)));
  char block[64];
  EXPECT_EQ(std::string_view(block, whole->Read(block, 5)), text.substr(14, 5));
  EXPECT_EQ(whole->InMemoryRest(), std::optional<std::string_view>(text.substr(19)));
  auto cut = ByteSource::FromString(text, "t.json", InputLimits{.input_size = 10});
  EXPECT_EQ(cut->InMemoryRest(), std::optional<std::string_view>(text.substr(0, 10)));
  ASSERT_TRUE(cut->SkipTo(4));
  EXPECT_EQ(cut->InMemoryRest(), std::optional<std::string_view>(text.substr(4, 6)));

  cookgraph::testing::TempDir dir;
  const std::string trace = TraceLike(300000);
  Write(dir / "t.json", trace);
  Write(dir / "t.json.gz", Gzip(trace));
  auto plain = ByteSource::Open(dir / "t.json", {}, GzipRead::kWholeWhenSmall);
  ASSERT_TRUE(plain);
  EXPECT_EQ((*plain)->InMemoryRest(), std::nullopt);
  auto inflated = ByteSource::Open(dir / "t.json.gz", {}, GzipRead::kWholeWhenSmall);
  ASSERT_TRUE(inflated);
  EXPECT_EQ((*inflated)->InMemoryRest(), std::optional<std::string_view>(trace));
  auto blocks = ByteSource::Open(dir / "t.json.gz", {}, GzipRead::kBlocks);
  ASSERT_TRUE(blocks);
  EXPECT_EQ((*blocks)->InMemoryRest(), std::nullopt);
}

TEST(ByteSource, EveryMemberIsReadAndBytesAfterTheLastAreIgnoredAsZlibDoes) {
  cookgraph::testing::TempDir dir;
  const std::string a = TraceLike(200000), b = TraceLike(300000) + "tail";
  Write(dir / "members.json.gz", Gzip(a) + Gzip(b));
  Write(dir / "garbage.json.gz", Gzip(a) + "this is not gzip");
  for (const char* name : {"members.json.gz", "garbage.json.gz"}) {
    const Read whole = ReadAll(dir / name, GzipRead::kWholeWhenSmall);
    const Read blocks = ReadAll(dir / name, GzipRead::kBlocks);
    EXPECT_EQ(whole.bytes, blocks.bytes) << name;
    EXPECT_EQ(whole.error, "") << name;
  }
  const Read members = ReadAll(dir / "members.json.gz", GzipRead::kWholeWhenSmall);
  EXPECT_EQ(members.bytes, a + b);
  EXPECT_TRUE(members.reopens);  // inflated whole
  // After garbage the trailer's size is garbage too ("gzip" read as a
  // number, over 512 MB): read block by block, to the same bytes.
  EXPECT_FALSE(ReadAll(dir / "garbage.json.gz", GzipRead::kWholeWhenSmall).reopens);
}

TEST(ByteSource, CorruptOrCutGzipFailsAsBlockByBlockReadingDoes) {
  cookgraph::testing::TempDir dir;
  const std::string text = TraceLike(500000);
  std::string gz = Gzip(text);
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 0xFF);
  Write(dir / "crc.json.gz", bad_crc);
  Write(dir / "cut.json.gz", gz.substr(0, gz.size() / 2));
  std::string flipped = gz;
  flipped[gz.size() / 3] = static_cast<char>(flipped[gz.size() / 3] ^ 0x55);
  Write(dir / "flipped.json.gz", flipped);
  for (const char* name : {"crc.json.gz", "cut.json.gz", "flipped.json.gz"}) {
    const Read whole = ReadAll(dir / name, GzipRead::kWholeWhenSmall);
    const Read blocks = ReadAll(dir / name, GzipRead::kBlocks);
    EXPECT_NE(whole.error, "") << name;
    EXPECT_EQ(whole.error, blocks.error) << name;
    EXPECT_EQ(whole.bytes, blocks.bytes) << name;
    EXPECT_FALSE(whole.reopens) << name;  // read block by block after all
  }
  EXPECT_EQ(ReadAll(dir / "crc.json.gz", GzipRead::kWholeWhenSmall).error,
            "gzip data is corrupt: incorrect data check");
  EXPECT_EQ(ReadAll(dir / "cut.json.gz", GzipRead::kWholeWhenSmall).error,
            "gzip data is corrupt: unexpected end of file");
}

TEST(ByteSource, ABombIsLeftToBlockByBlockReading) {
  cookgraph::testing::TempDir dir;
  // 8 MiB of blanks in about 8 KiB: a thousandfold, where JSON inflates tens of times.
  const std::string blanks(size_t{8} << 20, ' ');
  Write(dir / "bomb.json.gz", Gzip(blanks));
  const Read whole = ReadAll(dir / "bomb.json.gz", GzipRead::kWholeWhenSmall);
  EXPECT_EQ(whole.bytes.size(), blanks.size());
  EXPECT_FALSE(whole.reopens);
  EXPECT_LT(whole.stored_size, uint64_t{1} << 20);  // the stored (compressed) size
}

// From 16 MiB inflated (as the trailer says), kWholeInBackground inflates on a
// thread of its own: Head() is the text's start, Read() gives the same bytes
// as they come, and Settle() leaves a string of the inflated size, read on
// from where Read() stopped, with the lines counted as one reader counts
// them. A smaller file is inflated whole when opened.
TEST(ByteSource, ALargeGzipFileInflatesInTheBackgroundToTheSameBytes) {
  cookgraph::testing::TempDir dir;
  const std::string text = TraceLike(17 << 20);
  Write(dir / "large.json.gz", Gzip(text));
  auto opened = ByteSource::Open(dir / "large.json.gz", {}, GzipRead::kWholeInBackground);
  ASSERT_TRUE(opened);
  ByteSource& source = **opened;
  ASSERT_TRUE(source.InflatesInBackground());
  const std::string_view head = source.Head();
  EXPECT_GE(head.size(), size_t{1} << 18);
  EXPECT_TRUE(std::string_view(text).starts_with(head));
  EXPECT_EQ(source.PeekNonBlank(), '[');
  std::string got(size_t{5} << 20, '\0');
  for (size_t at = 0; at < got.size();) {
    const size_t n = source.Read(got.data() + at, std::min<size_t>(got.size() - at, 70000));
    ASSERT_GT(n, 0u);
    at += n;
  }
  EXPECT_TRUE(source.Settle());
  EXPECT_FALSE(source.InflatesInBackground());
  EXPECT_EQ(source.stored_size(), text.size());
  char block[4096];
  for (size_t n; (n = source.Read(block, sizeof block)) > 0;) got.append(block, n);
  EXPECT_EQ(got, text);
  EXPECT_EQ(source.error(), "");
  EXPECT_EQ(source.line(), std::count(text.begin(), text.end(), '\n') + 1);

  const std::string small = TraceLike(3 << 20);
  Write(dir / "small.json.gz", Gzip(small));
  auto whole = ByteSource::Open(dir / "small.json.gz", {}, GzipRead::kWholeInBackground);
  ASSERT_TRUE(whole);
  EXPECT_FALSE((*whole)->InflatesInBackground());
  EXPECT_EQ((*whole)->stored_size(), small.size());
}

// A large gzip file found corrupt by the inflate in the background: with no
// byte read yet, Settle() turns to block-by-block reading, which fails as
// kBlocks does; with bytes read, Settle() says to read it again (false).
TEST(ByteSource, ACorruptLargeGzipFileInTheBackgroundIsReadAgainBlockByBlock) {
  cookgraph::testing::TempDir dir;
  const std::string gz = Gzip(TraceLike(17 << 20));
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 0xFF);
  Write(dir / "crc.json.gz", bad_crc);
  std::string flipped = gz;
  flipped[gz.size() / 2] = static_cast<char>(flipped[gz.size() / 2] ^ 0x55);
  Write(dir / "flipped.json.gz", flipped);
  for (const char* name : {"crc.json.gz", "flipped.json.gz"}) {
    SCOPED_TRACE(name);
    const Read blocks = ReadAll(dir / name, GzipRead::kBlocks);
    ASSERT_NE(blocks.error, "");
    auto unread = ByteSource::Open(dir / name, {}, GzipRead::kWholeInBackground);
    ASSERT_TRUE(unread);
    ASSERT_TRUE((*unread)->InflatesInBackground());
    EXPECT_TRUE((*unread)->Settle());
    std::string bytes;
    char block[4096];
    for (size_t n; (n = (*unread)->Read(block, sizeof block)) > 0;) bytes.append(block, n);
    EXPECT_EQ(bytes, blocks.bytes);
    EXPECT_EQ((*unread)->error(), blocks.error);

    auto read = ByteSource::Open(dir / name, {}, GzipRead::kWholeInBackground);
    ASSERT_TRUE(read);
    ASSERT_TRUE((*read)->InflatesInBackground());
    while ((*read)->Read(block, sizeof block) > 0) {
    }
    EXPECT_NE((*read)->error(), "");
    EXPECT_FALSE((*read)->Settle());
  }
}

}  // namespace
}  // namespace cookgraph
