#include "advisor/rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "advisor/gains.h"
#include "advisor/pack_schema.h"
#include "advisor/rule_subjects.h"
#include "base/text.h"

namespace cookgraph {

using rules_internal::FrameSubjects;
using rules_internal::GpuSubjects;
using rules_internal::Holds;
using rules_internal::LoopSubjects;
using rules_internal::ParseNumber;
using rules_internal::PathSubjects;
using rules_internal::Subject;
using rules_internal::ThreadSubjects;

namespace {

std::string FormatFact(FactUnit unit, const std::optional<double>& v, bool percent) {
  if (!v) return "unknown";
  if (percent || unit == FactUnit::kShare) return fmt::format("{:.1f}%", *v * 100);
  switch (unit) {
    case FactUnit::kMs:
      return fmt::format("{:.3f}", *v);
    case FactUnit::kCount:
      return fmt::format("{:.0f}", *v);
    case FactUnit::kRatio:
      return fmt::format("{:.2f}", *v);
    case FactUnit::kMb:
      return fmt::format("{:.1f}", *v);
    case FactUnit::kFlag:
      return *v != 0 ? "yes" : "no";
    case FactUnit::kShare:
      break;
  }
  return fmt::format("{}", *v);
}

// {half:NAME} and {double:NAME}: the node's numeric parameter NAME times
// `factor`, an integer kept one (halves round down); nullopt when the node has
// no such parameter, it is not a positive number, or the result is below 1.
// `fallback` ({half:NAME|N}) stands for a parameter the node does not give.
std::optional<std::string> Scaled(const Subject& s, std::string_view name, double factor,
                                  const std::string* fallback = nullptr) {
  const std::string* v = s.node ? FindParam(*s.node, name) : nullptr;
  if (v == nullptr) v = fallback;
  const auto number = v ? ParseNumber(*v) : std::nullopt;
  if (!number || !(*number > 0) || !std::isfinite(*number)) return std::nullopt;
  const double scaled = *number * factor;
  if (*number == std::floor(*number)) {
    const double whole = std::floor(scaled);
    if (whole < 1) return std::nullopt;
    return fmt::format("{:.0f}", whole);
  }
  return fmt::format("{}", scaled);
}

// Fills `tmpl`'s placeholders for `s`. A parameter, a scaled parameter or a
// text without a value (a text of "n/a") is written "unknown" and, when
// `missing` is given, its
// name added there (a snippet is then left out: it would name a value the
// snapshot does not give). {frame} and {frames} are `unit`, the engine's word
// for a frame (SnapshotInfo::frame_word), and its plural.
std::string Fill(const std::string& tmpl, RuleScope scope, const Subject& s,
                 std::string_view unit = "frame", std::vector<std::string>* missing = nullptr) {
  auto unknown = [&](std::string_view name) {
    if (missing) missing->emplace_back(name);
    return std::string("unknown");
  };
  const auto facts = ScopeFacts(scope);
  std::string out;
  size_t pos = 0;
  while (pos < tmpl.size()) {
    const size_t open = tmpl.find('{', pos);
    const size_t close = open == std::string::npos ? open : tmpl.find('}', open);
    if (close == std::string::npos) {
      out.append(tmpl, pos);
      break;
    }
    out.append(tmpl, pos, open - pos);
    std::string_view inner(tmpl.data() + open + 1, close - open - 1);
    pos = close + 1;
    if (inner.starts_with("param:")) {  // {param:NAME}, {param:A;B} (the first given), |TEXT
      const size_t bar = inner.find('|');
      const std::string_view names = inner.substr(6, bar == std::string_view::npos ? bar : bar - 6);
      const std::string* v = nullptr;
      std::string_view name = names;
      for (size_t at = 0; v == nullptr && at <= names.size();) {
        const size_t semi = std::min(names.find(';', at), names.size());
        name = names.substr(at, semi - at);
        v = s.node ? FindParam(*s.node, name) : nullptr;
        at = semi + 1;
      }
      if (v) {
        out += *v;
      } else if (bar != std::string_view::npos) {
        out += inner.substr(bar + 1);
      } else {
        out += unknown(name);
      }
      continue;
    }
    if (inner.starts_with("half:") || inner.starts_with("double:")) {
      const bool half = inner.starts_with("half:");
      std::string_view name = inner.substr(half ? 5 : 7);
      std::optional<std::string> fallback;
      if (const size_t bar = name.find('|'); bar != std::string_view::npos) {
        fallback.emplace(name.substr(bar + 1));
        name = name.substr(0, bar);
      }
      const auto v = Scaled(s, name, half ? 0.5 : 2.0, fallback ? &*fallback : nullptr);
      out += v ? *v : unknown(name);
      continue;
    }
    if (inner == "frame" || inner == "frames") {
      out += unit;
      if (inner == "frames") out += 's';
      continue;
    }
    const bool percent = inner.ends_with(":%");
    if (percent) inner.remove_suffix(2);
    bool done = false;
    for (size_t i = 0; i < facts.size() && !done; ++i) {
      if (facts[i].name == inner) {
        out += FormatFact(facts[i].unit, s.facts[i], percent);
        done = true;
      }
    }
    for (size_t i = 0; i < s.text.size() && !done; ++i) {
      if (s.text[i].first == inner) {
        out += s.text[i].second == "n/a" ? unknown(inner) : s.text[i].second;
        done = true;
      }
    }
    if (!done) out += "unknown";  // validated at load; a text without a value
  }
  return out;
}

// Facts shared by every node-scope rule, computed once per Evaluate.
class NodeFacts {
 public:
  NodeFacts(const KnowledgePack& pack, const Snapshot& snapshot, const Analysis& analysis)
      : pack_(pack),
        snapshot_(snapshot),
        a_(analysis),
        spike_(snapshot.network.size(), -1),
        downstream_(snapshot.network.size()),
        data_out_(snapshot.network.size()),
        data_in_(snapshot.network.size()) {
    for (size_t i = 0; i < a_.spikes.size(); ++i) {
      if (spike_[a_.spikes[i].node] < 0) spike_[a_.spikes[i].node] = static_cast<int>(i);
    }
    for (const auto& e : snapshot.network.edges()) {
      if (e.kind == EdgeKind::kData) {
        data_out_[e.from].push_back(e.to);
        data_in_[e.to].push_back(e.from);  // in edge order, as CapsIn reads them
      }
    }
    for (NodeIndex i = 0; i < snapshot.network.size(); ++i) {
      queue_.push_back(IsQueue(pack, snapshot.network.node(i)));
    }
    // GStreamer: each node's streaming thread, the one where it spent the most.
    if (snapshot.streaming) {
      std::vector<double> best(snapshot.network.size(), -1);
      thread_of_.assign(snapshot.network.size(), nullptr);
      for (const StreamingThread& t : snapshot.streaming->threads) {
        for (size_t k = 0; k < t.elements.size(); ++k) {
          const NodeIndex e = t.elements[k];
          if (e < best.size() && t.element_ms[k] > best[e]) {
            best[e] = t.element_ms[k];
            thread_of_[e] = &t;
          }
        }
      }
    }
  }

