#include "advisor/pack_schema.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

#include "graph/suggest.h"

namespace cookgraph {
namespace {

using U = FactUnit;

constexpr std::array<FactInfo, 32> kNodeFacts = {{
    {"per_frame_ms", U::kMs},  // first: the default order_by
    {"avg_ms", U::kMs},
    {"std_ms", U::kMs},
    {"score", U::kRatio},
    {"p50_ms", U::kMs},
    {"p95_ms", U::kMs},
    {"p99_ms", U::kMs},
    {"max_ms", U::kMs},
    {"share", U::kShare},
    {"cooked_frames", U::kCount},
    {"cooks_per_frame", U::kRatio},
    {"gpu_avg_ms", U::kMs},
    {"cpu_mem_mb", U::kMb},
    {"gpu_mem_mb", U::kMb},
    {"upstream_ms", U::kMs},
    {"dead", U::kFlag},
    {"in_loop", U::kFlag},
    {"on_critical_path", U::kFlag},
    {"is_output", U::kFlag},
    {"spike_frames", U::kCount},
    {"spike_excess_ms", U::kMs},
    {"spike_max_excess_ms", U::kMs},
    {"spike_share_of_overrun", U::kShare},
    {"p99_over_p50", U::kRatio},
    {"max_over_p50", U::kRatio},
    {"queue", U::kFlag},
    {"waiting", U::kMs},
    {"downstream_ms", U::kMs},
    {"downstream_share", U::kShare},
    {"pixels", U::kCount},
    // GStreamer: the streaming thread the node runs in (most of its cooks).
    {"thread_cpu_load", U::kShare},
    {"thread_utilisation", U::kShare},
}};

constexpr std::array<FactInfo, 4> kLoopFacts = {{
    {"per_frame_ms", U::kMs},
    {"share", U::kShare},
    {"size", U::kCount},
    {"costliest_ms", U::kMs},
}};

constexpr std::array<FactInfo, 3> kPathFacts = {{
    {"per_frame_ms", U::kMs},
    {"share", U::kShare},
    {"length", U::kCount},
}};

constexpr std::array<FactInfo, 12> kFrameFacts = {{
    {"overrun_ms", U::kMs},  // first: the default order_by
    {"mean_frame_ms", U::kMs},
    {"p95_frame_ms", U::kMs},
    {"max_frame_ms", U::kMs},
    {"budget_ms", U::kMs},
    {"frame_count", U::kCount},
    {"over_budget_frames", U::kCount},
    {"over_budget_share", U::kShare},
    {"mean_over_budget", U::kRatio},
    // ONNX Runtime: each run's time in which no node ran (metrics/outside_nodes.h).
    {"outside_nodes_ms", U::kMs},
    {"outside_nodes_share", U::kShare},
    {"node_threads", U::kCount},
}};

// Per rank with GPU work (metrics/hta_breakdown.h, metrics/trace_summary.h).
constexpr std::array<FactInfo, 20> kGpuFacts = {{
    {"idle_ms", U::kMs},  // first: the default order_by
    {"kernel_span_ms", U::kMs},
    {"idle_share", U::kShare},
    {"compute_share", U::kShare},
    {"host_wait_ms", U::kMs},
    {"host_wait_share", U::kShare},
    {"kernel_wait_ms", U::kMs},
    {"kernel_wait_share", U::kShare},
    {"launches", U::kCount},
    {"tiny_kernels", U::kCount},
    {"tiny_kernel_share", U::kShare},
    {"launch_delay_p50_ms", U::kMs},
    {"launch_delay_p95_ms", U::kMs},
    {"launch_cpu_ms", U::kMs},
    {"communication_ms", U::kMs},
    {"comm_overlap_share", U::kShare},
    {"memory_peak_mb", U::kMb},
    {"memory_peak_share", U::kShare},
    {"straggler_ms", U::kMs},
    {"straggler_share", U::kShare},
}};

constexpr std::array<std::string_view, 10> kNodeText = {
    "node",      "type",    "family",   "downstream", "engine",
    "budget_ms", "caps_in", "caps_out", "name",       "factory"};
constexpr std::array<std::string_view, 5> kLoopText = {"loop_nodes", "loop_kind", "costliest",
                                                       "engine", "budget_ms"};
constexpr std::array<std::string_view, 8> kPathText = {
    "path_nodes", "first", "last", "costliest", "engine", "budget_ms", "path_window", "path_of"};
constexpr std::array<std::string_view, 2> kFrameText = {"worst_nodes", "engine"};
constexpr std::array<std::string_view, 6> kGpuText = {"rank",   "host_ops", "device",
                                                      "engine", "straggler_step", "memory_device"};

// Per GStreamer streaming thread (model/gstreamer_threads.h).
constexpr std::array<FactInfo, 10> kThreadFacts = {{
    {"busy_ms_per_buffer", U::kMs},  // first: the default order_by
    {"buffer_period_ms", U::kMs},
    {"utilisation", U::kShare},
    {"headroom_ms", U::kMs},
    {"cpu_load", U::kShare},
    {"bottleneck", U::kFlag},
    {"buffers", U::kCount},
    {"element_ms_per_buffer", U::kMs},
    {"element_share", U::kShare},
    {"threads", U::kCount},
}};
constexpr std::array<std::string_view, 6> kThreadText = {"thread",   "thread_name", "element",
                                                         "elements", "engine",      "budget_ms"};

}  // namespace

std::string_view RuleScopeName(RuleScope scope) {
  switch (scope) {
    case RuleScope::kNode:
      return "node";
    case RuleScope::kLoop:
      return "loop";
    case RuleScope::kCriticalPath:
      return "critical_path";
    case RuleScope::kFrames:
      return "frames";
    case RuleScope::kGpu:
      return "gpu";
    case RuleScope::kThread:
      return "thread";
  }
  return "node";
}

std::span<const FactInfo> ScopeFacts(RuleScope scope) {
  switch (scope) {
    case RuleScope::kNode:
      return kNodeFacts;
    case RuleScope::kLoop:
      return kLoopFacts;
    case RuleScope::kCriticalPath:
      return kPathFacts;
    case RuleScope::kFrames:
      return kFrameFacts;
    case RuleScope::kGpu:
      return kGpuFacts;
    case RuleScope::kThread:
      return kThreadFacts;
  }
  return kNodeFacts;
}

std::span<const std::string_view> TextPlaceholders(RuleScope scope) {
  switch (scope) {
    case RuleScope::kNode:
      return kNodeText;
    case RuleScope::kLoop:
      return kLoopText;
    case RuleScope::kCriticalPath:
      return kPathText;
    case RuleScope::kFrames:
      return kFrameText;
    case RuleScope::kGpu:
      return kGpuText;
    case RuleScope::kThread:
      return kThreadText;
  }
  return kNodeText;
}

std::vector<std::string> TemplatePlaceholders(RuleScope scope) {
  std::vector<std::string> out = {"frame", "frames"};
  for (auto t : TextPlaceholders(scope)) out.emplace_back(t);
  for (const auto& f : ScopeFacts(scope)) out.emplace_back(f.name);
  return out;
}

bool TemplatePlaceholderKnown(RuleScope scope, std::string_view inner) {
  if (inner.starts_with("param:")) {  // {param:NAME}, {param:A;B}, either with |TEXT
    const std::string_view names = inner.substr(6, inner.find('|') - 6);
    size_t at = 0;
    for (;;) {
      const size_t semi = names.find(';', at);
      if (names.substr(at, semi - at).empty()) return false;  // no name between
      if (semi == std::string_view::npos) break;
      at = semi + 1;
    }
    return scope == RuleScope::kNode;
  }
  // A numeric parameter halved or doubled (docs/architecture.md#advice-ordered-by-impact).
  // {half:NAME|N}: N is the value in effect where the snapshot does not give
  // NAME (the element's default), a finite number that halves to 1 or more,
  // or doubles from more than 0.
  if (inner.starts_with("half:") || inner.starts_with("double:")) {
    const bool half = inner.starts_with("half:");
    inner.remove_prefix(half ? 5 : 7);
    const size_t bar = inner.find('|');
    if (bar != std::string_view::npos) {
      const std::string_view fallback = inner.substr(bar + 1);
      double v = 0;
      const auto [end, ec] = std::from_chars(fallback.data(), fallback.data() + fallback.size(), v);
      if (ec != std::errc() || end != fallback.data() + fallback.size() || !std::isfinite(v) ||
          !(v >= (half ? 2 : 0)) || v == 0) {
        return false;
      }
      inner = inner.substr(0, bar);
    }
    return scope == RuleScope::kNode && !inner.empty();
  }
  std::string_view name = inner;
  bool percent = false;
  if (name.ends_with(":%")) {
    name.remove_suffix(2);
    percent = true;
  }
  const auto facts = ScopeFacts(scope);
  if (std::any_of(facts.begin(), facts.end(), [&](const FactInfo& f) { return f.name == name; })) {
    return true;
  }
  // The engine's word for a frame, in every scope (docs/architecture.md#engine-words).
  if (!percent && (name == "frame" || name == "frames")) return true;
  const auto text = TextPlaceholders(scope);
  return !percent && std::find(text.begin(), text.end(), name) != text.end();
}

std::string DidYouMean(std::string_view name, std::span<const std::string_view> known) {
  std::string_view best;
  size_t best_distance = 0;
  for (auto k : known) {
    const size_t d = EditDistance(name, k);
    if (best.empty() || d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  if (best.empty() || best_distance == 0) return "";
  const size_t longer = std::max(name.size(), best.size());
  if (best_distance > std::max<size_t>(1, longer / 3)) return "";
  return " (did you mean '" + std::string(best) + "'?)";
}

}  // namespace cookgraph
