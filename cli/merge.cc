// `cookgraph merge PART... [-o OUT]`: the JSON or CSV parts of a sharded
// `score` put back together into exactly what one unsharded run writes
// (docs/commands.md#shards-and-merging). Parts are checked before anything is
// written: every shard of one split, once each, of one input list, made with
// the same options, none cut short; the output is written atomically.

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "cli/command.h"
#include "cli/shard.h"
#include "writers/atomic_file.h"

namespace cookgraph::cli {
namespace {

struct MergeArgs {
  std::vector<std::string> parts;
  std::string output = "-";
};

enum class Kind : uint8_t { kCsv, kJson };

struct Part {
  std::string path;
  Kind kind = Kind::kCsv;
  std::string head;  // JSON: the document's opening without the shard record
  ShardRecord record;
};

constexpr std::string_view kJsonStart = "{\"cookgraph\":1,\"shard\":";
constexpr std::string_view kScoreArray = ",\"snapshots\":[";
constexpr std::string_view kSummaryArray = ",\"summary\":[";

Error PartError(const std::string& path, size_t line, std::string message) {
  return Error{.file = path, .line = static_cast<int64_t>(line), .message = std::move(message)};
}

Error CannotRead(const std::string& path, int error_number) {
  return Error{.file = path, .message = std::string("cannot open: ") + std::strerror(error_number)};
}

Result<Part> ReadHead(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return CannotRead(path, errno);
  std::string line;
  std::getline(in, line);
  Part part{.path = path};
  std::string_view record;
  if (line.starts_with(kCsvShardPrefix)) {
    part.kind = Kind::kCsv;
    record = std::string_view(line).substr(kCsvShardPrefix.size());
  } else if (line.starts_with(kJsonStart)) {
    part.kind = Kind::kJson;
    std::string_view rest = std::string_view(line).substr(kJsonStart.size());
    for (std::string_view array : {kScoreArray, kSummaryArray}) {
      if (rest.ends_with(array)) {
        record = rest.substr(0, rest.size() - array.size());
        part.head = "{\"cookgraph\":1," + std::string(array.substr(1));
      }
    }
  }
  if (record.empty()) {
    return PartError(path, 1,
                     "not the output of a shard: `cookgraph score --shard ...` with --format "
                     "json, csv, summary-json or summary-csv writes one");
  }
  Result<ShardRecord> parsed = ParseShardRecord(record);
  if (!parsed) return PartError(path, 1, parsed.error().message);
  part.record = std::move(*parsed);
  return part;
}

// The parts, checked against each other and ordered by shard; an Error naming
// the part that does not fit.
Result<std::vector<Part>> CheckParts(const std::vector<std::string>& paths) {
  std::vector<Part> parts;
  std::map<size_t, std::string> by_index;
  for (const std::string& path : paths) {
    Result<Part> part = ReadHead(path);
    if (!part) return part.error();
    if (!parts.empty()) {
      const Part& first = parts.front();
      if (part->kind != first.kind || part->head != first.head ||
          part->record.options != first.record.options) {
        return PartError(path, 1,
                         fmt::format("made with other options than {} ({} against {})", first.path,
                                     part->record.options, first.record.options));
      }
      if (part->record.inputs != first.record.inputs || part->record.list != first.record.list) {
        return PartError(path, 1,
                         fmt::format("scored another input list than {} ({} inputs, list {} "
                                     "against {} inputs, list {})",
                                     first.path, part->record.inputs, part->record.list,
                                     first.record.inputs, first.record.list));
      }
      if (part->record.shard.count != first.record.shard.count) {
        return PartError(path, 1,
                         fmt::format("is one of {} shards but {} is one of {}: the parts overlap",
                                     part->record.shard.count, first.path,
                                     first.record.shard.count));
      }
    }
    auto [it, fresh] = by_index.emplace(part->record.shard.index, path);
    if (!fresh) {
      return PartError(path, 1,
                       fmt::format("is shard {} of {}, as {} is: the parts overlap",
                                   part->record.shard.index, part->record.shard.count, it->second));
    }
    parts.push_back(std::move(*part));
  }
  const size_t count = parts.front().record.shard.count;
  if (parts.size() != count) {
    std::vector<std::string> missing;
    for (size_t i = 0; i < count && missing.size() < 5; ++i) {
      if (!by_index.contains(i)) missing.push_back(std::to_string(i));
    }
    return Error{.where = "merge",
                 .message = fmt::format("{} of {} shards given: shard {}{} missing (0-based)",
                                        parts.size(), count, fmt::join(missing, ", "),
                                        parts.size() + missing.size() < count ? ", ... are" : " is")};
  }
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.record.shard.index < b.record.shard.index; });
  return parts;
}

