#include "writers/score_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

namespace cookgraph::score_internal {
namespace {

template <typename T>
void AppendNumberOf(std::string& out, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return;
  }
  char buf[32];
  const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
  out.append(buf, end);
}

}  // namespace

bool FlagAt(const std::vector<bool>& flags, NodeIndex n) { return n < flags.size() && flags[n]; }
Value Optional(const std::optional<double>& v) { return v ? Value(*v) : Value(); }
double ValueAt(const std::vector<double>& values, NodeIndex n) {
  return n < values.size() ? values[n] : 0.0;
}

void NodeValues(const Snapshot& snapshot, const Analysis& analysis, NodeIndex n,
                std::optional<size_t> rank, std::vector<Value>& out) {
  const Node& node = snapshot.network.node(n);
  const NodeStats& s = analysis.stats[n];
  // A node that never cooked has no cook_ms statistics: null, not 0. per_frame_ms,
  // share and cooks_per_frame are means over all frames: 0 for such a node, and
  // null only when the snapshot has no frames at all.
  const bool cooked = s.cooked_frames > 0;
  const bool frames = snapshot.samples.frame_count() > 0;
  auto stat = [cooked](double v) { return cooked ? Value(v) : Value(); };
  auto per_frame = [frames](double v) { return frames ? Value(v) : Value(); };
  out.clear();
  out.emplace_back(std::string_view(node.id));
  out.emplace_back(std::string_view(node.type));
  out.emplace_back(std::string_view(node.family));
  out.push_back(rank ? Value(uint64_t{*rank}) : Value());
  out.push_back(stat(s.score));
  out.push_back(stat(s.avg_ms));
  out.push_back(stat(s.std_ms));
  out.push_back(stat(s.p50_ms));
  out.push_back(stat(s.p95_ms));
  out.push_back(stat(s.p99_ms));
  out.push_back(stat(s.max_ms));
  out.push_back(per_frame(s.per_frame_ms));
  out.push_back(per_frame(s.share));
  out.emplace_back(uint64_t{s.cooked_frames});
  out.push_back(per_frame(s.cooks_per_frame));
  out.push_back(Optional(s.gpu_avg_ms));
  out.push_back(Optional(s.cpu_mem_mb));
  out.push_back(Optional(s.gpu_mem_mb));
  out.emplace_back(ValueAt(analysis.upstream_ms, n));
  out.emplace_back(FlagAt(analysis.in_loop, n));
  out.emplace_back(FlagAt(analysis.on_critical_path, n));
  out.emplace_back(FlagAt(analysis.dead, n));
  out.push_back(Optional(s.latency_avg_ms));
  out.push_back(Optional(s.latency_std_ms));
  out.push_back(Optional(s.latency_max_ms));
  out.push_back(Optional(s.inclusive_avg_ms));
}

const NodeDiff* BaselineOf(const ScoredSnapshot& scored, NodeIndex n) {
  const SnapshotDiff* diff = scored.baseline;
  if (diff == nullptr || n >= diff->by_after.size()) return nullptr;
  const size_t i = diff->by_after[n];
  return i == SnapshotDiff::kNotMatched ? nullptr : &diff->nodes[i];
}

void BaselineValues(const NodeDiff* d, std::vector<Value>& out) {
  out.clear();
  if (d == nullptr) {
    out.resize(kBaselineColumns.size());
    return;
  }
  const NodeStats& s = d->before_stats;
  const bool cooked = s.cooked_frames > 0;
  auto stat = [cooked](double v) { return cooked ? Value(v) : Value(); };
  out.push_back(stat(s.avg_ms));
  out.push_back(stat(s.p95_ms));
  out.emplace_back(s.per_frame_ms);
  out.push_back(stat(s.score));
  for (const std::optional<double>& pct :
       {d->avg_pct, d->p95_pct, d->per_frame_pct, d->score_pct}) {
    out.push_back(Optional(pct));
  }
  out.push_back(Optional(d->p_value()));
  out.emplace_back(d->regression);
  out.emplace_back(d->improvement);
  out.push_back(d->note.empty() ? Value() : Value(std::string_view(d->note)));
}

void ContainerValues(const ContainerStats& c, std::vector<Value>& out) {
  out.clear();
  out.emplace_back(std::string_view(c.id));
  out.emplace_back(int64_t{c.depth});
  out.emplace_back(uint64_t{c.nodes});
  out.emplace_back(uint64_t{c.cooked_nodes});
  out.emplace_back(c.per_frame_ms);
  out.emplace_back(c.self_per_frame_ms);
  out.emplace_back(c.share);
  out.emplace_back(c.max_ms);
  out.emplace_back(std::string_view(c.costliest));
}

size_t Shown(size_t total, size_t top) { return top == 0 ? total : std::min(total, top); }

Selection SelectNodes(const Analysis& analysis, const ScoreOptions& options) {
  Selection s;
  s.order = Rank(analysis, options.sort);
  s.cooked = std::min(CookedCount(analysis), s.order.size());
  s.shown = Shown(s.order.size(), options.top);
  return s;
}

std::optional<size_t> RankAt(const Selection& s, size_t position) {
  if (position < s.cooked) return position + 1;
  return std::nullopt;
}

void AppendNumber(std::string& out, double v) { AppendNumberOf(out, v); }
void AppendNumber(std::string& out, uint64_t v) { AppendNumberOf(out, v); }
void AppendNumber(std::string& out, int64_t v) { AppendNumberOf(out, v); }

std::string Fixed(double v, int decimals) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, decimals) : std::string("-");
}
std::string Ms(double v) { return Fixed(v, 3); }
std::string Percent(double fraction) { return Fixed(fraction * 100.0, 1) + "%"; }

}  // namespace cookgraph::score_internal
