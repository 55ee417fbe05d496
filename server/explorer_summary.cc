#include "server/explorer.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "advisor/gains.h"
#include "server/explorer_internal.h"

// A view's summary, frames and findings (docs/commands.md#the-explorers-api).

namespace cookgraph::server {
namespace {

using nlohmann::json;

}  // namespace

Result<std::string> Explorer::SummaryJson(size_t index) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  const Network& net = v.snapshot.network;
  const FrameSummary& f = v.analysis.frames;
  json path = json::array();
  for (NodeIndex n : v.analysis.critical_path.nodes) path.push_back(net.node(n).id);
  json loops = json::array();
  for (const LoopReport& l : v.analysis.loops) {
    json ids = json::array();
    for (NodeIndex n : l.loop.nodes) ids.push_back(net.node(n).id);
    loops.push_back({{"kind", LoopKindName(l.loop.kind)},
                     {"nodes", std::move(ids)},
                     {"per_frame_ms", Num(l.per_frame_ms)}});
  }
  const bool gpu = v.snapshot.samples.any_series(Metric::kGpuMs);
  json metrics = {"score", "per_frame_ms"};
  if (gpu) metrics.push_back("gpu_ms");
  metrics.push_back("upstream_ms");
  if (!v.analysis.gain_ms.empty()) metrics.push_back("gain_ms");
  json threads = json::array();
  if (v.snapshot.streaming) {
    const Streaming& st = *v.snapshot.streaming;
    for (size_t t = 0; t < st.threads.size(); ++t) {
      const StreamingThread& th = st.threads[t];
      json elements = json::array();
      for (NodeIndex n : th.elements) elements.push_back(net.node(n).id);
      threads.push_back({{"thread", th.thread},
                         {"name", th.name},
                         {"route", th.route},
                         {"costliest", th.costliest() ? json(net.node(*th.costliest()).id) : json(nullptr)},
                         {"bottleneck", st.bottleneck == t},
                         {"elements", std::move(elements)},
                         {"busy_ms_per_buffer", Num(th.busy_ms_per_buffer)},
                         {"buffer_period_ms", Num(th.buffer_period_ms)},
                         {"utilisation", Num(th.utilisation())},
                         {"cpu_load_pct", Num(th.cpu_load_pct)}});
    }
  }
  // What to change first (docs/commands.md#cookgraph-serve): the first rows of
  // the top gains, over-budget frames first, each with the findings about its
  // node (those that name it first), as the report's section.
  json first_fixes = json::array();
  for (size_t i = 0; i < v.gains.rows.size() && i < 3; ++i) {
    const PredictedGain& g = v.gains.rows[i];
    const NodeIndex node = g.nodes.front();
    json why = json::array();
    for (size_t k = 0; k < v.findings.size(); ++k) {
      if (!v.findings[k].nodes.empty() && v.findings[k].nodes.front() == node) why.push_back(k);
    }
    first_fixes.push_back({{"id", net.node(node).id},
                           {"text", FixSentence(g, v.snapshot.info.frame_word())},
                           {"frames_saved", g.frames()},
                           {"over_budget", g.over_budget},
                           {"saved_ms", Num(g.ms())},
                           {"findings", std::move(why)}});
  }
  json doc = {{"view", index},
              {"file", v.file},
              {"name", v.snapshot.info.name},
              {"engine", v.snapshot.info.engine},
              {"steps", v.snapshot.info.steps()},
              {"frame_word", v.snapshot.info.frame_word()},
              {"nodes", net.size()},
              {"edges", net.edges().size()},
              {"budget_ms", v.analysis.has_budget ? Num(v.analysis.budget_ms) : json(nullptr)},
              {"frames",
               {{"count", v.snapshot.samples.frame_count()},
                {"counted", f.counted},
                {"measured", f.measured},
                {"mean_ms", Num(f.mean_ms)},
                {"p95_ms", Num(f.p95_ms)},
                {"max_ms", Num(f.max_ms)},
                {"over_budget", f.over_budget.size()}}},
              {"metrics", std::move(metrics)},
              {"critical_path", {{"nodes", std::move(path)},
                                 {"per_frame_ms", Num(v.analysis.critical_path.weight)}}},
              {"loops", std::move(loops)},
              {"threads", std::move(threads)},
              {"timeline", !v.snapshot.timelines.empty() ||
                                   (v.snapshot.streaming && !v.snapshot.streaming->cook_start_ms.empty())
                               ? "recorded"
                               : "dependency"},
              {"first_fixes", std::move(first_fixes)},
              {"warnings", v.analysis.warnings}};
  return Dump(doc);
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
