#include "adapters/input_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <system_error>

#include "adapters/byte_source.h"
#include "adapters/chrome/chrome_trace.h"
#include "adapters/chrome/job.h"
#include "adapters/gstreamer/gstreamer.h"
#include "base/text.h"

namespace cookgraph {
namespace fs = std::filesystem;
namespace {

enum class GstKind : uint8_t { kNone, kDump, kLog };

// Whether the file at `path` is a GStreamer dump or log, by its first bytes.
GstKind GstreamerKind(const std::string& path) {
  auto opened = ByteSource::Open(path);
  if (!opened) return GstKind::kNone;
  const std::string_view head = (*opened)->Head();
  if (LooksLikeGstreamerDot(head)) return GstKind::kDump;
  if (LooksLikeGstreamerLog(head)) return GstKind::kLog;
  return GstKind::kNone;
}

// The rank of the Chrome trace at `path`, when its first bytes say it is one
// rank of a distributed job.
std::optional<RankInfo> TraceRank(const std::string& path) {
  // Every .json of a batch comes here: a plain file's first 64 KiB (the
  // profiler writes distributedInfo before the events) are read directly, not
  // through a ByteSource's 256 KiB buffer.
  if (EndsWith(path, ".json")) {
    std::ifstream in(path, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    if (!LooksLikeChromeTrace(head)) return std::nullopt;
    return FindDistributedInfo(head);
  }
  if (!EndsWith(path, ".json.gz")) return std::nullopt;
  auto opened = ByteSource::Open(path);
  if (!opened) return std::nullopt;
  const std::string_view head = (*opened)->Head();
  if (!LooksLikeChromeTrace(head)) return std::nullopt;
  return FindDistributedInfo(head);
}

}  // namespace

std::vector<std::vector<std::string>> GroupJobs(const std::vector<std::string>& files,
                                                std::vector<Error>* not_jobs) {
  // By folder and world size; a group whose ranks repeat is no job.
  std::map<std::pair<std::string, int64_t>, std::vector<std::pair<int64_t, std::string>>> groups;
  for (const std::string& file : files) {
    if (auto rank = TraceRank(file)) {
      groups[{fs::path(file).parent_path().string(), rank->world_size}].emplace_back(rank->rank,
                                                                                     file);
    }
  }
  std::vector<std::vector<std::string>> jobs;
  for (auto& [key, members] : groups) {
    if (members.size() < 2) continue;
    std::sort(members.begin(), members.end());
    size_t repeat = 0;  // the first member whose rank the one before it has
    for (size_t i = 1; i < members.size() && repeat == 0; ++i) {
      if (members[i].first == members[i - 1].first) repeat = i;
    }
    if (repeat != 0) {
      if (not_jobs != nullptr) {
        const auto& [folder, world_size] = key;
        not_jobs->push_back(Error{
            .file = folder.empty() ? "." : folder,
            .message = fmt::format(
                "{} and {} both say they are rank {} of {}: these {} traces are not read as one "
                "job; each is scored on its own",
                members[repeat - 1].second, members[repeat].second, members[repeat].first,
                world_size, members.size())});
      }
      continue;
    }
    std::vector<std::string> paths;
    for (auto& [rank, file] : members) paths.push_back(file);
    std::sort(paths.begin(), paths.end());
    jobs.push_back(std::move(paths));
  }
  return jobs;
}

std::string Input::name() const {
  std::string out;
  for (const std::string& p : paths) out += (out.empty() ? "" : " + ") + p;
  return out;
}

bool HasSnapshotExtension(const std::string& path) {
  for (std::string_view ext : {".json", ".json.gz", ".yaml", ".yml", ".yaml.gz", ".yml.gz"}) {
    if (EndsWith(path, ext)) return true;
  }
  return false;
}

bool HoldsGstreamerDump(const std::string& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type;
    const std::string path = it->path().string();
    if (it->is_regular_file(type) && (EndsWith(path, ".dot") || EndsWith(path, ".dot.gz")) &&
        GstreamerKind(path) == GstKind::kDump) {
      return true;
    }
  }
  return false;
}

InputList ExpandInputs(const std::vector<std::string>& args) {
  InputList list;
  std::map<std::string, Input> gst_files;  // by folder: dumps and logs given as files
  for (const std::string& arg : args) {
    if (arg == "-") {
      list.inputs.push_back({{arg}});
      continue;
    }
    std::error_code ec;
    fs::file_status status = fs::status(arg, ec);
    if (ec || !fs::exists(status)) {
      list.errors.push_back(Error{.file = arg, .message = "no such file or directory"});
      continue;
    }
    if (!fs::is_directory(status)) {
      // A pipe (`<(zcat trace.json.gz)`, a FIFO) is read once: it is never
      // opened to look for a GStreamer file first, which would use up its data.
      if (fs::is_regular_file(status) && !HasSnapshotExtension(arg) &&
          GstreamerKind(arg) != GstKind::kNone) {
        gst_files[fs::path(arg).parent_path().string()].paths.push_back(arg);
      } else {
        list.inputs.push_back({{arg}});
      }
      continue;
    }
    // Walks the tree with an explicit stack so that a folder that cannot be
    // read is an error naming it, not a silent gap in a batch. Links to folders
    // are not followed (as find(1) does not), so link cycles cannot loop. A
    // folder holding a GStreamer dump is one recording: not searched further.
    // An entry named as an input (or a dump) that is not a regular file, a
    // dangling link say, is an error naming it, never passed over in silence;
    // a FIFO is never opened (reading it could block). A link to a folder,
    // not followed, is a warning naming it.
    std::vector<Input> found;
    std::vector<Error> passed_over, links;  // sorted by path below, as `found` is
    std::vector<fs::path> folders = {arg};
    bool reported = false;  // an error names what was not read
    while (!folders.empty()) {
      fs::path folder = std::move(folders.back());
      folders.pop_back();
      if (HoldsGstreamerDump(folder.string())) {
        found.push_back({{folder.string()}});
        continue;
      }
      std::error_code walk;
      for (fs::directory_iterator it(folder, walk), end; !walk && it != end; it.increment(walk)) {
        std::error_code type;
        fs::file_status link = it->symlink_status(type);
        const std::string path = it->path().string();
        if (fs::is_directory(link)) {
          folders.push_back(it->path());
          continue;
        }
        const bool input = HasSnapshotExtension(path);
        const bool named = input || EndsWith(path, ".dot") || EndsWith(path, ".dot.gz");
        if (!named && !fs::is_symlink(link)) continue;  // not an input, by its name
        const std::string why = NotAFileReason(path);
        if (why == "a folder") {
          links.push_back(Error{
              .file = path,
              .message = "passed over: a symbolic link to a folder, not followed (name the "
                         "folder itself to read it)"});
        } else if (named && !why.empty()) {
          passed_over.push_back(Error{.file = path, .message = "passed over: " + why});
          reported = true;
        } else if (input && why.empty()) {
          found.push_back({{path}});
        }
      }
      if (walk) {
        list.errors.push_back(
            Error{.file = folder.string(), .message = "cannot read directory: " + walk.message()});
        reported = true;
      }
    }
    for (std::vector<Error>* errors : {&passed_over, &links}) {
      std::sort(errors->begin(), errors->end(),
                [](const Error& a, const Error& b) { return a.file < b.file; });
    }
    list.errors.insert(list.errors.end(), passed_over.begin(), passed_over.end());
    list.warnings.insert(list.warnings.end(), links.begin(), links.end());
    if (reported && found.empty()) continue;
    if (found.empty()) {
      list.errors.push_back(Error{
          .file = arg,
          .message = "directory holds nothing cookgraph reads (.json, .yaml, .yml files, plain "
                     "or .gz, or a GStreamer .dot dump)"});
      continue;
    }
    list.inputs.insert(list.inputs.end(), found.begin(), found.end());
  }
  for (auto& [folder, input] : gst_files) {
    std::sort(input.paths.begin(), input.paths.end());
    list.inputs.push_back(std::move(input));
  }
  // The ranks of one job are one input.
  std::vector<std::string> single;
  for (const Input& input : list.inputs) {
    if (input.paths.size() == 1 && input.paths[0] != "-") single.push_back(input.paths[0]);
  }
  const std::vector<std::vector<std::string>> jobs = GroupJobs(single, &list.warnings);
  if (!jobs.empty()) {
    std::set<std::string> in_job;
    for (const auto& job : jobs) in_job.insert(job.begin(), job.end());
    std::erase_if(list.inputs, [&](const Input& input) {
      return input.paths.size() == 1 && in_job.count(input.paths[0]) > 0;
    });
    for (const auto& job : jobs) list.inputs.push_back(Input{job});
  }
  // Sorted, so that shards and output order do not depend on the order of the
  // arguments or of the file system.
  std::sort(list.inputs.begin(), list.inputs.end());
  list.inputs.erase(std::unique(list.inputs.begin(), list.inputs.end()), list.inputs.end());
  return list;
}

}  // namespace cookgraph