  Subject Make(NodeIndex n) {
    const Network& net = snapshot_.network;
    const NodeStats& st = a_.stats[n];
    Subject s;
    s.node = &net.node(n);
    s.nodes = {n};
    s.order = n;
    auto flag = [](bool b) { return std::optional<double>(b ? 1.0 : 0.0); };
    auto ratio = [&](double x) {
      return st.p50_ms > 0 ? std::optional<double>(x / st.p50_ms) : std::nullopt;
    };
    const Spike* spike = spike_[n] >= 0 ? &a_.spikes[spike_[n]] : nullptr;
    const StreamingThread* thread = n < thread_of_.size() ? thread_of_[n] : nullptr;
    const bool queue = queue_[n];
    std::optional<double> down_ms, down_share;
    std::string down_id;
    if (queue) {
      if (const auto d = Downstream(n)) {
        down_ms = a_.stats[*d].per_frame_ms;
        down_share = a_.stats[*d].share;
        down_id = net.node(*d).id;
        s.nodes.push_back(*d);
      }
    }
    std::optional<double> pixels;
    for (auto [w, h] : {std::pair{"resolutionw", "resolutionh"}, std::pair{"width", "height"}}) {
      const std::string* pw = FindParam(*s.node, w);
      const std::string* ph = FindParam(*s.node, h);
      const auto nw = pw ? ParseNumber(*pw) : std::nullopt;
      const auto nh = ph ? ParseNumber(*ph) : std::nullopt;
      if (nw && nh && !pixels) pixels = *nw * *nh;
    }
    // The order of kNodeFacts in pack_schema.cc.
    s.facts = {st.per_frame_ms,
               st.avg_ms,
               st.std_ms,
               st.score,
               st.p50_ms,
               st.p95_ms,
               st.p99_ms,
               st.max_ms,
               st.share,
               static_cast<double>(st.cooked_frames),
               st.cooks_per_frame,
               st.gpu_avg_ms,
               st.cpu_mem_mb,
               st.gpu_mem_mb,
               a_.upstream_ms[n],
               flag(a_.dead[n]),
               flag(a_.in_loop[n]),
               flag(a_.on_critical_path[n]),
               flag(s.node->output),
               spike ? static_cast<double>(spike->frames) : 0.0,
               spike ? spike->excess_ms : 0.0,
               spike ? spike->max_excess_ms : 0.0,
               spike ? spike->share_of_overrun : 0.0,
               ratio(st.p99_ms),
               ratio(st.max_ms),
               flag(queue),
               queue ? st.per_frame_ms : 0.0,
               down_ms,
               down_share,
               pixels,
               thread && thread->cpu_load_pct ? std::optional<double>(*thread->cpu_load_pct / 100)
                                              : std::nullopt,
               thread ? thread->utilisation() : std::nullopt};
    s.text = {{"node", s.node->id},
              {"type", s.node->type},
              {"family", s.node->family},
              {"downstream", down_id.empty() ? "n/a" : down_id},
              {"engine", pack_.engine},
              {"budget_ms", fmt::format("{:.3f}", a_.budget_ms)},
              {"caps_in", CapsIn(n)},
              {"caps_out", CapsOut(*s.node)},
              {"name", LastSegment(s.node->id)},
              {"factory", Factory(s.node->type)}};
    // A queue's time is waiting (the pack's queue_types): the gain is that
    // of the node it waits for, named.
    s.gain_nodes = {n};
    if (queue && s.nodes.size() > 1) {
      s.gain_nodes = {s.nodes[1]};
      s.gain_subject.text = down_id;
    }
    return s;
  }

