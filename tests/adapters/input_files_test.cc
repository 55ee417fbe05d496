#include "adapters/input_files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cookgraph {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Names(const InputList& list) {
  std::vector<std::string> names;
  for (const Input& input : list.inputs) names.push_back(input.name());
  return names;
}

TEST(InputFiles, DirectoriesAreSearchedRecursivelyAndSorted) {
  char pattern[] = "/tmp/cookgraph-inputs-XXXXXX";
  std::string root = mkdtemp(pattern);
  fs::create_directories(root + "/b/deep");
  for (const char* name : {"/z.json", "/b/deep/a.yaml", "/b/c.json.gz", "/b/notes.txt", "/b/x.yml",
                           "/b/y.yaml.gz", "/b/notes.txt.gz"}) {
    std::ofstream(root + name) << "{}";
  }
  InputList list = ExpandInputs({root, root + "/z.json"});
  EXPECT_TRUE(list.errors.empty());
  std::vector<std::string> expected = {root + "/b/c.json.gz", root + "/b/deep/a.yaml",
                                       root + "/b/x.yml", root + "/b/y.yaml.gz", root + "/z.json"};
  EXPECT_EQ(Names(list), expected);
  fs::remove_all(root);
}

TEST(InputFiles, MissingPathAndDirectoryWithoutSnapshotsAreErrors) {
  char pattern[] = "/tmp/cookgraph-inputs-XXXXXX";
  std::string root = mkdtemp(pattern);
  std::ofstream(root + "/readme.txt") << "hi";
  InputList list = ExpandInputs({root, "/nonexistent.json", "-"});
  ASSERT_EQ(list.errors.size(), 2u);
  EXPECT_EQ(list.errors[0].Format(),
            root +
                ": directory holds nothing cookgraph reads (.json, .yaml, .yml files, plain "
                "or .gz, or a GStreamer .dot dump)");
  EXPECT_EQ(list.errors[1].Format(), "/nonexistent.json: no such file or directory");
  EXPECT_EQ(Names(list), std::vector<std::string>{"-"});
  fs::remove_all(root);
}

}  // namespace
}  // namespace cookgraph
