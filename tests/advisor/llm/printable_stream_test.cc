#include "advisor/llm/printable_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cookgraph {
namespace {

// Feeds `pieces`, then Finish(); returns everything passed on, piece by piece.
std::vector<std::string> Stream(const std::vector<std::string>& pieces) {
  PrintableStream stream;
  std::vector<std::string> out;
  for (const std::string& p : pieces) out.push_back(stream.Feed(p));
  out.push_back(stream.Finish());
  return out;
}

TEST(PrintableStream, ControlsBecomeQuestionMarksLineBreaksAndTabsStay) {
  const std::string nul(1, '\0');
  EXPECT_EQ(Stream({"a\x1b]52;c;ZXZpbA==\x07 b\n\tc" + nul + "\r\x7f"}),
            (std::vector<std::string>{"a?]52;c;ZXZpbA==? b\n\tc???", ""}));
}

TEST(PrintableStream, AControlOrACharacterSplitBetweenPiecesIsSeenWhole) {
  // C1 CSI (U+009B) split after its lead byte: held back, then replaced.
  EXPECT_EQ(Stream({"x\xc2",
                    "\x9b"
                    "2J"}),
            (std::vector<std::string>{"x", "?2J", ""}));
  // 'é', '€' and an emoji split at every byte: passed on whole, unchanged.
  const std::string text = "é€😀";
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    std::string all;
    for (const std::string& p : Stream({text.substr(0, cut), text.substr(cut)})) all += p;
    EXPECT_EQ(all, text) << cut;
  }
  EXPECT_EQ(Stream({"\xf0\x9f", "\x98", "\x80!"}), (std::vector<std::string>{"", "", "😀!", ""}));
}

TEST(PrintableStream, AnUnfinishedCharacterAtTheEndAndInvalidBytesAreReplaced) {
  // One U+FFFD per byte that is not part of a valid character, as Printable().
  EXPECT_EQ(Stream({"ok \xe2\x82"}), (std::vector<std::string>{"ok ", "\xEF\xBF\xBD\xEF\xBF\xBD"}));
  EXPECT_EQ(Stream({"\xff\xc0\x80 z"}),
            (std::vector<std::string>{"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD z", ""}));
}

}  // namespace
}  // namespace cookgraph
