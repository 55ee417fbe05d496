#include "adapters/input_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace cookgraph {
namespace fs = std::filesystem;

bool HasSnapshotExtension(const std::string& path) {
  for (std::string_view ext : {".json", ".json.gz", ".yaml", ".yml"}) {
    if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
      return true;
    }
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
    std::vector<std::string> found;
    auto options = fs::directory_options::skip_permission_denied;
    for (auto it = fs::recursive_directory_iterator(arg, options, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && HasSnapshotExtension(it->path().string())) {
        found.push_back(it->path().string());
      }
    }
    if (ec) {
      list.errors.push_back(Error{.file = arg, .message = "cannot read directory: " + ec.message()});
      continue;
    }
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