  // "/pipeline0/bin_cam1/queue0" -> "queue0": a GStreamer element's name.
  static std::string LastSegment(std::string_view id) {
    const size_t slash = id.rfind('/');
    return std::string(slash == std::string_view::npos ? id : id.substr(slash + 1));
  }

  // "GstVideoConvert" -> "videoconvert": the gst-launch-1.0 element name of
  // a GStreamer type (the type lower case, without its "Gst" prefix).
  static std::string Factory(std::string_view type) {
    if (type.starts_with("Gst")) type.remove_prefix(3);
    return AsciiLower(type);
  }

  // The caps (`<pad>::caps` params of the GStreamer reader) out of `node`:
  // its first src pad's, cut to the media type and three fields; "n/a" = none.
  static std::string CapsOut(const Node& node) {
    for (const auto& [key, value] : node.params) {
      if (key.ends_with("::caps")) return ShortCaps(value);
    }
    return "n/a";
  }

  // The caps into node `n`: those of the one src pad of an upstream node that
  // feeds it (the pad whose `<pad>::peer` names `n` when it has several).
  std::string CapsIn(NodeIndex n) const {
    const Network& net = snapshot_.network;
    for (const NodeIndex from : data_in_[n]) {
      const Node& up = net.node(from);
      const std::string* only = nullptr;
      int caps = 0;
      for (const auto& [key, value] : up.params) {
        if (!key.ends_with("::caps")) continue;
        ++caps;
        only = &value;
        const std::string pad = key.substr(0, key.size() - 6);
        const std::string* peer = FindParam(up, pad + "::peer");
        if (peer && *peer == net.node(n).id) return ShortCaps(value);
      }
      if (caps == 1) return ShortCaps(*only);
    }
    return "n/a";
  }

  static std::string ShortCaps(std::string_view caps) {
    size_t from = 0;
    for (int fields = 0; fields < 4; ++fields) {
      const size_t comma = caps.find(", ", from);
      if (comma == std::string_view::npos) return std::string(caps);
      from = comma + 2;
    }
    return std::string(caps.substr(0, from - 2)) + ", …";
  }

