#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "server/explorer_internal.h"
#include "writers/score_columns.h"

// The explorer and its dataset-wide documents (index, diff), and the routes
// of a view's documents (explorer_internal.h names the files of the others).

namespace cookgraph::server {
namespace {

using score_internal::Optional;

}  // namespace

std::optional<size_t> ViewNumber(std::string_view text) {
  if (text.empty() || text.size() > 6) return std::nullopt;
  size_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

namespace {

ApiReply Reply(const Result<std::string>& doc) {
  if (doc) return ApiReply{.body = *doc};
  return ApiReply{.status = doc.error().where == kNotFound ? 404 : 400,
                  .body = ErrorDocument(doc.error().message)};
}

ApiReply Refuse(std::string message) {
  return ApiReply{.status = 400, .body = ErrorDocument(message)};
}

}  // namespace

ApiReply ViewDocument(const Explorer& ex, size_t v, std::string_view what,
                      const std::function<std::string(const char* name)>& param) {
  if (what == "summary") return Reply(ex.SummaryJson(v));
  if (what == "graph") return Reply(ex.GraphJson(v, param("container")));
  if (what == "node") return Reply(ex.NodeJson(v, param("id")));
  if (what == "search") return Reply(ex.SearchJson(v, param("q")));
  if (what == "frames") return Reply(ex.FramesJson(v));
  if (what == "findings") return Reply(ex.FindingsJson(v));
  if (what == "nodes") {
    const std::string t = param("top");
    const std::optional<size_t> top = t.empty() ? 100 : ViewNumber(t);
    if (!top) return Refuse(fmt::format("top: give a number of rows, 1 to {}", kMaxNodeRows));
    return Reply(ex.NodesJson(v, param("sort"), *top));
  }
  if (what == "whatif") return Reply(ex.WhatIfJson(v, param("node"), param("factor")));
  if (what == "timeline") {
    const std::optional<size_t> frame = ViewNumber(param("frame"));
    if (!frame) return Refuse("frame: give a frame position (0, 1, ...)");
    return Reply(ex.TimelineJson(v, *frame));
  }
  return ApiReply{.status = 404, .body = ErrorDocument("no such page")};
}

Explorer::Explorer(Dataset data, AskHooks hooks)
    : data_(std::make_shared<const Dataset>(std::move(data))), hooks_(std::move(hooks)) {}

std::shared_ptr<const Dataset> Explorer::data() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return data_;
}

void Explorer::Replace(Dataset data) {
  std::lock_guard<std::mutex> lock(mutex_);
  data.version = data_->version + 1;
  data_ = std::make_shared<const Dataset>(std::move(data));
}

uint64_t Explorer::version() const { return data()->version; }

std::string Explorer::IndexJson() const {
  const std::shared_ptr<const Dataset> d = data();
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.Key("alerts");
  WriteStrings(w, d->alerts);
  w.Key("ask");
  w.BeginObject();
  w.BoolField("configured", hooks_.not_configured.empty() && hooks_.ask != nullptr);
  w.StringField("help", hooks_.not_configured);
  w.EndObject();
  w.IntField("cookgraph", 1);
  w.BoolField("diff", d->diff.has_value());
  w.BoolField("live", d->live);
  w.StringField("status", d->status);
  w.CountField("version", d->version);
  w.Key("views");
  w.BeginArray();
  for (size_t i = 0; i < d->views.size(); ++i) {
    const View& v = *d->views[i];
    const FrameSummary& f = v.analysis.frames;
    size_t critical = 0;
    for (const Finding& x : v.findings) critical += x.severity == Severity::kCritical;
    w.BeginObject();
    w.Field("budget_ms", v.analysis.has_budget ? JsonValue(v.analysis.budget_ms) : JsonValue());
    w.CountField("critical_findings", critical);
    w.StringField("engine", v.snapshot.info.engine);
    w.StringField("file", v.file);
    w.CountField("findings", v.findings.size());
    w.StringField("frame_word", v.snapshot.info.frame_word());
    w.CountField("frames", v.snapshot.samples.frame_count());
    w.NumberField("max_ms", f.max_ms);
    w.NumberField("mean_ms", f.mean_ms);
    w.StringField("name", v.snapshot.info.name);
    w.CountField("nodes", v.snapshot.network.size());
    w.CountField("over_budget", f.over_budget.size());
    w.NumberField("p95_ms", f.p95_ms);
    const bool top = !v.rank.empty() && CookedCount(v.analysis) > 0;
    w.Field("top", top ? JsonValue(v.snapshot.network.node(v.rank[0]).id) : JsonValue());
    w.CountField("view", i);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return w.Take();
}

Result<std::string> Explorer::DiffJson() const {
  const std::shared_ptr<const Dataset> d = data();
  if (!d->diff) return NotFound("no comparison: serve two inputs, BEFORE and AFTER");
  const SnapshotDiff& diff = *d->diff;
  const FrameDiff& f = diff.frames;
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.Key("added");
  WriteStrings(w, diff.added);
  w.StringField("after", d->views[1]->file);
  w.NumberField("alpha", diff.options.alpha);
  w.StringField("before", d->views[0]->file);
  w.Key("frames");
  w.BeginObject();
  w.Field("change_pct", Optional(f.change_pct));
  w.BoolField("improvement", f.improvement);
  w.NumberField("mean_after", f.mean_after);
  w.NumberField("mean_before", f.mean_before);
  w.NumberField("p95_after", f.p95_after);
  w.NumberField("p95_before", f.p95_before);
  w.Field("p_value", Optional(f.p_value()));
  w.BoolField("regression", f.regression);
  w.EndObject();
  w.CountField("improvements", diff.improvements);
  w.NumberField("min_change_pct", diff.options.min_change_pct);
  w.Key("nodes");
  w.BeginArray();
  for (const NodeDiff& n : diff.nodes) {
    w.BeginObject();
    w.NumberField("after_avg_ms", n.after_stats.avg_ms);
    w.NumberField("after_per_frame_ms", n.after_stats.per_frame_ms);
    w.Field("avg_pct", Optional(n.avg_pct));
    w.NumberField("before_avg_ms", n.before_stats.avg_ms);
    w.NumberField("before_per_frame_ms", n.before_stats.per_frame_ms);
    w.StringField("id", n.id);
    w.BoolField("improvement", n.improvement);
    w.StringField("note", n.note);
    w.Field("p_value", Optional(n.p_value()));
    w.Field("per_frame_pct", Optional(n.per_frame_pct));
    w.BoolField("regression", n.regression);
    w.EndObject();
  }
  w.EndArray();
  w.CountField("regressions", diff.regressions);
  w.Key("removed");
  WriteStrings(w, diff.removed);
  w.Key("warnings");
  WriteStrings(w, diff.warnings);
  w.EndObject();
  return w.Take();
}

}  // namespace cookgraph::server
