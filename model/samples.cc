#include "model/samples.h"

#include <utility>

#include "model/series_store.h"

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

Samples Samples::KeepFrames(std::span<const size_t> positions) const {
  auto cut = [&]<typename T>(std::span<const T> values) {
    std::vector<T> out;
    if (values.empty()) return out;
    out.reserve(positions.size());
    for (size_t p : positions) out.push_back(values[p]);
    return out;
  };
  Samples out(node_count());
  out.frame_index_ = cut(std::span<const int64_t>(frame_index_));
  out.frame_ms_ = cut(frame_ms());
  out.profiler_ms_ = cut(profiler_ms());
  out.unmeasured_frames_idle_ = unmeasured_frames_idle_;
  auto store = std::make_shared<SeriesStore>();
  for (size_t m = 0; m < columns_.size(); ++m) {
    for (size_t n = 0; n < columns_[m].size(); ++n) {
      const std::span<const double> values = columns_[m][n];
      if (values.empty()) continue;
      store->Open(positions.size());
      for (size_t p : positions) store->Push(values[p]);
      out.columns_[m][n] = store->Close();
    }
  }
  out.Hold(std::move(store));
  return out;
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
  if (values.empty()) {
    column[node] = {};
    return;
  }
  auto owned = std::make_shared<const std::vector<double>>(std::move(values));
  column[node] = *owned;
  owners_.push_back(std::move(owned));
}

void Samples::Hold(std::shared_ptr<const void> owner) { owners_.push_back(std::move(owner)); }

void Samples::SetHeldSeries(NodeIndex node, Metric metric, std::span<const double> values) {
  auto& column = columns_[static_cast<size_t>(metric)];
  if (node < column.size()) column[node] = values;  // as SetSeries
}

bool Samples::any_series(Metric metric) const {
  for (const auto& values : columns_[static_cast<size_t>(metric)]) {
    if (!values.empty()) return true;
  }
  return false;
}

}  // namespace cookgraph
