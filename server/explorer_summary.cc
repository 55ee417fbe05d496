#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>


#include "advisor/gains.h"
#include "server/explorer_internal.h"
#include "writers/score_columns.h"
#include "writers/score_sections.h"  // node ids as score writes them

// A view's summary, frames and findings (docs/commands.md#the-explorers-api).

namespace cookgraph::server {
namespace {

using score_internal::Optional;
using score_internal::WriteIds;

}  // namespace

namespace {

// A GStreamer recording's streaming threads; none for other inputs.
void WriteThreads(JsonWriter& w, const View& v) {
  const Network& net = v.snapshot.network;
  w.BeginArray();
  if (v.snapshot.streaming) {
    const Streaming& st = *v.snapshot.streaming;
    for (size_t t = 0; t < st.threads.size(); ++t) {
      const StreamingThread& th = st.threads[t];
      const std::optional<NodeIndex> costliest = th.costliest();
      w.BeginObject();
      w.BoolField("bottleneck", st.bottleneck == t);
      w.Field("buffer_period_ms", Optional(th.buffer_period_ms));
      w.NumberField("busy_ms_per_buffer", th.busy_ms_per_buffer);
      w.Field("costliest", costliest ? JsonValue(net.node(*costliest).id) : JsonValue());
      w.Field("cpu_load_pct", Optional(th.cpu_load_pct));
      w.Key("elements");
      WriteIds(w, net, th.elements);
      w.StringField("name", th.name);
      w.StringField("route", th.route);
      w.StringField("thread", th.thread);
      w.Field("utilisation", Optional(th.utilisation()));
      w.EndObject();
    }
  }
  w.EndArray();
}

// What to change first (docs/commands.md#cookgraph-serve): the first rows of
// the top gains, over-budget frames first, each with the findings about its
// node (those that name it first), as the report's section.
void WriteFirstFixes(JsonWriter& w, const View& v) {
  w.BeginArray();
  for (size_t i = 0; i < v.gains.rows.size() && i < 3; ++i) {
    const PredictedGain& g = v.gains.rows[i];
    const NodeIndex node = g.nodes.front();
    w.BeginObject();
    w.Key("findings");
    w.BeginArray();
    for (size_t k = 0; k < v.findings.size(); ++k) {
      if (!v.findings[k].nodes.empty() && v.findings[k].nodes.front() == node) w.Count(k);
    }
    w.EndArray();
    w.IntField("frames_saved", g.frames());
    w.StringField("id", v.snapshot.network.node(node).id);
    w.CountField("over_budget", g.over_budget);
    w.NumberField("saved_ms", g.ms());
    w.StringField("text", FixSentence(g, v.snapshot.info.frame_word()));
    w.EndObject();
  }
  w.EndArray();
}

}  // namespace

Result<std::string> Explorer::SummaryJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const FrameSummary& f = v.analysis.frames;
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.Field("budget_ms", v.analysis.has_budget ? JsonValue(v.analysis.budget_ms) : JsonValue());
  w.Key("critical_path");
  w.BeginObject();
  w.Key("nodes");
  WriteIds(w, net, v.analysis.critical_path.nodes);
  w.NumberField("per_frame_ms", v.analysis.critical_path.weight);
  w.EndObject();
  w.CountField("edges", net.edges().size());
  w.StringField("engine", v.snapshot.info.engine);
  w.StringField("file", v.file);
  w.Key("first_fixes");
  WriteFirstFixes(w, v);
  w.StringField("frame_word", v.snapshot.info.frame_word());
  w.Key("frames");
  w.BeginObject();
  w.CountField("count", v.snapshot.samples.frame_count());
  w.CountField("counted", f.counted);
  w.NumberField("max_ms", f.max_ms);
  w.NumberField("mean_ms", f.mean_ms);
  w.BoolField("measured", f.measured);
  w.CountField("over_budget", f.over_budget.size());
  w.NumberField("p95_ms", f.p95_ms);
  w.EndObject();
  w.Key("loops");
  w.BeginArray();
  for (const LoopReport& l : v.analysis.loops) {
    w.BeginObject();
    w.StringField("kind", LoopKindName(l.loop.kind));
    w.Key("nodes");
    WriteIds(w, net, l.loop.nodes);
    w.NumberField("per_frame_ms", l.per_frame_ms);
    w.EndObject();
  }
  w.EndArray();
  w.Key("metrics");
  w.BeginArray();
  w.String("score");
  w.String("per_frame_ms");
  if (v.snapshot.samples.any_series(Metric::kGpuMs)) w.String("gpu_ms");
  w.String("upstream_ms");
  if (!v.analysis.gain_ms.empty()) w.String("gain_ms");
  w.EndArray();
  w.StringField("name", v.snapshot.info.name);
  w.CountField("nodes", net.size());
  w.BoolField("steps", v.snapshot.info.steps());
  w.Key("threads");
  WriteThreads(w, v);
  const bool recorded = !v.snapshot.timelines.empty() ||
                        (v.snapshot.streaming && !v.snapshot.streaming->cook_start_ms.empty());
  w.StringField("timeline", recorded ? "recorded" : "dependency");
  w.CountField("view", index);
  w.Key("warnings");
  WriteStrings(w, v.analysis.warnings);
  w.EndObject();
  return w.Take();
}

Result<std::string> Explorer::FramesJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const FrameSummary& f = v.analysis.frames;
  size_t worst = 0;
  double worst_ms = -1;
  for (size_t i = 0; i < f.frame_ms.size(); ++i) {
    if (std::isfinite(f.frame_ms[i]) && f.frame_ms[i] > worst_ms) {
      worst_ms = f.frame_ms[i];
      worst = i;
    }
  }
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.Key("budget_ms");
  v.analysis.has_budget ? w.Number(v.analysis.budget_ms) : w.Null();
  w.Key("frame_ms");
  w.BeginArray();
  for (double ms : f.frame_ms) w.Number(ms);
  w.EndArray();
  w.StringField("frame_word", v.snapshot.info.frame_word());
  w.Key("frames");
  w.BeginArray();
  for (int64_t x : v.snapshot.samples.frame_index()) w.Int(x);
  w.EndArray();
  w.NumberField("max_ms", f.max_ms);
  w.NumberField("mean_ms", f.mean_ms);
  w.Key("over_budget");
  w.BeginArray();
  for (size_t x : f.over_budget) w.Count(x);
  w.EndArray();
  w.NumberField("p95_ms", f.p95_ms);
  w.BoolField("steps", v.snapshot.info.steps());
  w.CountField("view", index);
  w.Key("worst");
  f.frame_ms.empty() ? w.Null() : w.Count(worst);
  w.EndObject();
  return w.Take();
}

Result<std::string> Explorer::FindingsJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  JsonWriter w(kExplorerStyle);
  w.BeginObject();
  w.Key("findings");
  w.BeginArray();
  for (const Finding& f : v.findings) {
    w.BeginObject();
    w.Key("nodes");
    w.BeginArray();
    for (NodeIndex n : f.nodes) w.String(v.snapshot.network.node(n).id);
    w.EndArray();
    w.Key("numbers");
    w.BeginArray();
    for (const auto& [name, value] : f.numbers) {
      w.BeginArray();
      w.String(name);
      w.Number(value);
      w.EndArray();
    }
    w.EndArray();
    w.StringField("rule", f.rule);
    w.StringField("severity", SeverityName(f.severity));
    w.StringField("suggestion", f.suggestion);
    w.StringField("title", f.title);
    w.EndObject();
  }
  w.EndArray();
  w.CountField("view", index);
  w.EndObject();
  return w.Take();
}

}  // namespace cookgraph::server
