#include "adapters/native/snapshot_reader.h"

#include "adapters/byte_source.h"
#include "adapters/events.h"
#include "adapters/native/snapshot_builder.h"
#include "base/text.h"

namespace cookgraph {
namespace {

Result<Snapshot> Read(ByteSource& source, Spelling spelling) {
  SnapshotBuilder builder(source.name(), source.limits());
  Status parsed = spelling == Spelling::kJson ? ParseJsonEvents(source, builder)
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

Result<Snapshot> ReadSnapshotSource(ByteSource& source) {
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
  return Read(source, spelling);
}

Result<Snapshot> ParseSnapshot(std::string_view text, Spelling spelling, const std::string& file,
                               const InputLimits& limits) {
  auto source = ByteSource::FromString(text, file, limits);
  return Read(*source, spelling);
}

}  // namespace cookgraph
