#include "python/options.h"

#include <algorithm>
#include <cmath>
#include <regex>

#include "adapters/input_limits.h"
#include "metrics/analysis.h"

namespace cookgraph::python {
namespace {

std::string Shown(const std::string& text) { return "'" + text.substr(0, 40) + "'"; }

}  // namespace

ReadOptions MakeReadOptions(const std::optional<std::string>& format_in,
                            const std::optional<std::string>& frame_marker,
                            const std::optional<py::dict>& limits) {
  ReadOptions options;
  if (format_in) {
    options.format = ParseInputFormat(*format_in);
    if (!options.format) {
      throw py::value_error("format_in: expected native, chrome or gstreamer, got " +
                            Shown(*format_in));
    }
  }
  if (frame_marker) {
    // Checked before reading, as the CLI checks --frame-marker.
    try {
      std::regex check(*frame_marker);
    } catch (const std::regex_error& e) {
      throw py::value_error("frame_marker: not a valid regex: " + std::string(e.what()));
    }
  }
  options.frame_marker = frame_marker;
  if (limits) {
    for (const auto& [key, value] : *limits) {
      std::string name = py::str(key);
      std::replace(name.begin(), name.end(), '_', '-');  // input_size as input-size
      const Status set = SetLimit(options.limits, name + "=" + std::string(py::str(value)));
      if (!set) throw py::value_error("limits: " + set.error().message);
    }
  }
  return options;
}

std::optional<double> CheckBudget(std::optional<double> budget_ms) {
  if (budget_ms && !(std::isfinite(*budget_ms) && *budget_ms > 0 && *budget_ms <= 1e9)) {
    throw py::value_error("budget_ms: must be a number of milliseconds > 0, got " +
                          std::string(py::str(py::float_(*budget_ms))));
  }
  return budget_ms;
}

ScoreOptions MakeScoreOptions(const std::string& sort, std::optional<size_t> top,
                              const std::optional<std::string>& group_by,
                              const std::optional<std::string>& baseline) {
  ScoreOptions options;
  std::string name = sort;
  std::replace(name.begin(), name.end(), '_', '-');  // per_frame as per-frame
  const std::optional<SortKey> key = ParseSortKey(name);
  if (!key) {
    throw py::value_error("sort: expected score, avg, p95, max, per-frame, gpu, upstream or gain, got " +
                          Shown(sort));
  }
  options.sort = *key;
  options.top = top.value_or(0);
  if (group_by && *group_by != "container") {
    throw py::value_error("group_by: expected None or 'container', got " + Shown(*group_by));
  }
  options.group_by_container = group_by.has_value();
  if (baseline) {
    if (options.group_by_container) {
      throw py::value_error("baseline: compares nodes, not containers: leave out group_by");
    }
    options.baseline_file = *baseline;
  }
  return options;
}

SettingsOverrides MakeOverrides(const std::optional<std::string>& persona,
                                const std::optional<std::string>& model,
                                std::optional<size_t> budget_tokens,
                                const std::optional<std::string>& base_url,
                                const std::optional<std::string>& tokenizer,
                                const std::optional<std::string>& pack,
                                std::optional<bool> stream) {
  SettingsOverrides overrides{.persona = persona,
                              .model = model,
                              .budget_tokens = budget_tokens,
                              .base_url = base_url,
                              .tokenizer = tokenizer,
                              .pack = pack,
                              .no_stream = stream.has_value() && !*stream,
                              .model_from = "model=",
                              .base_url_from = "base_url="};
  if (persona && !ParsePersona(*persona)) {
    throw py::value_error("persona: expected " + PersonaNames() + ", got " + Shown(*persona));
  }
  if (budget_tokens && (*budget_tokens < 1 || *budget_tokens > 10'000'000)) {
    throw py::value_error("budget_tokens: must be 1 to 10000000, got " +
                          std::to_string(*budget_tokens));
  }
  return overrides;
}

}  // namespace cookgraph::python
