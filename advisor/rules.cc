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
#include "base/text.h"

namespace cookgraph {
namespace {

using Facts = std::vector<std::optional<double>>;

// One thing a rule may fire on: a node, a loop, the critical path, the frames.
struct Subject {
  Facts facts;                                                 // parallel to ScopeFacts(scope)
  std::vector<std::pair<std::string_view, std::string>> text;  // text placeholders
  const Node* node = nullptr;                                  // node scope: for params
  std::vector<NodeIndex> nodes;
  size_t order = 0;  // position among subjects of the scope, for ties
  // What the predicted gain changes (docs/architecture.md#advice-ordered-by-impact),
  // and how the sentence names it; empty = no prediction (a rank's GPU time).
  std::vector<NodeIndex> gain_nodes;
  GainSubject gain_subject;
};

std::optional<double> ParseNumber(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

bool CompareNumber(Comparison::Op op, double a, double b) {
  switch (op) {
    case Comparison::Op::kGt:
      return a > b;
    case Comparison::Op::kGe:
      return a >= b;
    case Comparison::Op::kLt:
      return a < b;
    case Comparison::Op::kLe:
      return a <= b;
    case Comparison::Op::kEq:
      return a == b;
    case Comparison::Op::kNe:
      return a != b;
    default:
      return false;
  }
}

bool CompareFact(const Comparison& cmp, double value) {
  switch (cmp.op) {
    case Comparison::Op::kIs:
      return (value != 0) == (*cmp.number != 0);
    case Comparison::Op::kIn:
      return std::any_of(cmp.texts.begin(), cmp.texts.end(), [&](const std::string& t) {
        const auto n = ParseNumber(t);
        return n && *n == value;
      });
    case Comparison::Op::kMatches:
      return false;
    default:
      return CompareNumber(cmp.op, value, *cmp.number);
  }
}

bool CompareParam(const Comparison& cmp, const std::string& value) {
  const auto number = ParseNumber(value);
  switch (cmp.op) {
    case Comparison::Op::kIn:
      return std::any_of(cmp.texts.begin(), cmp.texts.end(),
                         [&](const std::string& t) { return AsciiLower(t) == AsciiLower(value); });
    case Comparison::Op::kMatches:
      return PatternMatches(Pattern{cmp.texts[0], std::nullopt}, value);
    case Comparison::Op::kIs: {
      const std::string v = AsciiLower(value);
      const bool on = v == "on" || v == "true" || v == "1" || v == "yes";
      return on == (*cmp.number != 0);
    }
    case Comparison::Op::kEq:
    case Comparison::Op::kNe:
      if (!cmp.texts.empty() && !(cmp.number && number)) {
        return (AsciiLower(cmp.texts[0]) == AsciiLower(value)) == (cmp.op == Comparison::Op::kEq);
      }
      [[fallthrough]];
    default:
      return number && cmp.number && CompareNumber(cmp.op, *number, *cmp.number);
  }
}

bool Holds(const Condition& c, const Subject& s) {
  switch (c.kind) {
    case Condition::Kind::kAll:
      return std::all_of(c.children.begin(), c.children.end(),
                         [&](const Condition& k) { return Holds(k, s); });
    case Condition::Kind::kAny:
      return std::any_of(c.children.begin(), c.children.end(),
                         [&](const Condition& k) { return Holds(k, s); });
    case Condition::Kind::kNot:
      return !Holds(c.children[0], s);
    case Condition::Kind::kFact: {
      const auto& v = s.facts[c.fact];
      if (!v) return false;
      return std::all_of(c.comparisons.begin(), c.comparisons.end(),
                         [&](const Comparison& cmp) { return CompareFact(cmp, *v); });
    }
    case Condition::Kind::kParam: {
      const std::string* v = s.node ? FindParam(*s.node, c.param) : nullptr;
      if (v == nullptr) return false;
      return std::all_of(c.comparisons.begin(), c.comparisons.end(),
                         [&](const Comparison& cmp) { return CompareParam(cmp, *v); });
    }
  }
  return false;
}

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

// The ids of `nodes` joined by `sep`; a list longer than 2 * keep_each_end + 1
// keeps keep_each_end ids at each end, "(N more)" between them.
std::string JoinIds(const Network& net, const std::vector<NodeIndex>& nodes, std::string_view sep,
                    size_t keep_each_end) {
  std::string out;
  const size_t n = nodes.size();
  for (size_t i = 0; i < n; ++i) {
    if (n > 2 * keep_each_end + 1 && i == keep_each_end) {
      // The middle as one "(N more)"; the loop goes on with the last
      // keep_each_end ids, each written once.
      out += fmt::format("{}({} more)", i ? sep : "", n - 2 * keep_each_end);
      i = n - keep_each_end - 1;
      continue;
    }
    if (i) out += sep;
    out += net.node(nodes[i]).id;
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

// One subject per GStreamer streaming thread with work (model/gstreamer_threads.h).
std::vector<Subject> ThreadSubjects(const Snapshot& snapshot, const Analysis& a,
                                    const std::string& engine) {
  if (!snapshot.streaming) return {};
  const Streaming& st = *snapshot.streaming;
  const Network& net = snapshot.network;
  std::vector<Subject> out;
  for (size_t i = 0; i < st.threads.size(); ++i) {
    const StreamingThread& t = st.threads[i];
    const auto costliest = t.costliest();
    if (!costliest) continue;
    double work = 0, element = 0;
    std::vector<NodeIndex> working;
    for (size_t k = 0; k < t.elements.size(); ++k) {
      if (!t.work[k]) continue;
      work += t.element_ms[k];
      working.push_back(t.elements[k]);
      if (t.elements[k] == *costliest) element = t.element_ms[k];
    }
    const double buffers = static_cast<double>(std::max<size_t>(t.buffers, 1));
    Subject s;
    s.order = i;
    s.nodes = {*costliest};
    for (NodeIndex n : working) {
      if (n != *costliest) s.nodes.push_back(n);
    }
    // The order of kThreadFacts in pack_schema.cc.
    s.facts = {t.busy_ms_per_buffer,
               t.buffer_period_ms,
               t.utilisation(),
               t.buffer_period_ms ? std::optional<double>(*t.buffer_period_ms - t.busy_ms_per_buffer)
                                  : std::nullopt,
               t.cpu_load_pct ? std::optional<double>(*t.cpu_load_pct / 100) : std::nullopt,
               st.bottleneck == i ? 1.0 : 0.0,
               static_cast<double>(t.buffers),
               element / buffers,
               work > 0 ? std::optional<double>(element / work) : std::nullopt,
               static_cast<double>(st.threads.size())};
    s.gain_nodes = {*costliest};
    s.gain_subject.text = net.node(*costliest).id;
    s.text = {{"thread", t.label()},
              {"thread_name", t.name.empty() ? t.label() : t.name},
              {"element", net.node(*costliest).id},
              {"elements", JoinIds(net, working, " → ", 3)},
              {"engine", engine},
              {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Subject> LoopSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine) {
  std::vector<Subject> out;
  const Network& net = snapshot.network;
  for (size_t i = 0; i < a.loops.size(); ++i) {
    const LoopReport& loop = a.loops[i];
    Subject s;
    s.order = i;
    s.nodes = loop.loop.nodes;
    std::stable_sort(s.nodes.begin(), s.nodes.end(), [&](NodeIndex x, NodeIndex y) {
      return a.stats[x].per_frame_ms > a.stats[y].per_frame_ms;
    });
    const double costliest = s.nodes.empty() ? 0 : a.stats[s.nodes[0]].per_frame_ms;
    s.gain_nodes = s.nodes;
    s.gain_subject = {fmt::format("the loop's {} nodes", s.nodes.size()), s.nodes.size() > 1};
    s.facts = {loop.per_frame_ms, a.frames.mean_ms > 0 ? loop.per_frame_ms / a.frames.mean_ms : 0.0,
               static_cast<double>(loop.loop.nodes.size()), costliest};
    s.text = {{"loop_nodes", JoinIds(net, loop.loop.nodes, ", ", 4)},
              {"loop_kind", std::string(LoopKindName(loop.loop.kind))},
              {"costliest", s.nodes.empty() ? "n/a" : net.node(s.nodes[0]).id},
              {"engine", engine},
              {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Subject> PathSubjects(const Snapshot& snapshot, const Analysis& a,
                                  const std::string& engine) {
  const Network& net = snapshot.network;
  const Path& path = a.critical_path;
  if (path.nodes.empty()) return {};
  Subject s;
  s.nodes = path.nodes;
  NodeIndex costliest = path.nodes[0];
  for (NodeIndex n : path.nodes) {
    if (a.stats[n].per_frame_ms > a.stats[costliest].per_frame_ms) costliest = n;
  }
  s.gain_nodes = {costliest};
  s.gain_subject.text = "its costliest node " + net.node(costliest).id;
  // A trace's path is one step's (or the whole trace's) events: its share is
  // of that window, not of the mean step, and it is said per step.
  double share = a.frames.mean_ms > 0 ? path.weight / a.frames.mean_ms : 0.0;
  const std::string_view unit = snapshot.info.frame_word();
  std::string window = fmt::format("per {}", unit), of = fmt::format("of the mean {}", unit);
  if (a.trace && a.trace->path) {
    const StepPath& p = *a.trace->path;
    share = p.window_ms > 0 ? p.length_ms / p.window_ms : 0.0;
    window = p.step ? fmt::format("in step {}", *p.step) : std::string("over the trace");
    of = fmt::format("of {} {:.3f} ms", p.step ? "the step's" : "the trace's", p.window_ms);
  }
  s.facts = {path.weight, share, static_cast<double>(path.nodes.size())};
  s.text = {{"path_window", window},
            {"path_of", of},
            {"path_nodes", JoinIds(net, path.nodes, " -> ", 3)},
            {"first", net.node(path.nodes.front()).id},
            {"last", net.node(path.nodes.back()).id},
            {"costliest", net.node(costliest).id},
            {"engine", engine},
            {"budget_ms", fmt::format("{:.3f}", a.budget_ms)}};
  return {std::move(s)};
}

std::vector<Subject> FrameSubjects(const Snapshot& snapshot, const Analysis& a,
                                   const std::string& engine) {
  const FrameSummary& f = a.frames;
  if (f.frame_ms.empty()) return {};
  Subject s;
  double overrun = 0;
  for (size_t i : f.over_budget) overrun += f.frame_ms[i] - f.budget_ms;
  for (size_t i = 0; i < a.spikes.size() && i < 3; ++i) s.nodes.push_back(a.spikes[i].node);
  s.gain_nodes = s.nodes;
  if (s.nodes.size() == 1) {
    s.gain_subject.text = snapshot.network.node(s.nodes[0]).id;
  } else if (s.nodes.size() > 1) {
    s.gain_subject = {fmt::format("the {} nodes that grow most", s.nodes.size()), true};
  }
  // ONNX Runtime's time outside nodes (metrics/outside_nodes.h), where measured.
  std::optional<double> outside_ms, outside_share, node_threads;
  if (a.trace && a.trace->outside) {
    outside_ms = a.trace->outside->mean_ms;
    outside_share = a.trace->outside->share;
    node_threads = static_cast<double>(a.trace->outside->node_tracks);
  }
  const double count = static_cast<double>(f.counted);
  const double over = static_cast<double>(f.over_budget.size());
  s.facts = {overrun,
             f.mean_ms,
             f.p95_ms,
             f.max_ms,
             f.budget_ms,
             count,
             over,
             over / count,
             f.budget_ms > 0 ? std::optional<double>(f.mean_ms / f.budget_ms) : std::nullopt,
             outside_ms,
             outside_share,
             node_threads};
  s.text = {{"worst_nodes", s.nodes.empty()
                                ? "none (no node spikes in those frames: they are slow throughout)"
                                : JoinIds(snapshot.network, s.nodes, ", ", 3)},
            {"engine", engine}};
  return {std::move(s)};
}

// One subject per rank with GPU work: its breakdown, the job's launches and
// memory, and the straggler (metrics/trace_summary.h).
std::vector<Subject> GpuSubjects(const Analysis& a, const std::string& engine) {
  if (!a.trace || a.trace->gpu.empty()) return {};
  const TraceSummary& t = *a.trace;
  const LaunchStats& l = t.gpu.launches;
  std::vector<Subject> out;
  for (size_t i = 0; i < t.gpu.ranks.size(); ++i) {
    const RankGpuTime& r = t.gpu.ranks[i];
    Subject s;
    s.order = i;
    const double span = r.kernel_span_ms;
    const double waits = r.host_wait_ms() + r.kernel_wait_ms() + r.other_wait_ms();
    auto share = [](double part, double whole) -> std::optional<double> {
      return whole > 0 ? std::optional<double>(part / whole) : std::nullopt;
    };
    double peak_mb = 0;
    std::optional<double> peak_share;
    std::string memory_device = "n/a";
    for (const MemoryPeak& m : t.memory) {
      if (m.rank != r.rank || m.device == "cpu") continue;
      if (m.peak_reserved_mb > peak_mb) {
        peak_mb = m.peak_reserved_mb;
        memory_device = m.device;
        peak_share = share(m.peak_reserved_mb, m.total_mb);
      }
    }
    double straggler = 0;
    int64_t straggler_step = -1;
    double mean_step = 0;
    for (const RankSteps& rs : t.ranks) {
      if (rs.rank != r.rank) continue;
      for (size_t k = 0; k < rs.steps.size(); ++k) {
        mean_step += rs.step_ms[k] / static_cast<double>(rs.steps.size());
        if (rs.straggler_ms[k] && *rs.straggler_ms[k] > straggler) {
          straggler = *rs.straggler_ms[k];
          straggler_step = rs.steps[k];
        }
      }
    }
    s.facts = {r.idle_ms,
               span,
               share(r.idle_ms, span),
               share(r.compute_ms, span),
               r.host_wait_ms(),
               share(r.host_wait_ms(), waits),
               r.kernel_wait_ms(),
               share(r.kernel_wait_ms(), waits),
               static_cast<double>(l.count),
               static_cast<double>(l.kernels_under_10us),
               share(static_cast<double>(l.kernels_under_10us), static_cast<double>(l.count)),
               l.count > 0 ? std::optional<double>(l.delay_p50_ms) : std::nullopt,
               l.count > 0 ? std::optional<double>(l.delay_p95_ms) : std::nullopt,
               l.cpu_ms,
               r.communication_ms,
               share(t.gpu.overlap.overlapped_ms, t.gpu.overlap.communication_ms),
               peak_mb,
               peak_share,
               straggler,
               share(straggler, mean_step)};
    std::string ops;
    for (size_t k = 0; k < r.host_wait_ops.size() && k < 3; ++k) {
      ops += fmt::format("{}{} ({:.3f} ms)", k ? ", " : "", r.host_wait_ops[k].name,
                         r.host_wait_ops[k].ms);
    }
    s.text = {{"rank", std::to_string(r.rank)},
              {"host_ops", ops.empty() ? "n/a" : ops},
              {"device", r.streams.empty() ? "n/a" : r.streams[0].label},
              {"engine", engine},
              {"straggler_step", straggler_step >= 0 ? std::to_string(straggler_step) : "n/a"},
              {"memory_device", memory_device}};
    out.push_back(std::move(s));
  }
  return out;
}

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