 private:
  // The costliest node (per_frame_ms) reachable from queue `q` through data
  // edges without passing another queue: the work of the thread the queue
  // feeds, which is what its buffers wait for. Ties go to the lower index.
  std::optional<NodeIndex> Downstream(NodeIndex q) {
    if (downstream_[q].first) return downstream_[q].second;
    std::vector<bool> seen(snapshot_.network.size(), false);
    std::deque<NodeIndex> todo(data_out_[q].begin(), data_out_[q].end());
    std::optional<NodeIndex> best;
    seen[q] = true;
    while (!todo.empty()) {
      const NodeIndex n = todo.front();
      todo.pop_front();
      if (seen[n]) continue;
      seen[n] = true;
      if (queue_[n]) continue;
      const double cost = a_.stats[n].per_frame_ms;
      if (cost > 0 && (!best || cost > a_.stats[*best].per_frame_ms ||
                       (cost == a_.stats[*best].per_frame_ms && n < *best))) {
        best = n;
      }
      for (NodeIndex m : data_out_[n]) todo.push_back(m);
    }
    downstream_[q] = {true, best};
    return best;
  }

  const KnowledgePack& pack_;
  const Snapshot& snapshot_;
  const Analysis& a_;
  std::vector<int> spike_;  // node -> index into spikes; -1 = none
  std::vector<std::pair<bool, std::optional<NodeIndex>>> downstream_;  // cached walks
  std::vector<std::vector<NodeIndex>> data_out_;
  std::vector<std::vector<NodeIndex>> data_in_;  // data inputs of each node (CapsIn), O(1) to find
  std::vector<bool> queue_;
  std::vector<const StreamingThread*> thread_of_;  // GStreamer: node -> its thread
};

struct Ranked {
  Finding finding;
  double per_frame_ms = 0;
  double share = 0;
};

// What a finding is ordered by when gains are predicted: its fix's saving.
double GainMs(const Finding& f) { return f.gain ? f.gain->ms() : 0.0; }

// The rule's snippet filled in for `s`, and said in the suggestion; a snippet
// that needs a value the snapshot lacks is left out, and the suggestion says
// which (docs/architecture.md#advice-ordered-by-impact).
void AddSnippet(const KnowledgePack& pack, const Rule& rule, const Subject& s, Finding& f) {
  std::vector<std::string> missing;
  std::string snippet = Fill(rule.snippet, rule.scope, s, "frame", &missing);
  const std::string label = !rule.snippet_label.empty()  ? rule.snippet_label
                            : !pack.snippet_label.empty() ? pack.snippet_label
                                                          : "Code";
  if (missing.empty()) {
    f.snippet = std::move(snippet);
    f.docs = rule.snippet_docs;
    f.suggestion += fmt::format(" {}: `{}`", label, f.snippet);
    return;
  }
  std::string names;
  for (size_t i = 0; i < missing.size(); ++i) {
    if (std::find(missing.begin(), missing.begin() + i, missing[i]) != missing.begin() + i)
      continue;
    names += (names.empty() ? "" : ", ") + missing[i];
  }
  f.suggestion += fmt::format(" (No {} line: the snapshot gives no usable {} here.)", label, names);
}

double FactOr0(const Subject& s, RuleScope scope, std::string_view name) {
  const auto facts = ScopeFacts(scope);
  for (size_t i = 0; i < facts.size(); ++i) {
    if (facts[i].name == name) return s.facts[i].value_or(0);
  }
  return 0;
}

}  // namespace

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "info";
}

