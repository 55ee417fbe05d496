#ifndef COOKGRAPH_PYTHON_OPTIONS_H_
#define COOKGRAPH_PYTHON_OPTIONS_H_

// The keyword arguments of the module's functions, named as the CLI's flags
// (docs/python.md#options), turned into the libraries' option structs. A bad
// value raises ValueError with the message the CLI's check gives.

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "adapters/input_reader.h"
#include "advisor/settings.h"
#include "writers/score.h"

namespace cookgraph::python {

namespace py = pybind11;

/// format_in (--format-in), frame_marker (--frame-marker) and limits
/// (--limit: a dict of limit name to value, "input-size" or "input_size",
/// e.g. {"input_size": "1G", "depth": 512}).
ReadOptions MakeReadOptions(const std::optional<std::string>& format_in,
                            const std::optional<std::string>& frame_marker,
                            const std::optional<py::dict>& limits);

/// budget_ms (--budget-ms): a number of milliseconds > 0, or None.
std::optional<double> CheckBudget(std::optional<double> budget_ms);

/// sort (--sort), top (--top, 0 or None = all), group_by (--group-by:
/// None or "container") and baseline (--baseline FILE, None = none).
ScoreOptions MakeScoreOptions(const std::string& sort, std::optional<size_t> top,
                              const std::optional<std::string>& group_by,
                              const std::optional<std::string>& baseline);

/// The advisor's keyword arguments, as --persona, --model, --budget-tokens,
/// --base-url, --tokenizer, --pack and --no-stream (stream=False; None or
/// True leave it as configured).
SettingsOverrides MakeOverrides(const std::optional<std::string>& persona,
                                const std::optional<std::string>& model,
                                std::optional<size_t> budget_tokens,
                                const std::optional<std::string>& base_url,
                                const std::optional<std::string>& tokenizer,
                                const std::optional<std::string>& pack, std::optional<bool> stream);

}  // namespace cookgraph::python

#endif  // COOKGRAPH_PYTHON_OPTIONS_H_
