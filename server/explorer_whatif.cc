#include "server/explorer.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "server/explorer_internal.h"

// A node made faster or slower (docs/architecture.md#what-if-predicted-gains).

namespace cookgraph::server {

Result<double> ParseWhatIfFactor(std::string_view text) {
  const std::string range = fmt::format("from 0 (the node removed) to {}", kMaxWhatIfFactor);
  if (text.empty()) {
    return Error{.message = "factor: give how many times as long the node cooks, " + range +
                            " (?factor=0.5)"};
  }
  double value = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, value);
  const bool too_far = ec == std::errc::result_out_of_range;  // 1e999, 1e-999
  const bool whole = (ec == std::errc() || too_far) && at == end;
  const std::string shown = Printable(text.substr(0, 32));  // the page shows it
  if (whole && text.front() == '-') {
    return Error{.message =
                     "factor: '" + shown +
                     "' is negative: a node cannot cook in less than no time; give a factor " +
                     range};
  }
  // from_chars also takes "inf", "nan" and "infinity": a factor starts with a digit or '.'.
  const bool decimal =
      (std::isdigit(static_cast<unsigned char>(text.front())) || text.front() == '.') &&
      text.find_first_not_of("0123456789.eE+-") == std::string_view::npos;
  if (!whole || !decimal) {
    return Error{.message = "factor: '" + shown + "' is not a number; give a factor " + range};
  }
  if (too_far || !std::isfinite(value) || value > kMaxWhatIfFactor) {
    return Error{.message = "factor: '" + shown + "' is out of range; give a factor " + range};
  }
  return value;
}

Result<std::string> Explorer::WhatIfJson(size_t index, std::string_view id,
                                         std::string_view factor_text) const {
  Result<ViewRef> ref = ViewOf(data(), index);
  if (!ref) return ref.error();
  const View& v = *ref->view;
  if (id.empty()) return Error{.message = "node: give a node id (?node=ID)"};
  Result<double> factor = ParseWhatIfFactor(factor_text);
  if (!factor) return factor.error();
  const std::optional<NodeIndex> found = v.snapshot.network.Find(id);
  if (!found) {
    const auto containers = ContainerIndex(v);
    if (containers.contains(id)) {
      return NotFound("'" + Printable(id) + "' is a container in " + v.file +
                      ", not a node: the what-if changes one node");
    }
    return NotFound("no node '" + Printable(id) + "' in " + v.file);
  }
  if (v.whatif == nullptr) return Error{.message = "no what-if model for " + v.file};
  const WhatIf& w = *v.whatif;
  const WhatIfChange change{.node = *found, .factor = *factor};
  const WhatIfPrediction p = w.Predict(std::span(&change, 1));
  const NodeIndex n = *found;
  JsonWriter out(kExplorerStyle);
  auto frames = [&out](const WhatIfFrames& f) {
    out.BeginObject();
    out.NumberField("mean_ms", f.mean_ms);
    out.CountField("over_budget", f.over_budget);
    out.NumberField("p95_ms", f.p95_ms);
    out.EndObject();
  };
  auto series = [&out](const std::vector<double>& ms) {
    out.BeginArray();
    for (double x : ms) out.Number(x);
    out.EndArray();
  };
  out.BeginObject();
  out.Key("after");
  frames(p.after);
  out.Key("after_ms");
  series(p.frame_ms);
  out.Key("before");
  frames(w.before());
  out.Key("before_ms");
  series(w.frame_ms());
  out.Field("budget_ms", w.has_budget() ? JsonValue(w.budget_ms()) : JsonValue());
  out.BoolField("cooked", v.analysis.stats[n].cooked_frames > 0);
  out.NumberField("factor", *factor);
  out.IntField("frames_saved", p.frames_saved);
  out.StringField("model", WhatIfModelName(w.model()));
  out.StringField("node", v.snapshot.network.node(n).id);
  out.NumberField("saved_ms", p.saved_ms);
  out.NumberField("saved_p95_ms", p.saved_p95_ms);
  out.CountField("view", index);
  out.BoolField("waiting", n < v.analysis.waiting.size() && v.analysis.waiting[n]);
  out.Key("warnings");
  WriteStrings(out, w.warnings());
  out.EndObject();
  return out.Take();
}

}  // namespace cookgraph::server
