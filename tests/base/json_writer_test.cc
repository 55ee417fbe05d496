// The one JSON writer (base/json_writer.h): its commas, and its spellings,
// the nlohmann one checked byte for byte against nlohmann's own dump.
#include "base/json_writer.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

namespace cookgraph {
namespace {

std::string Nlohmann(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Number(double v, JsonStyle style) {
  std::string out;
  AppendJsonNumber(out, v, style);
  return out;
}

std::string Quoted(std::string_view s, JsonStyle style) {
  std::string out;
  AppendJsonString(out, s, style);
  return out;
}

TEST(JsonWriter, PlacesCommasAndColonsWithoutWhiteSpace) {
  JsonWriter w;
  w.BeginObject();
  w.StringField("id", "a");
  w.Key("list");
  w.BeginArray();
  w.Count(1);
  w.Int(-2);
  w.Null();
  w.BeginObject();
  w.EndObject();
  w.BeginArray();
  w.EndArray();
  w.EndArray();
  w.BoolField("ok", true);
  w.NumberField("ms", 8);
  w.EndObject();
  EXPECT_EQ(w.Take(), R"({"id":"a","list":[1,-2,null,{},[]],"ok":true,"ms":8.0})");
}

TEST(JsonWriter, EachStyleSpellsNumbersItsOwnWay) {
  struct Case {
    double value;
    const char* shortest;  // std::to_chars, ".0" on whole numbers
    const char* nlohmann;  // Grisu2, exponent below 1e-4 and from 1e15
  };
  const double inf = std::numeric_limits<double>::infinity();
  for (const Case& c : {Case{42, "42.0", "42.0"}, Case{-0.0, "-0.0", "-0.0"}, Case{1e20, "1e+20", "1e+20"},
                        Case{100000, "1e+05", "100000.0"}, Case{1e15, "1e+15", "1e+15"},
                        Case{0.0005, "5e-04", "0.0005"}, Case{0.00005, "5e-05", "5e-05"}, Case{0.1, "0.1", "0.1"},
                        Case{std::nan(""), "null", "null"}, Case{-inf, "null", "null"}}) {
    EXPECT_EQ(Number(c.value, JsonStyle::kShortest), c.shortest) << c.value;
    EXPECT_EQ(Number(c.value, JsonStyle::kNlohmann), c.nlohmann) << c.value;
  }
}

TEST(JsonWriter, NlohmannStyleWritesNumbersAsNlohmann) {
  const JsonStyle s = JsonStyle::kNlohmann;
  for (double v : {0.0, -0.0, 1.0, 0.1, 1.0 / 3, 1e-300, 5e-324, 1.7976931348623157e308, 123456789.125,
                   1e14, 1e16, 1e-4, 1e-5, -2.5e-7, 0.30000000000000004}) {
    EXPECT_EQ(Number(v, s), Nlohmann(v)) << v;
  }
  std::mt19937_64 random(41);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = random();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    ASSERT_EQ(Number(v, s), Nlohmann(v)) << bits;
    const double ms = static_cast<double>(random() % 10000000) / 1000.0;  // a duration as traces give it
    ASSERT_EQ(Number(ms, s), Nlohmann(ms)) << ms;
  }
}

TEST(JsonWriter, ShortestStyleEscapesAsAppendJsonString) {
  const JsonStyle s = JsonStyle::kShortest;
  EXPECT_EQ(Quoted("q\"\\\b\f\n\x7f", s), R"("q\"\\\u0008\u000c\n\u007f")");
  EXPECT_EQ(Quoted("\xE2\x82\x41", s), "\"\xEF\xBF\xBD\xEF\xBF\xBD" "A\"");  // each bad byte
}

TEST(JsonWriter, NlohmannStyleEscapesAsNlohmann) {
  const JsonStyle s = JsonStyle::kNlohmann;
  EXPECT_EQ(Quoted("q\"\\\b\f\n\r\t\x01\x1f\x7f", s), R"("q\"\\\b\f\n\r\t\u0001\u001f)" "\x7f\"");
  EXPECT_EQ(Quoted("caf\xC3\xA9 \xF0\x9F\x98\x80", s), "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");  // raw
  // One U+FFFD per maximal invalid subpart; the byte that broke it is read again.
  EXPECT_EQ(Quoted("\xE2\x82\x41", s), "\"\xEF\xBF\xBD" "A\"");
  for (const char* bad : {"\xff", "\xc0\xaf", "\xe0\x80\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "a\xe2\x82", "\xf0\x9f\x98", "\xc3", "\x80\x80", "\xe2\x28\xa1"}) {
    EXPECT_EQ(Quoted(bad, s), Nlohmann(bad)) << bad;
  }
  // Random bytes, biased to UTF-8 leads and continuations.
  std::mt19937 random(41);
  const unsigned char pool[] = {'a', '"', '\\', 0x01, 0x08, 0x0c, 0x1f, 0x7f, 0x80, 0x9f, 0xa0, 0xbf,
                                0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff};
  for (int i = 0; i < 20000; ++i) {
    std::string text(random() % 9, ' ');
    for (char& c : text) c = static_cast<char>(pool[random() % sizeof pool]);
    ASSERT_EQ(Quoted(text, s), Nlohmann(text)) << i;
  }
}

TEST(JsonWriter, NlohmannStyleDocumentMatchesDump) {
  nlohmann::ordered_json j = {{"view", 3}, {"name", "n\x01\xff"}, {"ms", 2.0}, {"list", {1, -2}},
                              {"none", nullptr}, {"ok", false}};
  JsonWriter w(JsonStyle::kNlohmann);
  w.BeginObject();
  w.CountField("view", 3);
  w.StringField("name", "n\x01\xff");
  w.NumberField("ms", 2.0);
  w.Key("list");
  w.BeginArray();
  w.Count(1);
  w.Int(-2);
  w.EndArray();
  w.Field("none", JsonValue());
  w.BoolField("ok", false);
  w.EndObject();
  EXPECT_EQ(w.Take(), j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

TEST(JsonWriter, FmtStyleWritesNumbersAsFmt) {
  for (double v : {0.0, 2.0, 0.1, 1e-7, 100000.0, 1e20, -3.25, 1.0 / 3}) {
    std::string out;
    AppendJsonNumber(out, v, JsonStyle::kFmt);
    EXPECT_EQ(out, fmt::format("{}", v)) << v;
  }
  std::string s;
  AppendJsonString(s, "a\x01\x7f\xff\n", JsonStyle::kFmt);
  std::string shortest;
  AppendJsonString(shortest, "a\x01\x7f\xff\n", JsonStyle::kShortest);
  EXPECT_EQ(s, shortest);
}

TEST(JsonWriter, RawPlacesAFragmentAsAValue) {
  JsonWriter w;
  w.BeginArray();
  w.Raw(R"({"a":[1,2]})");
  w.BeginObject();
  w.Key("id");
  w.Raw("\"x\"");
  w.Key("n");
  w.Raw("7");
  w.EndObject();
  w.EndArray();
  EXPECT_EQ(w.Take(), R"([{"a":[1,2]},{"id":"x","n":7}])");
}

// A document in pieces: TakeSoFar anywhere, and TakeBeforeRaw where another
// writer's value goes (with the comma Raw would write, or none for a first
// item), join into what one writer writes, indented or not.
TEST(JsonWriter, PiecesJoinIntoTheDocumentOneWriterWrites) {
  for (const int indent : {-1, 2}) {
    auto writer = [&] {
      return indent < 0 ? JsonWriter() : JsonWriter(JsonStyle::kNlohmann, indent);
    };
    JsonWriter whole = writer();
    whole.BeginObject();
    whole.Key("first");
    whole.Raw("[1]");
    whole.Key("list");
    whole.BeginArray();
    whole.Raw("{}");
    whole.Count(2);
    whole.Raw("3");
    whole.EndArray();
    whole.EndObject();

    JsonWriter w = writer();
    std::string joined;
    w.BeginObject();
    w.Key("first");
    joined += w.TakeBeforeRaw();  // after a key: no comma
    joined += "[1]";
    w.Key("list");
    w.BeginArray();
    joined += w.TakeSoFar();
    joined += w.TakeBeforeRaw();  // a first item: no comma
    joined += "{}";
    w.Count(2);  // a comma: the value taken counts as an item
    joined += w.TakeBeforeRaw();  // after an item: a comma
    joined += "3";
    joined += w.TakeSoFar();
    w.EndArray();
    w.EndObject();
    joined += w.Take();
    EXPECT_EQ(joined, whole.Take()) << indent;
  }
}

TEST(JsonWriter, IndentedAsNlohmannDumpIndented) {
  nlohmann::ordered_json j = {{"a", 1},       {"empty", nlohmann::ordered_json::object()},
                              {"none", nlohmann::ordered_json::array()},
                              {"list", {1.5, {{"k", "v"}}, nlohmann::ordered_json::array()}},
                              {"z", nullptr}};
  for (int indent : {0, 2, 4}) {
    JsonWriter w(JsonStyle::kNlohmann, indent);
    w.BeginObject();
    w.CountField("a", 1);
    w.Key("empty");
    w.BeginObject();
    w.EndObject();
    w.Key("none");
    w.BeginArray();
    w.EndArray();
    w.Key("list");
    w.BeginArray();
    w.Number(1.5);
    w.BeginObject();
    w.StringField("k", "v");
    w.EndObject();
    w.BeginArray();
    w.EndArray();
    w.EndArray();
    w.Field("z", JsonValue());
    w.EndObject();
    EXPECT_EQ(w.Take(), j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace))
        << indent;
  }
}

}  // namespace
}  // namespace cookgraph
