#ifndef COOKGRAPH_TESTS_TEMP_DIR_H_
#define COOKGRAPH_TESTS_TEMP_DIR_H_

// A fresh folder under /tmp for one test, removed with everything in it.

#include <stdlib.h>

#include <filesystem>
#include <string>

namespace cookgraph::testing {

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/cookgraph-test-XXXXXX";
    path_ = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The path of `name` inside the folder.
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_TEMP_DIR_H_