// The first field of a CSV record (RFC 4180), unquoted.
std::string FirstField(std::string_view record) {
  std::string out;
  bool quoted = !record.empty() && record.front() == '"';
  for (size_t i = quoted ? 1 : 0; i < record.size(); ++i) {
    const char c = record[i];
    if (quoted) {
      if (c == '"' && i + 1 < record.size() && record[i + 1] == '"') {
        out += '"';
        ++i;
      } else if (c == '"') {
        break;
      } else {
        out += c;
      }
    } else if (c == ',') {
      break;
    } else {
      out += c;
    }
  }
  return out;
}

// Reads `part` after its first line and writes its rows to `out`; `files`
// holds the inputs of the parts before it, so that one in two parts is refused.
class Merger {
 public:
  explicit Merger(std::FILE* out) : out_(out) {}

  Status Add(const Part& part, std::map<std::string, std::string>& files) {
    std::ifstream in(part.path, std::ios::binary);
    if (!in) return CannotRead(part.path, errno);
    std::string line;
    std::getline(in, line);  // the shard record, checked already
    size_t number = 1;
    std::set<std::string> own;
    auto claim = [&](const std::string& file) -> Status {
      if (own.insert(file).second) {
        auto [it, fresh] = files.emplace(file, part.path);
        if (!fresh) {
          return PartError(part.path, number,
                           fmt::format("'{}' is also in {}: the parts overlap", file, it->second));
        }
      }
      return {};
    };
    if (part.kind == Kind::kCsv) {
      if (!std::getline(in, line)) return PartError(part.path, 2, "cut short: no header row");
      ++number;
      if (header_.empty()) {
        header_ = line;
        Put(line + "\n");
      } else if (line != header_) {
        return PartError(part.path, number, "its header row differs from the first part's");
      }
      std::string record;
      bool open_quote = false;
      bool ended = false;
      while (std::getline(in, line)) {
        ++number;
        if (ended) return PartError(part.path, number, "has text after its end line");
        if (!open_quote && line == kCsvShardEnd) {
          ended = true;
          continue;
        }
        record += line;
        record += '\n';
        for (char c : line) open_quote ^= c == '"';
        if (open_quote) continue;
        if (Status s = claim(FirstField(record)); !s) return s;
        Put(record);
        record.clear();
      }
      if (!ended || !in.eof()) return PartError(part.path, number, "cut short: no end line");
      return {};
    }
    bool ended = false;
    while (std::getline(in, line)) {
      ++number;
      if (ended) return PartError(part.path, number, "has text after its end");
      if (in.eof()) return PartError(part.path, number, "cut short: its last line is incomplete");
      if (line.starts_with("]")) {
        Status footer = Footer(part, number, line);
        if (!footer) return footer;
        ended = true;
        continue;
      }
      std::string_view row = line;
      if (row.ends_with(',')) row.remove_suffix(1);
      const auto j = nlohmann::json::parse(row, nullptr, false);
      if (!j.is_object() || !j.contains("file") || !j["file"].is_string()) {
        return PartError(part.path, number, "not a snapshot's line of a shard's JSON: damaged");
      }
      if (Status s = claim(j["file"].get<std::string>()); !s) return s;
      Put(rows_++ == 0 ? "\n" : ",\n");
      Put(row);
    }
    if (!ended) return PartError(part.path, number, "cut short: no closing line");
    return {};
  }

