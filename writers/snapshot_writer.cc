#include "writers/snapshot_writer.h"

#include <fmt/format.h>
#ifndef COOKGRAPH_NO_ZLIB
#include <zlib.h>
#endif

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iterator>

#include "base/text.h"
#include "writers/atomic_file.h"

namespace cookgraph {
namespace {

// Text goes into `out`; `flush` (when set) empties it every few MiB so that a
// large snapshot is never held twice in memory.
class Emitter {
 public:
  static constexpr size_t kMaxImplicitKey = 1000;  // libyaml's limit is 1024
  Emitter(std::string& out, std::function<bool(std::string&)> flush, bool yaml)
      : out_(out), flush_(std::move(flush)), yaml_(yaml) {}

  void Put(std::string_view s) { out_.append(s); }
  void Str(std::string_view s) { AppendJsonString(out_, s, /*yaml_safe=*/yaml_); }
  // A mapping key and its ": ". YAML allows at most 1024 characters in an
  // implicit key, so a longer one is written as an explicit "? key" (in a block
  // mapping, the ':' then starts the next line at `block_indent`).
  void Key(std::string_view s, std::string_view block_indent = {}, bool block = false) {
    size_t start = out_.size();
    Str(s);
    if (!yaml_ || out_.size() - start <= kMaxImplicitKey) {
      out_.append(": ");
      return;
    }
    out_.insert(start, "? ");
    if (block) {
      out_.push_back('\n');
      out_.append(block_indent);
      out_.append(": ");
    } else {
      out_.append(" : ");
    }
  }
  void Num(double v) {
    if (IsMissing(v)) {
      out_.append("null");
    } else {
      fmt::format_to(std::back_inserter(out_), "{}", v);
    }
  }
  void Int(int64_t v) { fmt::format_to(std::back_inserter(out_), "{}", v); }
  void Values(std::span<const double> values) {
    out_.push_back('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_.append(", ");
      Num(values[i]);
    }
    out_.push_back(']');
    MaybeFlush();
  }
  void Ints(std::span<const int64_t> values) {
    out_.push_back('[');
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out_.append(", ");
      Int(values[i]);
    }
    out_.push_back(']');
    MaybeFlush();
  }
  void MaybeFlush() {
    if (flush_ && out_.size() >= (4u << 20) && ok_) ok_ = flush_(out_);
  }
  bool ok() const { return ok_; }
  bool yaml() const { return yaml_; }

 private:
  std::string& out_;
  std::function<bool(std::string&)> flush_;
  bool yaml_;
  bool ok_ = true;
};

// Incoming edges of every node, in edge order (a counting sort by target).
struct Incoming {
  std::vector<uint32_t> offsets;
  std::vector<uint32_t> edges;  // indices into network.edges()

