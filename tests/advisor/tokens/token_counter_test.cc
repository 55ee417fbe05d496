#include "advisor/tokens/token_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

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

TEST(BpeRanks, TableGrowsKeepsEveryTokenAndRefusesDuplicates) {
  BpeRanks ranks;  // no Reserve: grows from empty
  EXPECT_EQ(ranks.Rank("a"), BpeRanks::kNone);
  for (uint32_t i = 0; i < 50000; ++i) ASSERT_TRUE(ranks.Add("t" + std::to_string(i), i));
  EXPECT_EQ(ranks.size(), 50000u);
  for (uint32_t i = 0; i < 50000; ++i) ASSERT_EQ(ranks.Rank("t" + std::to_string(i)), i);
  EXPECT_FALSE(ranks.Add("t7", 99999));  // the bytes are there
  EXPECT_EQ(ranks.Rank("t7"), 7u);
  EXPECT_FALSE(ranks.Add("u", BpeRanks::kNone));
  EXPECT_EQ(ranks.Rank("t50000"), BpeRanks::kNone);
  EXPECT_EQ(ranks.Rank(std::string("t1\0", 3)), BpeRanks::kNone);
  EXPECT_TRUE(ranks.Add(std::string("t1\0", 3), 60000));  // bytes, not C strings
  EXPECT_EQ(ranks.Rank(std::string("t1\0", 3)), 60000u);
  EXPECT_EQ(ranks.size(), 50001u);
}

TEST(BpeRanks, AddAllAddsInOrderAndStopsAtTheFirstRefused) {
  BpeRanks ranks;
  // "ab" "cd" "ab": the third is refused, and nothing after it is added.
  EXPECT_EQ(ranks.AddAll("abcdabef", {{0, 2, 0}, {2, 2, 1}, {4, 2, 2}, {6, 2, 3}}), 2u);
  EXPECT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks.Rank("ab"), 0u);
  EXPECT_EQ(ranks.Rank("cd"), 1u);
  EXPECT_EQ(ranks.Rank("ef"), BpeRanks::kNone);
  // Onto a table that has tokens: appended, and Add after it still works.
  EXPECT_EQ(ranks.AddAll("efgh", {{0, 2, 2}, {2, 2, 3}}), 2u);
  EXPECT_TRUE(ranks.Add("ij", 4));
  EXPECT_EQ(ranks.Rank("ef"), 2u);
  EXPECT_EQ(ranks.Rank("gh"), 3u);
  EXPECT_EQ(ranks.Rank("ij"), 4u);
  EXPECT_EQ(ranks.Rank("cd"), 1u);
  EXPECT_EQ(ranks.AddAll("x", {{0, 1, BpeRanks::kNone}}), 0u);
  EXPECT_EQ(ranks.size(), 5u);
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