  // The JSON document's end: the rows' closing and, for score, every part's errors.
  void FinishJson(bool score) {
    Put("\n]");
    if (score) Put(",\"errors\":[" + errors_ + "]");
    Put("}\n");
  }
  bool ok() const { return ok_; }

 private:
  Status Footer(const Part& part, size_t number, std::string_view line) {
    constexpr std::string_view kErrors = "],\"errors\":[";
    if (line == "]}") return {};
    if (line.starts_with(kErrors) && line.ends_with("]}")) {
      std::string_view inner = line.substr(kErrors.size(), line.size() - kErrors.size() - 2);
      if (!inner.empty() &&
          !nlohmann::json::accept("[" + std::string(inner) + "]")) {
        return PartError(part.path, number, "its errors are damaged");
      }
      if (!inner.empty()) {
        if (!errors_.empty()) errors_ += ',';
        errors_ += inner;
      }
      return {};
    }
    return PartError(part.path, number, "its closing line is damaged");
  }
  void Put(std::string_view text) {
    ok_ &= std::fwrite(text.data(), 1, text.size(), out_) == text.size();
  }

  std::FILE* out_;
  std::string header_;
  std::string errors_;
  size_t rows_ = 0;
  bool ok_ = true;
};

int RunMerge(const MergeArgs& args) {
  if (std::find(args.parts.begin(), args.parts.end(), args.output) != args.parts.end()) {
    PrintError(Error{.file = args.output, .message = "is one of the parts: write the merge elsewhere"});
    return kExitInput;
  }
  Result<std::vector<Part>> parts = CheckParts(args.parts);
  if (!parts) {
    PrintError(parts.error());
    return kExitInput;
  }
  std::optional<Error> refused;
  auto write = [&](std::FILE* out) {
    Merger merger(out);
    std::map<std::string, std::string> files;
    const Part& first = parts->front();
    if (first.kind == Kind::kJson) {
      std::fputs(first.head.c_str(), out);
    }
    for (const Part& part : *parts) {
      if (Status added = merger.Add(part, files); !added) {
        refused = added.error();
        return true;  // nothing is committed: the error is reported below
      }
    }
    if (first.kind == Kind::kJson) merger.FinishJson(first.head.ends_with("\"snapshots\":["));
    return merger.ok();
  };
  if (args.output == "-") {
    // Checked in full before the first byte reaches standard output.
    std::string text;
    char* buffer = nullptr;
    size_t size = 0;
    std::FILE* memory = open_memstream(&buffer, &size);
    const bool ok = memory != nullptr && write(memory);
    if (memory != nullptr) std::fclose(memory);
    text.assign(buffer != nullptr ? buffer : "", size);
    std::free(buffer);
    if (refused) {
      PrintError(*refused);
      return kExitInput;
    }
    if (!ok || !WriteStdout(text) || std::fflush(stdout) != 0) {
      PrintError(Error{.file = "-", .message = "cannot write the merge to standard output"});
      return kExitInternal;
    }
    return kExitOk;
  }
  Status written = WriteFileAtomically(args.output, [&](std::FILE* out) {
    const bool ok = write(out);
    if (refused) errno = 0;
    return ok && !refused;
  });
  if (refused) {
    PrintError(*refused);
    return kExitInput;
  }
  if (!written) {
    PrintError(written.error());
    return kExitInternal;
  }
  return kExitOk;
}

}  // namespace

std::function<int()> SetupMerge(CLI::App& sub) {
  auto args = std::make_shared<MergeArgs>();
  sub.add_option("PART", args->parts,
                 "the outputs of `cookgraph score --shard ... --format json|csv|summary-json|"
                 "summary-csv`, one per shard, in any order")
      ->required();
  sub.add_option("-o,--output", args->output, "where the merged output goes (default: - , standard output)");
  sub.footer(
      "The merge is exactly what one unsharded run writes. Parts that overlap, miss a shard, "
      "come from another input list or other options, or were cut short are refused.\n\n"
      "Example:\n"
      "  cookgraph merge part-*.csv -o scores.csv");
  return [args] { return RunMerge(*args); };
}

}  // namespace cookgraph::cli