  explicit Incoming(const Network& network) : offsets(network.size() + 1, 0) {
    const auto& all = network.edges();
    for (const Edge& e : all) ++offsets[e.to + 1];
    for (size_t i = 0; i < network.size(); ++i) offsets[i + 1] += offsets[i];
    edges.resize(all.size());
    std::vector<uint32_t> fill(offsets.begin(), offsets.end() - 1);
    for (uint32_t i = 0; i < all.size(); ++i) edges[fill[all[i].to]++] = i;
  }
};

// One node as a flow mapping: {"id": ..., "type": ..., ...}. The same text is
// valid JSON and valid YAML.
void EmitNode(Emitter& e, const Network& network, const Incoming& incoming, NodeIndex n) {
  const Node& node = network.node(n);
  e.Put("{\"id\": ");
  e.Str(node.id);
  if (!node.type.empty()) e.Put(", \"type\": "), e.Str(node.type);
  if (!node.family.empty()) e.Put(", \"family\": "), e.Str(node.family);
  if (node.parent != DerivedParent(node.id)) e.Put(", \"parent\": "), e.Str(node.parent);
  if (!node.params.empty()) {
    e.Put(", \"params\": {");
    for (size_t i = 0; i < node.params.size(); ++i) {
      if (i) e.Put(", ");
      e.Key(node.params[i].first);
      e.Str(node.params[i].second);
    }
    e.Put("}");
  }
  const auto& edges = network.edges();
  auto list = [&](EdgeKind kind, std::string_view key) {
    bool any = false;
    for (uint32_t i = incoming.offsets[n]; i < incoming.offsets[n + 1]; ++i) {
      const Edge& edge = edges[incoming.edges[i]];
      if (edge.kind != kind) continue;
      e.Put(any ? ", " : fmt::format(", \"{}\": [", key));
      e.Str(network.node(edge.from).id);
      any = true;
    }
    if (any) e.Put("]");
  };
  list(EdgeKind::kData, "inputs");
  list(EdgeKind::kRef, "refs");
  list(EdgeKind::kFeedback, "feedback");
  bool any = false;
  for (uint32_t i = incoming.offsets[n]; i < incoming.offsets[n + 1]; ++i) {
    const Edge& edge = edges[incoming.edges[i]];
    if (edge.kind == EdgeKind::kData || edge.kind == EdgeKind::kRef ||
        edge.kind == EdgeKind::kFeedback) {
      continue;
    }
    e.Put(any ? ", {\"from\": " : ", \"edges\": [{\"from\": ");
    e.Str(network.node(edge.from).id);
    e.Put(", \"kind\": ");
    e.Str(EdgeKindName(edge.kind));
    e.Put("}");
    any = true;
  }
  if (any) e.Put("]");
  if (node.output) e.Put(", \"output\": true");
  e.Put("}");
}

void EmitSeries(Emitter& e, const Samples& samples, NodeIndex n) {
  bool first = true;
  e.Put("{");
  for (int m = 0; m < kMetricCount; ++m) {
    auto metric = static_cast<Metric>(m);
    if (!samples.has_series(n, metric)) continue;
    if (!first) e.Put(", ");
    first = false;
    e.Put(fmt::format("\"{}\": ", MetricName(metric)));
    e.Values(samples.series(n, metric));
  }
  e.Put("}");
}

bool HasAnySeries(const Samples& samples, NodeIndex n) {
  for (int m = 0; m < kMetricCount; ++m) {
    if (samples.has_series(n, static_cast<Metric>(m))) return true;
  }
  return false;
}

// The whole snapshot. JSON is an indented object; YAML a block mapping whose
// leaves are the same flow collections.
void Emit(Emitter& e, const Snapshot& snapshot) {
  const bool yaml = e.yaml();
  const SnapshotInfo& info = snapshot.info;
  const Network& network = snapshot.network;
  const Samples& samples = snapshot.samples;
  // key() starts a top-level entry; JSON needs commas between them.
  bool first_key = true;
  // A key; in YAML, a key whose value is a block (on the following lines) ends
  // its line with the colon.
  auto key = [&](std::string_view name, std::string_view indent = "  ", bool block = false) {
    if (yaml) {
      e.Put(fmt::format("{}{}:{}", indent.substr(2), name, block ? "" : " "));
    } else {
      e.Put(first_key ? "" : ",\n");
      e.Put(fmt::format("{}\"{}\": ", indent, name));
    }
    first_key = false;
  };
  auto end_line = [&] {
    if (yaml) e.Put("\n");
  };

  if (!yaml) e.Put("{\n");
  key("cookgraph"), e.Put("1"), end_line();
  if (!info.engine.empty()) key("engine"), e.Str(info.engine), end_line();
  if (!info.name.empty()) key("name"), e.Str(info.name), end_line();
  if (!info.source.empty()) {
    key("source"), e.Put("[");
    for (size_t i = 0; i < info.source.size(); ++i) {
      if (i) e.Put(", ");
      e.Str(info.source[i]);
    }
    e.Put("]"), end_line();
  }
  if (!info.captured.empty()) key("captured"), e.Str(info.captured), end_line();
  if (info.fps) key("fps"), e.Num(*info.fps), end_line();
  if (info.frame_budget_ms) key("frame_budget_ms"), e.Num(*info.frame_budget_ms), end_line();

  Incoming incoming(network);
  key("nodes", "  ", true);
  e.Put(yaml ? "\n" : "[\n");
  for (NodeIndex n = 0; n < network.size(); ++n) {
    e.Put(yaml ? "  - " : "    ");
    EmitNode(e, network, incoming, n);
    e.Put(yaml || n + 1 == network.size() ? "\n" : ",\n");
    e.MaybeFlush();
  }
  if (!yaml) e.Put("  ]");

  key("frames", "  ", true);
  e.Put(yaml ? "\n" : "{\n");
  first_key = true;
  key("index", "    "), e.Ints(samples.frame_index()), end_line();
  if (samples.has_frame_ms()) key("frame_ms", "    "), e.Values(samples.frame_ms()), end_line();
  if (samples.has_profiler_ms()) {
    key("profiler_ms", "    "), e.Values(samples.profiler_ms()), end_line();
  }
  key("series", "    ", true);
  e.Put(yaml ? "\n" : "{\n");
  bool first_series = true;
  for (NodeIndex n = 0; n < network.size(); ++n) {
    if (!HasAnySeries(samples, n)) continue;
    e.Put(yaml ? "    " : (first_series ? "      " : ",\n      "));
    first_series = false;
    e.Key(network.node(n).id, "    ", /*block=*/true);
    EmitSeries(e, samples, n);
    if (yaml) e.Put("\n");
  }
  if (yaml) {
    if (first_series) e.Put("    {}\n");  // no series: an empty mapping, not null
  } else {
    e.Put(first_series ? "    }\n  }\n}\n" : "\n    }\n  }\n}\n");
  }
}

#ifdef COOKGRAPH_NO_ZLIB
// Where the text goes: a plain file. A build without zlib (COOKGRAPH_NO_ZLIB,
// the WebAssembly build) writes no gzip: WriteSnapshotFile refuses .json.gz.
class FileSink {
 public:
  FileSink(const std::string& path, bool /*gzip*/) : file_(std::fopen(path.c_str(), "wb")) {
    if (file_ == nullptr) error_ = std::strerror(errno);
  }
  ~FileSink() {
    if (file_ != nullptr) std::fclose(file_);
  }
  bool Write(std::string& text) {
    if (file_ == nullptr) return false;
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
      error_ = std::strerror(errno);
      return false;
    }
    text.clear();
    return true;
  }
  bool Close() {
    if (file_ == nullptr) return false;
    const int rc = std::fclose(file_);
    file_ = nullptr;
    if (rc != 0) {
      error_ = std::strerror(errno);
      return false;
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  std::FILE* file_ = nullptr;
  std::string error_;
};
#else
// Where the text goes: a plain or gzip file through zlib (which writes plain
// bytes with mode "wT").
class FileSink {
 public:
  FileSink(const std::string& path, bool gzip) : path_(path) {
    file_ = gzopen(path.c_str(), gzip ? "wb6" : "wbT");
    if (file_ == nullptr) error_ = std::strerror(errno);
  }
  ~FileSink() {
    if (file_ != nullptr) gzclose(file_);
  }
  bool Write(std::string& text) {
    if (file_ == nullptr) return false;
    if (!text.empty() &&
        gzwrite(file_, text.data(), static_cast<unsigned>(text.size())) != static_cast<int>(text.size())) {
      int code = 0;
      const char* what = gzerror(file_, &code);
      error_ = code == Z_ERRNO ? std::strerror(errno) : what;
      return false;
    }
    text.clear();
    return true;
  }
  bool Close() {
    if (file_ == nullptr) return false;
    int rc = gzclose(file_);
    file_ = nullptr;
    if (rc != Z_OK) {
      error_ = rc == Z_ERRNO ? std::strerror(errno) : "gzip write failed";
      return false;
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  std::string path_;
  gzFile file_ = nullptr;
  std::string error_;
};
#endif

}  // namespace

std::string SnapshotToJson(const Snapshot& snapshot) {
  std::string out;
  Emitter e(out, nullptr, false);
  Emit(e, snapshot);
  return out;
}

std::string SnapshotToYaml(const Snapshot& snapshot) {
  std::string out;
  Emitter e(out, nullptr, true);
  Emit(e, snapshot);
  return out;
}

Status WriteSnapshotFile(const Snapshot& snapshot, const std::string& path) {
  const bool yaml = EndsWith(path, ".yaml") || EndsWith(path, ".yml");
  const bool gzip = EndsWith(path, ".json.gz");
  if (path == "-") {
    std::string out;
    Emitter e(out, [](std::string& text) {
      bool ok = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
      text.clear();
      return ok;
    }, false);
    Emit(e, snapshot);
    bool ok = e.ok() && std::fwrite(out.data(), 1, out.size(), stdout) == out.size() &&
              std::fflush(stdout) == 0;
    if (!ok) return Error{.file = "-", .message = "cannot write to standard output"};
    return {};
  }
  if (!yaml && !gzip && !EndsWith(path, ".json")) {
    return Error{.file = path,
                 .message = "unknown output extension: use .json, .json.gz, .yaml or .yml"};
  }
#ifdef COOKGRAPH_NO_ZLIB
  if (gzip) {
    return Error{.file = path,
                 .message = "this build writes no gzip: write .json and compress it"};
  }
#endif
  TemporaryFile temporary(path);
  if (!temporary.ok()) return temporary.error();
  FileSink sink(temporary.path(), gzip);
  if (!sink.error().empty()) {
    return Error{.file = path, .message = "cannot write: " + sink.error()};
  }
  std::string out;
  Emitter e(out, [&](std::string& text) { return sink.Write(text); }, yaml);
  Emit(e, snapshot);
  if (!e.ok() || !sink.Write(out) || !sink.Close()) {
    return Error{.file = path, .message = "cannot write: " + sink.error()};
  }
  return temporary.Commit();
}

}  // namespace cookgraph