std::vector<Finding> Evaluate(const KnowledgePack& pack, const Snapshot& snapshot,
                              const Analysis& analysis, const EvaluateOptions& options) {
  NodeFacts node_facts(pack, snapshot, analysis);
  std::optional<std::vector<Subject>> loops, paths, frames, gpu, threads;
  std::vector<Ranked> ranked;
  for (const Rule& rule : pack.rules) {
    std::vector<Subject> hits;
    auto consider = [&](Subject s) {
      if (Holds(rule.when, s)) hits.push_back(std::move(s));
    };
    switch (rule.scope) {
      case RuleScope::kNode:
        for (NodeIndex n = 0; n < snapshot.network.size(); ++n) {
          if (NodeMatches(rule.match, snapshot.network.node(n))) consider(node_facts.Make(n));
        }
        break;
      case RuleScope::kLoop:
        if (!loops) loops = LoopSubjects(snapshot, analysis, pack.engine);
        for (const auto& s : *loops) consider(s);
        break;
      case RuleScope::kCriticalPath:
        if (!paths) paths = PathSubjects(snapshot, analysis, pack.engine);
        for (const auto& s : *paths) consider(s);
        break;
      case RuleScope::kFrames:
        if (!frames) frames = FrameSubjects(snapshot, analysis, pack.engine);
        for (const auto& s : *frames) consider(s);
        break;
      case RuleScope::kGpu:
        if (!gpu) gpu = GpuSubjects(analysis, pack.engine);
        for (const auto& s : *gpu) consider(s);
        break;
      case RuleScope::kThread:
        if (!threads) threads = ThreadSubjects(snapshot, analysis, pack.engine);
        for (const auto& s : *threads) consider(s);
        break;
    }
    std::stable_sort(hits.begin(), hits.end(), [&](const Subject& x, const Subject& y) {
      const double a = x.facts[rule.order_by].value_or(0), b = y.facts[rule.order_by].value_or(0);
      if (a != b) return a > b;
      return x.order < y.order;
    });
    if (hits.size() > rule.limit) hits.resize(rule.limit);
    const auto facts = ScopeFacts(rule.scope);
    for (const Subject& s : hits) {
      Ranked r;
      r.finding.rule = rule.id;
      r.finding.severity = rule.severity;
      r.finding.title = Fill(rule.title, rule.scope, s, snapshot.info.frame_word());
      r.finding.suggestion = Fill(rule.suggestion, rule.scope, s, snapshot.info.frame_word());
      r.finding.nodes = s.nodes;
      if (options.whatif && !s.gain_nodes.empty()) {
        r.finding.gain = PredictGain(*options.whatif, analysis, s.gain_nodes, rule.fix_factor);
        if (r.finding.gain) {
          r.finding.suggestion +=
              " " + GainSentence(*r.finding.gain, s.gain_subject, snapshot.info.frame_word());
        }
      }
      if (!rule.snippet.empty()) AddSnippet(pack, rule, s, r.finding);
      for (size_t e : rule.evidence) {
        if (s.facts[e]) r.finding.numbers.emplace_back(std::string(facts[e].name), *s.facts[e]);
      }
      r.per_frame_ms = rule.scope == RuleScope::kFrames   ? FactOr0(s, rule.scope, "mean_frame_ms")
                       : rule.scope == RuleScope::kGpu    ? FactOr0(s, rule.scope, "idle_ms")
                       : rule.scope == RuleScope::kThread ? FactOr0(s, rule.scope, "busy_ms_per_buffer")
                                                          : FactOr0(s, rule.scope, "per_frame_ms");
      r.share = rule.scope == RuleScope::kFrames ? FactOr0(s, rule.scope, "over_budget_share")
                                                 : FactOr0(s, rule.scope, "share");
      ranked.push_back(std::move(r));
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& x, const Ranked& y) {
    if (x.finding.severity != y.finding.severity) return x.finding.severity > y.finding.severity;
    if (x.per_frame_ms != y.per_frame_ms) return x.per_frame_ms > y.per_frame_ms;
    if (x.share != y.share) return x.share > y.share;
    if (x.finding.rule != y.finding.rule) return x.finding.rule < y.finding.rule;
    const NodeIndex a = x.finding.nodes.empty() ? 0 : x.finding.nodes[0];
    const NodeIndex b = y.finding.nodes.empty() ? 0 : y.finding.nodes[0];
    return a < b;
  });
  // With predictions, what pays most comes first (with frames over the
  // budget, the over-budget frames a fix saves before its ms); equal gains
  // (and findings without one, as 0) keep the order above.
  if (options.whatif) {
    const bool frames_first = FramesFirst(*options.whatif);
    std::stable_sort(ranked.begin(), ranked.end(), [&](const Ranked& x, const Ranked& y) {
      if (frames_first) {
        const int64_t fx = x.finding.gain ? x.finding.gain->frames() : 0;
        const int64_t fy = y.finding.gain ? y.finding.gain->frames() : 0;
        if (fx != fy) return fx > fy;
      }
      return GainMs(x.finding) > GainMs(y.finding);
    });
  }
  std::vector<Finding> out;
  out.reserve(ranked.size());
  for (auto& r : ranked) out.push_back(std::move(r.finding));
  return out;
}

}  // namespace cookgraph
