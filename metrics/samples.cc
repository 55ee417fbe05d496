#include "metrics/samples.h"

#include <utility>

namespace cookgraph {
namespace {

constexpr std::array<std::string_view, kMetricCount> kMetricNames = {
    "cook_ms", "gpu_ms", "cpu_mem_mb", "gpu_mem_mb", "cooks", "latency_ms", "inclusive_ms"};

}  // namespace

std::string_view MetricName(Metric metric) { return kMetricNames[static_cast<size_t>(metric)]; }

std::optional<Metric> ParseMetric(std::string_view name) {
  for (size_t i = 0; i < kMetricNames.size(); ++i) {
    if (kMetricNames[i] == name) return static_cast<Metric>(i);
  }
  return std::nullopt;
}

Samples::Samples(size_t node_count) {
  for (auto& column : columns_) column.resize(node_count);
}

void Samples::SetSeries(NodeIndex node, Metric metric, std::vector<double> values) {
  auto& column = columns_[static_cast<size_t>(metric)];
  // A node the samples have no room for has nowhere to go; dropping it beats
  // writing out of bounds. Readers never look past node_count().
  if (node >= column.size()) return;
  // The length is the caller's contract (frame_count() entries); it is not
  // checked here because the frame index may be set after the series. Readers
  // treat frames past the end of a short series as missing and ignore extra
  // values of a long one.
  column[node] = std::move(values);
}

bool Samples::any_series(Metric metric) const {
  for (const auto& values : columns_[static_cast<size_t>(metric)]) {
    if (!values.empty()) return true;
  }
  return false;
}

}  // namespace cookgraph