// Sets (nullopt: unsets) an environment variable for the life of the
// object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::optional<std::string>& value) : name_(name) {
    if (const char* old = std::getenv(name)) saved_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (saved_) {
      setenv(name_, saved_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

// A fresh, empty folder under the temporary one, removed at the end.
class Folder {
 public:
  explicit Folder(const std::string& name) : path_(std::filesystem::temp_directory_path() / name) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~Folder() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

TEST(FindRankFile, ExplicitPathWinsEvenIfMissing) {
  std::optional<RankFile> found = FindRankFile(Encoding::kO200k, "/x/ranks");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, "/x/ranks");
  EXPECT_EQ(found->origin, "");
}

// The path FindRankFile found; "" for none.
std::string Found(Encoding encoding) {
  std::optional<RankFile> found = FindRankFile(encoding, "");
  return found ? found->path : "";
}

TEST(FindRankFile, FindsTiktokensHashedNameAndThePlainName) {
  EXPECT_EQ(Sha1Hex(RankFileUrl(Encoding::kCl100k)), "9b5ad71b2ce5302211f9c61530b329a4922fc6a4");
  EXPECT_EQ(Sha1Hex(RankFileUrl(Encoding::kO200k)), "fb374d419588a4632f3f557e76b4b70aebbca790");
  Folder cache("cookgraph_token_cache_test");
  Folder data("cookgraph_token_data_test");  // no files installed with cookgraph
  std::ofstream(cache / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4") << "x";
  std::ofstream(cache / "o200k_base.tiktoken") << "x";
  ScopedEnv data_dir("COOKGRAPH_DATA_DIR", data.path());
  {
    ScopedEnv cache_dir("TIKTOKEN_CACHE_DIR", cache.path());
    EXPECT_EQ(Found(Encoding::kCl100k),
              (cache / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").string());
    EXPECT_EQ(Found(Encoding::kO200k), (cache / "o200k_base.tiktoken").string());
    EXPECT_EQ(FindRankFile(Encoding::kO200k, "")->origin, "");  // named by its path
  }
  // tiktoken: an empty cache folder turns the cache off.
  ScopedEnv cache_dir("TIKTOKEN_CACHE_DIR", "");
  EXPECT_EQ(FindRankFile(Encoding::kO200k, ""), std::nullopt);
}

TEST(FindRankFile, TheDataFolderComesAfterTheCacheAndAloneWhenChosen) {
  Folder cache("cookgraph_token_cache_order_test");
  Folder data("cookgraph_token_data_order_test");
  std::filesystem::create_directories(data / "tiktoken");
  std::ofstream(data / "tiktoken" / "o200k_base.tiktoken") << "x";
  ScopedEnv data_dir("COOKGRAPH_DATA_DIR", data.path());
  ScopedEnv cache_dir("TIKTOKEN_CACHE_DIR", cache.path());
  EXPECT_EQ(BundledRankFolders(), std::vector<std::string>{(data / "tiktoken").string()});
  std::optional<RankFile> found = FindRankFile(Encoding::kO200k, "");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->path, (data / "tiktoken" / "o200k_base.tiktoken").string());
  EXPECT_EQ(found->origin, "");  // a folder the user chose: named by its path
  // $COOKGRAPH_DATA_DIR alone: the build's cl100k_base is not looked for.
  EXPECT_EQ(FindRankFile(Encoding::kCl100k, ""), std::nullopt);
  // tiktoken's cache first.
  std::ofstream(cache / "o200k_base.tiktoken") << "x";
  EXPECT_EQ(Found(Encoding::kO200k), (cache / "o200k_base.tiktoken").string());
  // The explicit path before both.
  EXPECT_EQ(FindRankFile(Encoding::kO200k, "/x/o200k_base.tiktoken")->path,
            "/x/o200k_base.tiktoken");
}

TEST(FindRankFile, FindsTheFilesInstalledWithCookgraph) {
  // The build writes them to <build>/share/cookgraph/tiktoken: found beside
  // the executable (this test's, <build>/tests/advisor_tests) and compiled in.
  const std::filesystem::path build =
      std::filesystem::path(COOKGRAPH_BINARY).parent_path().parent_path();
  const std::filesystem::path bundled = build / "share" / "cookgraph" / "tiktoken";
  Folder cache("cookgraph_token_cache_bundled_test");
  ScopedEnv cache_dir("TIKTOKEN_CACHE_DIR", cache.path());
  ScopedEnv data_dir("COOKGRAPH_DATA_DIR", std::nullopt);
  const std::vector<std::string> folders = BundledRankFolders();
  ASSERT_GE(folders.size(), 2u);
  EXPECT_EQ(std::filesystem::path(folders.front()).lexically_normal(), bundled);
  for (const std::string& folder : folders) {
    EXPECT_TRUE(folder.ends_with("/share/cookgraph/tiktoken")) << folder;
  }
  if (!std::filesystem::exists(bundled / "o200k_base.tiktoken")) {
    GTEST_SKIP() << "no rank files in " << bundled << " (built with -DCOOKGRAPH_BUNDLE_RANKS=OFF?)";
  }
  for (Encoding encoding : {Encoding::kO200k, Encoding::kCl100k}) {
    std::optional<RankFile> found = FindRankFile(encoding, "");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->path,
              (bundled / (std::string(EncodingName(encoding)) + ".tiktoken")).string());
    EXPECT_EQ(found->origin, "installed with cookgraph");
  }
}

}  // namespace
}  // namespace cookgraph
