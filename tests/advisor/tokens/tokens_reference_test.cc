// Token counts against js-tiktoken, over prompt-like text from every example.
// The ctest test tiktoken_reference_counts runs these after its set-up
// (tests/tools/token_corpus.sh) and names the set-up's folder in
// COOKGRAPH_TOKEN_REFERENCE; run alone, without it, they are skipped.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "advisor/tokens/token_counter.h"

namespace cookgraph {
namespace {

constexpr Encoding kEncodings[] = {Encoding::kO200k, Encoding::kCl100k};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class TokenReference : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* dir = std::getenv("COOKGRAPH_TOKEN_REFERENCE");
    if (dir == nullptr) {
      GTEST_SKIP() << "COOKGRAPH_TOKEN_REFERENCE is not set: run the ctest test "
                      "tiktoken_reference_counts, which sets it after its set-up";
    }
    work_ = dir;
    std::ifstream in(work_ + "/counts.json");
    ASSERT_TRUE(in) << "no " << work_ << "/counts.json: did the set-up run?";
    counts_ = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(counts_.is_object()) << work_ << "/counts.json is not a JSON object";
    ASSERT_GE(counts_.size(), 50u) << "the corpus is smaller than the set-up writes";
  }

  std::string work_;
  nlohmann::json counts_;
};

TEST_F(TokenReference, ExactCountsEqualJsTiktokenOnEveryCorpusFile) {
  for (Encoding encoding : kEncodings) {
    const std::string name(EncodingName(encoding));
    auto counter = LoadTiktoken(work_ + "/ranks/" + name + ".tiktoken", encoding);
    ASSERT_TRUE(counter.ok()) << counter.error().Format();
    size_t files = 0, tokens = 0;
    for (const auto& [file, expected] : counts_.items()) {
      const size_t count = (*counter)->Count(ReadFile(file));
      EXPECT_EQ(count, expected.at(name).get<size_t>()) << name << " on " << file;
      ++files;
      tokens += count;
    }
    std::cout << name << ": " << files << " files, " << tokens
              << " tokens, compared with js-tiktoken's\n";
  }
}

TEST_F(TokenReference, EstimateIsNeverBelowEitherExactCount) {
  auto estimator = MakeEstimator();
  double worst = 0, total_estimate = 0, total_exact = 0;
  std::string worst_file;
  for (const auto& [file, expected] : counts_.items()) {
    const std::string text = ReadFile(file);
    const size_t estimate = estimator->Count(text);
    size_t exact = 0;
    for (Encoding encoding : kEncodings) {
      const size_t count = expected.at(std::string(EncodingName(encoding))).get<size_t>();
      EXPECT_GE(estimate, count) << EncodingName(encoding) << " on " << file;
      exact = std::max(exact, count);
    }
    const double ratio = exact == 0 ? 1.0 : static_cast<double>(estimate) / exact;
    // A few tokens' rounding and margin dominate tiny files; runs of one
    // character repeated hundreds of times (long_runs.txt, about 2x) are
    // there to check the merge loops, not what a prompt looks like.
    const bool prompt_like = exact >= 100 && file.find("long_runs") == std::string::npos;
    if (prompt_like && ratio > worst) {
      worst = ratio;
      worst_file = file;
    }
    total_estimate += static_cast<double>(estimate);
    total_exact += static_cast<double>(exact);
    if (std::getenv("COOKGRAPH_TOKEN_VERBOSE") != nullptr) {
      std::cout << file << ": estimate " << estimate << ", exact " << exact << ", ratio " << ratio
                << "\n";
    }
  }
  std::cout << "estimate / larger exact count: worst " << worst
            << " on files of 100 tokens or more (" << worst_file << "), over the corpus "
            << total_estimate / total_exact << "\n";
  EXPECT_LT(worst, 1.6) << "the estimate is far above the exact count on " << worst_file;
}

TEST_F(TokenReference, HelloWorldIsTheReferenceVector) {
  // cl100k_base encodes "hello world" as [15339, 1917]: "hello" and " world".
  const std::string ranks = ReadFile(work_ + "/ranks/cl100k_base.tiktoken");
  EXPECT_NE(ranks.find("\naGVsbG8= 15339\n"), std::string::npos);
  EXPECT_NE(ranks.find("\nIHdvcmxk 1917\n"), std::string::npos);
  auto counter = LoadTiktoken(work_ + "/ranks/cl100k_base.tiktoken", Encoding::kCl100k);
  ASSERT_TRUE(counter.ok()) << counter.error().Format();
  EXPECT_EQ((*counter)->Count("hello world"), 2u);
  EXPECT_TRUE((*counter)->exact());
  EXPECT_EQ((*counter)->Describe(), "cl100k_base from " + work_ + "/ranks/cl100k_base.tiktoken");
}

TEST_F(TokenReference, EmptyTextIsNoTokens) {
  for (Encoding encoding : kEncodings) {
    const std::string name(EncodingName(encoding));
    auto counter = LoadTiktoken(work_ + "/ranks/" + name + ".tiktoken", encoding);
    ASSERT_TRUE(counter.ok()) << counter.error().Format();
    EXPECT_EQ((*counter)->Count(""), 0u);
  }
}

// Bytes that are not UTF-8 match no pre-tokenizer piece; each run of them is
// byte-pair encoded as a piece of its own, so they still count.
TEST_F(TokenReference, InvalidUtf8BytesAreCountedAsPiecesOfTheirOwn) {
  for (Encoding encoding : kEncodings) {
    const std::string name(EncodingName(encoding));
    auto counter = LoadTiktoken(work_ + "/ranks/" + name + ".tiktoken", encoding);
    ASSERT_TRUE(counter.ok()) << counter.error().Format();
    EXPECT_EQ((*counter)->Count("\xff"), 1u) << name;
    EXPECT_EQ((*counter)->Count("a\xff"
                                "b"),
              3u)
        << name;
    EXPECT_EQ((*counter)->Count("hello world"), (*counter)->Count("hello world"));
    EXPECT_GE((*counter)->Count("caf\xc3 \xe2\x82 \xf0\x9f\x98"), 4u) << name;  // cut sequences
    EXPECT_GE(MakeEstimator()->Count("a\xff"
                                     "b"),
              (*counter)->Count("a\xff"
                                "b"));
  }
}

// A megabyte of one character is one pre-tokenizer piece (or many short
// ones); the merge loop must not be quadratic. Times are printed, not
// asserted (bench/ is for timing); ctest's timeout catches a blow-up.
TEST_F(TokenReference, MegabyteRunsOfOneCharacterCount) {
  for (Encoding encoding : kEncodings) {
    const std::string name(EncodingName(encoding));
    auto counter = LoadTiktoken(work_ + "/ranks/" + name + ".tiktoken", encoding);
    ASSERT_TRUE(counter.ok()) << counter.error().Format();
    for (char c : std::string("a 7.\n")) {
      const std::string text(1 << 20, c);
      const auto start = std::chrono::steady_clock::now();
      const size_t count = (*counter)->Count(text);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      EXPECT_GT(count, 0u);
      EXPECT_LE(count, text.size());
      EXPECT_GE(MakeEstimator()->Count(text), count) << name << " on 1 MiB of " << int{c};
      std::cout << name << ": 1 MiB of character " << int{c} << ": " << count << " tokens in "
                << took.count() << " s\n";
    }
  }
}

}  // namespace
}  // namespace cookgraph
