#include "advisor/llm/secret_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cookgraph {
namespace {

const std::string kKey = "sk-test-KEY-0123456789";

// Feeds `pieces` and returns what was passed on, piece by piece, then Finish().
std::vector<std::string> Filter(const std::string& secret, const std::vector<std::string>& pieces) {
  SecretFilter filter(secret);
  std::vector<std::string> out;
  for (const std::string& p : pieces) out.push_back(filter.Feed(p));
  out.push_back(filter.Finish());
  return out;
}

std::string Joined(const std::vector<std::string>& parts) {
  std::string all;
  for (const std::string& p : parts) all += p;
  return all;
}

TEST(SecretFilter, TheKeySplitAtEveryPlaceIsRedacted) {
  const std::string text = "before " + kKey + " after " + kKey;
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    for (size_t cut2 = cut; cut2 <= text.size(); cut2 += 5) {
      const std::vector<std::string> parts =
          Filter(kKey, {text.substr(0, cut), text.substr(cut, cut2 - cut), text.substr(cut2)});
      EXPECT_EQ(Joined(parts), "before [redacted] after [redacted]") << cut << " " << cut2;
      for (const std::string& p : parts) {
        // No piece passed on holds any 4-character run of the key's own part.
        EXPECT_EQ(p.find("KEY-"), std::string::npos) << cut << " " << cut2 << ": " << p;
      }
    }
  }
}

TEST(SecretFilter, AStartOfTheKeyIsHeldBackUntilItIsKnownNotToBeTheKey) {
  const std::vector<std::string> parts = Filter(kKey, {"abc sk-te", "st-KEY", "!", " done"});
  EXPECT_EQ(parts, (std::vector<std::string>{"abc ", "", "sk-test-KEY!", " done", ""}));
  // The stream ends inside what looked like the key: passed on at the end.
  EXPECT_EQ(Filter(kKey, {"x sk-test"}), (std::vector<std::string>{"x ", "sk-test"}));
}

TEST(SecretFilter, WithoutAKeyEverythingPassesAtOnce) {
  EXPECT_EQ(Filter("", {"a", "sk-", "b"}), (std::vector<std::string>{"a", "sk-", "b", ""}));
}

}  // namespace
}  // namespace cookgraph
