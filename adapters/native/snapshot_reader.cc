#include "adapters/native/snapshot_reader.h"

#include <optional>
#include <string>

#include "adapters/byte_source.h"
#include "adapters/events.h"
#include "adapters/native/snapshot_builder.h"
#include "base/text.h"
#include "model/samples.h"

namespace cookgraph {
namespace {

// True when `text` starts as a node's series in frames.series does: a key
// without escapes, ':', '{' and a metric's name as the first key.
bool StartsASeries(std::string_view text) {
  size_t i = 0;
  auto blanks = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
      ++i;
  };
  auto is = [&](char c) { return i < text.size() && text[i] == c ? (++i, true) : false; };
  // A string without escapes: its text.
  auto string = [&]() -> std::optional<std::string_view> {
    if (!is('"')) return std::nullopt;
    const size_t end = text.find_first_of("\"\\", i);
    if (end == std::string_view::npos || text[end] != '"') return std::nullopt;
    const std::string_view value = text.substr(i, end - i);
    i = end + 1;
    return value;
  };
  if (!string()) return false;
  blanks();
  if (!is(':')) return false;
  blanks();
  if (!is('{')) return false;
  blanks();
  const std::optional<std::string_view> metric = string();
  return metric && ParseMetric(*metric);
}

// A split parse of a JSON snapshot (adapters/events.h, JsonSplit): its second
// half starts at a node's series in frames.series, the first found from
// `from` on (FindSplitPoint); nullopt where there is none, or where the input
// cannot be read twice.
std::optional<JsonSplit> PlanSeriesSplit(ByteSource& source, uint64_t from) {
  if (source.PeekNonBlank() != '{' || source.failed() ||
      source.stored_size() > source.limits().input_size) {
    return std::nullopt;
  }
  std::unique_ptr<ByteSource> rest = source.Reopen();
  if (rest == nullptr) return std::nullopt;
  // A key after a ',' that starts a series, not a metric of a node's series
  // (`, "gpu_ms": [`, on the same line as the node's other metrics).
  const std::optional<uint64_t> at = FindSplitPoint(*rest, from, '"', StartsASeries);
  if (!at || !rest->SkipTo(*at)) return std::nullopt;
  return JsonSplit{.at = *at, .open = "{{{", .rest = std::move(rest)};
}

// JSON on one thread, on two (the events read on a worker thread), or in two
// halves at once, as `options` and the input's size say.
Status ParseJson(ByteSource& source, SnapshotBuilder& builder, const SnapshotReadOptions& options) {
  if (options.joined != nullptr) *options.joined = false;
  const JsonPlan plan = PlanJsonThreads(source, options.threads, options.split_from);
  std::optional<JsonSplit> split;
  if (plan.split_from) split = PlanSeriesSplit(source, *plan.split_from);
  if (!split) return ParseJsonEvents(source, builder, nullptr, plan.threads);
  SnapshotBuilder rest(source.name(), source.limits());
  rest.StartInsideSeries();
  split->rest_handler = &rest;
  split->at_boundary = [&] { return builder.BetweenSeries(); };
  split->join = [&](Location place) { return builder.JoinSeries(rest, place); };
  Status parsed = ParseJsonEventsSplit(source, builder, *split);
  if (options.joined != nullptr) *options.joined = split->joined;
  return parsed;
}

Result<Snapshot> Read(ByteSource& source, Spelling spelling, const SnapshotReadOptions& options) {
  SnapshotBuilder builder(source.name(), source.limits());
  Status parsed = spelling == Spelling::kJson ? ParseJson(source, builder, options)
                                              : ParseYamlEvents(source, builder);
  if (!parsed) {
    if (builder.error()) return *builder.error();
    return parsed.error();
  }
  return builder.Finish();
}

}  // namespace

Result<Snapshot> ReadSnapshotFile(const std::string& path, const InputLimits& limits) {
  auto opened = ByteSource::Open(path, limits, GzipRead::kWholeWhenSmall);
  if (!opened) return opened.error();
  return ReadSnapshotSource(**opened);
}

Result<Snapshot> ReadSnapshotSource(ByteSource& source, const SnapshotReadOptions& options) {
  const std::string& path = source.name();
  char first = source.PeekNonBlank();
  if (source.failed()) return Error{.file = path, .message = source.error()};
  // Blank as far as the buffer goes: empty, or blanks before the document
  // (which the JSON reader skips and places).
  if (first == 0 && source.HeadIsWholeInput()) {
    return Error{.file = path, .message = "the file is empty"};
  }
  // The extension under a ".gz" names the spelling: x.yaml.gz is YAML.
  std::string_view name = path;
  if (EndsWith(name, ".gz")) name.remove_suffix(3);
  Spelling spelling;
  if (EndsWith(name, ".yaml") || EndsWith(name, ".yml")) {
    spelling = Spelling::kYaml;
  } else if (EndsWith(name, ".json")) {
    spelling = Spelling::kJson;
  } else {
    spelling = first == 0 || first == '{' || first == '[' ? Spelling::kJson : Spelling::kYaml;
  }
  return Read(source, spelling, options);
}

Result<Snapshot> ParseSnapshot(std::string_view text, Spelling spelling, const std::string& file,
                               const InputLimits& limits) {
  auto source = ByteSource::FromString(text, file, limits);
  return Read(*source, spelling, {});
}

}  // namespace cookgraph
