#include "adapters/input_files.h"

#include "adapters/text.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace cookgraph {
namespace fs = std::filesystem;

bool HasSnapshotExtension(const std::string& path) {
  for (std::string_view ext : {".json", ".json.gz", ".yaml", ".yml"}) {
    if (EndsWith(path, ext)) return true;
  }
  return false;
}

InputList ExpandInputs(const std::vector<std::string>& args) {
  InputList list;
  for (const std::string& arg : args) {
    if (arg == "-") {
      list.files.push_back(arg);
      continue;
    }
    std::error_code ec;
    fs::file_status status = fs::status(arg, ec);
    if (ec || !fs::exists(status)) {
      list.errors.push_back(Error{.file = arg, .message = "no such file or directory"});
      continue;
    }
    if (!fs::is_directory(status)) {
      list.files.push_back(arg);
      continue;
    }
    // Walks the tree with an explicit stack so that a folder that cannot be
    // read is an error naming it, not a silent gap in a batch. Links to folders
    // are not followed (as find(1) does not), so link cycles cannot loop.
    std::vector<std::string> found;
    std::vector<fs::path> folders = {arg};
    bool unreadable = false;
    while (!folders.empty()) {
      fs::path folder = std::move(folders.back());
      folders.pop_back();
      std::error_code walk;
      for (fs::directory_iterator it(folder, walk), end; !walk && it != end; it.increment(walk)) {
        std::error_code type;
        fs::file_status link = it->symlink_status(type);
        if (fs::is_directory(link)) {
          folders.push_back(it->path());
        } else if (it->is_regular_file(type) && HasSnapshotExtension(it->path().string())) {
          found.push_back(it->path().string());
        }
      }
      if (walk) {
        list.errors.push_back(
            Error{.file = folder.string(), .message = "cannot read directory: " + walk.message()});
        unreadable = true;
      }
    }
    if (unreadable && found.empty()) continue;
    if (found.empty()) {
      list.errors.push_back(Error{
          .file = arg,
          .message = "directory holds no snapshot files (.json, .json.gz, .yaml, .yml)"});
      continue;
    }
    list.files.insert(list.files.end(), found.begin(), found.end());
  }
  // Sorted, so that shards and output order do not depend on the order of the
  // arguments or of the file system.
  std::sort(list.files.begin(), list.files.end());
  list.files.erase(std::unique(list.files.begin(), list.files.end()), list.files.end());
  return list;
}

}  // namespace cookgraph
