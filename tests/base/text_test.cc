// The text helpers every layer shares (base/text.h): each case names the
// output it must give, byte for byte.
#include "base/text.h"

#include <gtest/gtest.h>

#include <string>

namespace cookgraph {
namespace {

TEST(EscapeHtml, TheFiveSpecialCharactersBecomeReferences) {
  EXPECT_EQ(EscapeHtml(R"(<a href="x" title='y'>&</a>)"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(EscapeHtml("plain /project1/noise1 0.250"), "plain /project1/noise1 0.250");
}

TEST(EscapeHtml, ControlsAndInvalidUtf8AreMadePrintableFirst) {
  // ESC starts a terminal sequence; 0xFF is not UTF-8; é stays as it is.
  EXPECT_EQ(EscapeHtml("a\x1b[31m<b>\xff caf\xc3\xa9"), "a?[31m&lt;b&gt;\xef\xbf\xbd caf\xc3\xa9");
}

TEST(AsciiLower, OnlyAsciiLettersChange) {
  EXPECT_EQ(AsciiLower("Content-TYPE: Application/JSON"), "content-type: application/json");
  EXPECT_EQ(AsciiLower("\xC3\x89T\xC9"), "\xC3\x89t\xC9");  // É and a Latin-1 byte stay
  EXPECT_EQ(AsciiLower(""), "");
}

TEST(TrimSpace, AsciiWhiteSpaceAtEitherEnd) {
  EXPECT_EQ(TrimSpace(" \t\r\n\v\fa b\f\v\n\r\t "), "a b");
  EXPECT_EQ(TrimSpace(" \t "), "");
  EXPECT_EQ(TrimSpace("x"), "x");
  EXPECT_EQ(TrimSpace("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");  // no-break space is not ASCII
}

TEST(ReplaceInvalidUtf8, EachBadByteBecomesOneReplacementCharacter) {
  EXPECT_EQ(ReplaceInvalidUtf8("ok \xC3\xA9"), "ok \xC3\xA9");
  EXPECT_EQ(ReplaceInvalidUtf8("a\xFF\xFE" "b"), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
  EXPECT_EQ(ReplaceInvalidUtf8("\xC3"), "\xEF\xBF\xBD");           // cut short
  EXPECT_EQ(ReplaceInvalidUtf8("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
  EXPECT_EQ(ReplaceInvalidUtf8(""), "");
}

TEST(Thousands, GroupsOfThreeDigits) {
  EXPECT_EQ(Thousands(0), "0");
  EXPECT_EQ(Thousands(999), "999");
  EXPECT_EQ(Thousands(1000), "1,000");
  EXPECT_EQ(Thousands(20000), "20,000");
  EXPECT_EQ(Thousands(1234567), "1,234,567");
  EXPECT_EQ(Thousands(18446744073709551615u), "18,446,744,073,709,551,615");
}

TEST(Printable, ControlsBecomeQuestionMarksUnlessKept) {
  EXPECT_EQ(Printable("a\tb\nc\x7f\xc2\x85"), "a?b?c??");  // C0, DEL and C1 (U+0085)
  EXPECT_EQ(Printable("a\tb\nc", "\n\t"), "a\tb\nc");
}

TEST(MarkdownText, PunctuationIsEscapedAndLinesJoined) {
  EXPECT_EQ(MarkdownText("a|b*c_d\ne"), "a\\|b\\*c\\_d?e");
}

TEST(AppendJsonString, InvalidUtf8BecomesTheReplacementCharacter) {
  std::string out;
  AppendJsonString(out, "q\"\\\x01\xff");
  EXPECT_EQ(out, "\"q\\\"\\\\\\u0001\xef\xbf\xbd\"");
}

TEST(TruncateMiddle, BothEndsOfAnIdStay) {
  // 12 columns: 6 from the start, the ellipsis, 5 from the end.
  EXPECT_EQ(TruncateMiddle("/project1/container/noise1", 12), "/proje…oise1");
  EXPECT_EQ(TruncateMiddle("short", 12), "short");
  EXPECT_EQ(DisplayWidth("/proje…oise1"), 12u);
}

// Two kernels whose names differ only in the middle (issue 36's "void
// at::native::vectori…Array<char*, 3>)") are told apart by a suffix; the same
// name twice, and names that cut differently, are left as TruncateMiddle cuts.
TEST(TruncateApart, NamesCutAlikeGetADistinguishingSuffix) {
  const std::string a = "void at::native::vectorized_elementwise_kernel<4, AddFunctor<float>, Array<char*, 3>)";
  const std::string b = "void at::native::vectorized_elementwise_kernel<4, MulFunctor<float>, Array<char*, 3>)";
  ASSERT_EQ(TruncateMiddle(a, 24), TruncateMiddle(b, 24));
  const std::vector<std::string> cut = TruncateApart({a, "short", b, a}, 24);
  EXPECT_EQ(cut[0], TruncateMiddle(a, 21) + " #1");
  EXPECT_EQ(cut[1], "short");
  EXPECT_EQ(cut[2], TruncateMiddle(b, 21) + " #2");
  EXPECT_EQ(cut[3], cut[0]);  // the same name, the same text
  EXPECT_NE(cut[0], cut[2]);
  EXPECT_EQ(DisplayWidth(cut[0]), 24u);
  EXPECT_EQ(TruncateApart({a, "other"}, 24), (std::vector<std::string>{TruncateMiddle(a, 24), "other"}));
}

TEST(Utf8, FirstInvalidByteIsFound) {
  EXPECT_EQ(FirstInvalidUtf8("caf\xc3\xa9"), std::string_view::npos);
  EXPECT_EQ(FirstInvalidUtf8("ab\xc0\xaf"), 2u);        // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("x\xed\xa0\x80"), 1u);     // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
}

TEST(Basename, LastPartOfAnId) {
  EXPECT_EQ(Basename("/project1/noise1"), "noise1");
  EXPECT_EQ(Basename("noise1"), "noise1");
  EXPECT_EQ(Basename("/project1/"), "/project1/");
  EXPECT_TRUE(EndsWith("trace.json.gz", ".gz"));
  EXPECT_FALSE(EndsWith("gz", ".gz"));
}

TEST(Clip, ThreeWaysEachMarkingTheCut) {
  const std::string e_acute = "\xC3\xA9";  // two bytes, one code point
  const std::string text = "ab" + e_acute + "cd";  // 6 bytes, 5 code points
  // Bytes: never inside a character; the '…' comes after the budget.
  EXPECT_EQ(ClipBytes(text, 6), text);
  EXPECT_EQ(ClipBytes(text, 3), "ab\xE2\x80\xA6");  // é would pass 3 bytes
  EXPECT_EQ(ClipBytes(text, 4), "ab" + e_acute + "\xE2\x80\xA6");
  EXPECT_EQ(ClipBytes("a\xFF\xFF", 2), "a\xFF\xE2\x80\xA6");  // an invalid byte is one
  // Code points.
  EXPECT_EQ(ClipCodePoints(text, 5), text);
  EXPECT_EQ(ClipCodePoints(text, 3), "ab" + e_acute + "\xE2\x80\xA6");
  EXPECT_EQ(ClipCodePoints("", 0), "");
  // The middle of a printable text, to a width.
  EXPECT_EQ(ClipMiddle("/project1/geo1/noise1", 12), TruncateMiddle("/project1/geo1/noise1", 12));
  EXPECT_EQ(ClipMiddle("a\x1b[2Jb", 40), "a?[2Jb");
}

TEST(EscapeDot, QuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(EscapeDot("plain id"), "plain id");
  EXPECT_EQ(EscapeDot("say \"hi\"\\N\r\nnext"), "say \\\"hi\\\"\\\\N\\nnext");
}

TEST(EscapeTabField, BackslashTabAndLineBreaks) {
  EXPECT_EQ(EscapeTabField("a\\b\tc\nd\re\"f"), "a\\\\b\\tc\\nd\\re\"f");
  EXPECT_EQ(EscapeTabField(std::string("nul\0kept", 8)), std::string("nul\0kept", 8));
}

}  // namespace
}  // namespace cookgraph
