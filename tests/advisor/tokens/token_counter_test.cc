#include "advisor/tokens/token_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "advisor/tokens/bpe.h"
#include "advisor/tokens/token_sha1.h"

namespace cookgraph {
namespace {

TEST(Encoding, NamesRoundTrip) {
  EXPECT_EQ(EncodingName(Encoding::kO200k), "o200k_base");
  EXPECT_EQ(EncodingName(Encoding::kCl100k), "cl100k_base");
  EXPECT_EQ(ParseEncoding("o200k_base"), Encoding::kO200k);
  EXPECT_EQ(ParseEncoding("cl100k_base"), Encoding::kCl100k);
  EXPECT_EQ(ParseEncoding("p50k_base"), std::nullopt);
}

TEST(Sha1, MatchesFipsVectors) {
  EXPECT_EQ(Sha1Hex(""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(Sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Sha1Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(Sha1Hex(std::string(1000000, 'a')), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
}

TEST(ParseTiktoken, BadBase64NamesFileLineAndColumn) {
  auto r = ParseTiktoken("IQ== 0\nI!== 1\n", "ranks.tiktoken", Encoding::kCl100k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(),
            "ranks.tiktoken:2:2: the token is not base64: is this a .tiktoken rank file?");
}

TEST(ParseTiktoken, MissingRankIsAnError) {
  auto r = ParseTiktoken("IQ== 0\nIg==\n", "ranks.tiktoken", Encoding::kO200k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(), "ranks.tiktoken:2:5: expected 'base64-token rank', found no rank");
}

TEST(ParseTiktoken, RankThatIsNotANumberIsAnError) {
  auto r = ParseTiktoken("IQ== zero\n", "ranks.tiktoken", Encoding::kO200k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(),
            "ranks.tiktoken:1:6: the rank 'zero' is not a number below 16777216");
}

TEST(ParseTiktoken, DuplicateRankNamesTheFirstLine) {
  auto r = ParseTiktoken("IQ== 0\n\nIg== 0\n", "ranks.tiktoken", Encoding::kO200k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(), "ranks.tiktoken:3:6: rank 0 is given twice (first on line 1)");
}

TEST(ParseTiktoken, DuplicateTokenIsAnError) {
  auto r = ParseTiktoken("IQ== 0\r\nIQ== 1\r\n", "ranks.tiktoken", Encoding::kO200k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(), "ranks.tiktoken:2:1: the token 'IQ==' is given twice");
}

TEST(ParseTiktoken, TableOfTheWrongSizeIsAnotherEncodings) {
  auto r = ParseTiktoken("IQ== 0\nIg== 1\n", "ranks.tiktoken", Encoding::kCl100k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(),
            "ranks.tiktoken: has 2 tokens where cl100k_base has 100256: is it the rank file of "
            "another encoding, or cut short?");
}

TEST(LoadTiktoken, MissingFileSaysWhatToDo) {
  auto r = LoadTiktoken("/nonexistent/o200k_base.tiktoken", Encoding::kO200k);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().Format(),
            "/nonexistent/o200k_base.tiktoken: cannot read the rank file; give another with "
            "--tokenizer, or leave it out to estimate token counts");
}

// A small table: every byte, then merges of "a" runs and "ab".
BpeRanks SmallTable() {
  BpeRanks ranks;
  for (int b = 0; b < 256; ++b) ranks.Add(std::string(1, static_cast<char>(b)), b);
  ranks.Add("aa", 256);
  ranks.Add("ab", 257);
  ranks.Add("aaaa", 258);
  ranks.Add("aab", 259);
  ranks.Add("ba", 260);
  return ranks;
}

TEST(BpeRanks, MergesLowestRankFirst) {
  BpeRanks ranks = SmallTable();
  EXPECT_EQ(ranks.CountPiece(""), 0u);
  EXPECT_EQ(ranks.CountPiece("a"), 1u);
  EXPECT_EQ(ranks.CountPiece("aaaa"), 1u);
  EXPECT_EQ(ranks.CountPiece("aaab"), 2u);  // "aa" "ab"; "aab" needs "aa"+"b", never formed
  EXPECT_EQ(ranks.CountPiece("xyz"), 3u);
}

TEST(BpeRanks, ScanAndHeapAgreeOnRandomPieces) {
  BpeRanks ranks = SmallTable();
  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string piece(1 + rng() % 40, 'a');
    for (char& c : piece) c = "aab"[rng() % 3];
    ASSERT_EQ(ranks.CountPieceByScan(piece), ranks.CountPieceByHeap(piece)) << piece;
  }
}

TEST(Estimator, EmptyTextIsNoTokens) {
  auto estimator = MakeEstimator();
  EXPECT_FALSE(estimator->exact());
  EXPECT_EQ(estimator->Count(""), 0u);
  EXPECT_GE(estimator->Count("hello world"), 2u);
}

TEST(Estimator, InvalidUtf8IsCountedNotRejected) {
  auto estimator = MakeEstimator();
  EXPECT_GE(estimator->Count("\xff\xfe\xc3"), 3u);
}

TEST(CountChatTokens, AddsFramingPerMessageAndForTheReply) {
  auto estimator = MakeEstimator();
  const size_t system = estimator->Count("system") + estimator->Count("You profile.");
  const size_t user = estimator->Count("user") + estimator->Count("Why slow?");
  EXPECT_EQ(CountChatTokens(*estimator, {{"system", "You profile."}, {"user", "Why slow?"}}),
            system + user + 3 + 3 + 3);
  EXPECT_EQ(CountChatTokens(*estimator, {}), 3u);
}

TEST(FindRankFile, ExplicitPathWinsEvenIfMissing) {
  EXPECT_EQ(FindRankFile(Encoding::kO200k, "/x/ranks"), "/x/ranks");
}

TEST(FindRankFile, FindsTiktokensHashedNameAndThePlainName) {
  EXPECT_EQ(Sha1Hex(RankFileUrl(Encoding::kCl100k)), "9b5ad71b2ce5302211f9c61530b329a4922fc6a4");
  EXPECT_EQ(Sha1Hex(RankFileUrl(Encoding::kO200k)), "fb374d419588a4632f3f557e76b4b70aebbca790");
  auto dir = std::filesystem::temp_directory_path() / "cookgraph_token_cache_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4") << "x";
  std::ofstream(dir / "o200k_base.tiktoken") << "x";
  const char* saved = std::getenv("TIKTOKEN_CACHE_DIR");
  std::string saved_value = saved ? saved : "";
  setenv("TIKTOKEN_CACHE_DIR", dir.c_str(), 1);
  EXPECT_EQ(FindRankFile(Encoding::kCl100k, ""),
            (dir / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").string());
  EXPECT_EQ(FindRankFile(Encoding::kO200k, ""), (dir / "o200k_base.tiktoken").string());
  setenv("TIKTOKEN_CACHE_DIR", "", 1);  // tiktoken: an empty cache folder turns the cache off
  EXPECT_EQ(FindRankFile(Encoding::kO200k, ""), std::nullopt);
  if (saved) {
    setenv("TIKTOKEN_CACHE_DIR", saved_value.c_str(), 1);
  } else {
    unsetenv("TIKTOKEN_CACHE_DIR");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cookgraph
