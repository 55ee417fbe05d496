// Errors as values (base/error.h): the one line a user reads; and the one
// line a library opened on use (base/lazy_library.h) gives when it is missing.
#include "base/error.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "base/lazy_library.h"

namespace cookgraph {
namespace {

TEST(Error, FormatLeavesOutTheEmptyParts) {
  EXPECT_EQ((Error{.file = "net.json", .line = 3, .column = 7, .where = "nodes[2].inputs",
                   .message = "unknown node 'nosie1'; did you mean 'noise1'?"})
                .Format(),
            "net.json:3:7: nodes[2].inputs: unknown node 'nosie1'; did you mean 'noise1'?");
  EXPECT_EQ((Error{.file = "net.json", .line = 3, .message = "m"}).Format(), "net.json:3: m");
  EXPECT_EQ((Error{.file = "net.json", .column = 5, .message = "m"}).Format(), "net.json: m");
  EXPECT_EQ((Error{.where = "--top", .message = "m"}).Format(), "--top: m");
  EXPECT_EQ((Error{.message = "m"}).Format(), "m");
}

TEST(Error, FormatIsOneLineWithoutControlBytes) {
  EXPECT_EQ((Error{.file = "a\nb.json", .message = "id 'x\x1b[2J' \t\r\nend\x7f"}).Format(),
            "a b.json: id 'x\\x1b[2J' \t  end\\x7f");
}

TEST(Result, HoldsAValueOrAnError) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  Result<int> bad = Error{.file = "f", .message = "broken"};
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().Format(), "f: broken");
  Status fine;
  EXPECT_TRUE(fine.ok());
  Status failed = Error{.message = "no"};
  EXPECT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "no");
}

TEST(LazyLibrary, LoadsAFunctionThatWorksAsTheLinkedOne) {
  const LazyLibrary z("libz.so.1", "zlib1g");
  decltype(&zlibVersion) version = nullptr;
  z.Load(version, "zlibVersion");
  ASSERT_NE(version, nullptr);
  EXPECT_STREQ(version(), zlibVersion());
}

TEST(LazyLibrary, AMissingLibraryOrFunctionIsOneLineNamingIt) {
  try {
    const LazyLibrary missing("libcookgraph-none.so.9", "cookgraph-none");
    FAIL() << "a missing library loaded";
  } catch (const LibraryMissing& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("cannot load libcookgraph-none.so.9 (install Debian's cookgraph-none): ", 0),
              0u)
        << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  const LazyLibrary z("libz.so.1", "zlib1g");
  decltype(&zlibVersion) none = nullptr;
  try {
    z.Load(none, "cookgraphNoSuchFunction");
    FAIL() << "a missing function loaded";
  } catch (const LibraryMissing& e) {
    EXPECT_EQ(std::string(e.what()).rfind("libz.so.1 has no cookgraphNoSuchFunction (install Debian's zlib1g): ", 0), 0u)
        << e.what();
  }
  EXPECT_EQ(none, nullptr);
}

}  // namespace
}  // namespace cookgraph
