// Slices on threads: B/E pairing, nesting into parents and self time, and the
// binding of flow events to the slices they start or end on. Everything here
// works per thread on records sorted by time, so the input's order of events
// does not matter (ties keep the file's order).

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "adapters/chrome/records.h"
#include "graph/parallel.h"

namespace cookgraph::chrome {

std::vector<std::string> PairBeginEnd(TraceRecords& r) {
  std::vector<uint32_t> order(r.marks.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const Mark& x = r.marks[a];
    const Mark& y = r.marks[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.ts != y.ts) return x.ts < y.ts;
    return x.event < y.event;
  });
  std::vector<uint32_t> slice_of(r.marks.size(), kNone);  // B mark -> its slice
  Tally unmatched_begin, unmatched_end;
  std::vector<uint32_t> open;  // B marks of the current thread, innermost last
  auto close_thread = [&] {
    for (uint32_t b : open) {
      unmatched_begin.Add(
          fmt::format("'{}', traceEvents[{}]", r.strings.str(r.marks[b].name), r.marks[b].event));
    }
    open.clear();
  };
  for (size_t i = 0; i < order.size(); ++i) {
    const Mark& m = r.marks[order[i]];
    if (i > 0 && r.marks[order[i - 1]].thread != m.thread) close_thread();
    if (m.begin) {
      open.push_back(order[i]);
      continue;
    }
    if (open.empty()) {
      unmatched_end.Add(fmt::format("traceEvents[{}]", m.event));
      continue;
    }
    const Mark& b = r.marks[open.back()];
    slice_of[open.back()] = static_cast<uint32_t>(r.slices.size());
    open.pop_back();
    r.AddSlice(Slice{.start = b.ts,
                     .end = m.ts,
                     .name = b.name,
                     .cat = b.cat,
                     .thread = b.thread,
                     .event = b.event,
                     .correlation = b.correlation},
               SliceTags{.label = b.label, .type = b.type});
  }
  close_thread();
  for (FlowMark& flow : r.flows) {
    if (!flow.on_mark) continue;
    flow.slice = slice_of[flow.slice];
    flow.on_mark = false;
  }
  std::vector<Mark>().swap(r.marks);

  std::vector<std::string> warnings;
  if (unmatched_end.count > 0) {
    warnings.push_back(
        fmt::format("{} E event(s) close no open B on their thread and were ignored (first: {})",
                    unmatched_end.count, unmatched_end.first));
  }
  if (unmatched_begin.count > 0) {
    warnings.push_back(fmt::format(
        "{} B event(s) are never closed by an E on their thread and were ignored (first: {})",
        unmatched_begin.count, unmatched_begin.first));
  }
  return warnings;
}

namespace {

// The pid part of an interned "pid\x1Ftid".
std::string_view PidOf(const TraceRecords& r, uint32_t thread) {
  const std::string_view t = r.strings.str(thread);
  return t.substr(0, t.find('\x1F'));
}

// Per process (pid): the one thread with kept slices of category cpu_op or
// user_annotation whose name contains `word`, not counting `besides`' thread
// of that process; a process with none or with several has no entry.
std::map<std::string_view, uint32_t> ThreadsNaming(
    const TraceRecords& r, const Nesting& n, std::string_view word,
    const std::map<std::string_view, uint32_t>& besides = {}) {
  std::map<std::string_view, uint32_t> found;
  std::set<std::string_view> several;
  for (const auto& [thread, range] : n.threads) {
    const std::string_view pid = PidOf(r, thread);
    if (auto b = besides.find(pid); b != besides.end() && b->second == thread) continue;
    for (uint32_t pos = range.first; pos < range.second; ++pos) {
      const Slice& s = r.slices[n.order[pos]];
      if (s.cat == kNone) continue;
      const std::string_view cat = r.strings.str(s.cat);
      if ((cat == "cpu_op" || cat == "user_annotation") &&
          r.strings.str(s.name).find(word) != std::string_view::npos) {
        if (!found.emplace(pid, thread).second) several.insert(pid);
        break;
      }
    }
  }
  for (std::string_view pid : several) found.erase(pid);
  return found;
}

// PyTorch runs the backward pass on its autograd thread while the forward
// thread waits in it (`loss.backward()`, often inside a `## backward ##`
// annotation): that wait is not the forward thread's work, whether the
// autograd thread is running ops or itself waiting for the GPU. The threads
// are found as Holistic Trace Analysis' critical path finds the two it merges
// (critical_path_analysis.py _get_fwd_tid/_get_bwd_tid: the one thread with
// cpu_op or user_annotation events named "...forward...", the one with
// "...autograd..."). A slice of the forward thread that holds the backward
// pass as seen from it (from the start of the first to the end of the last
// autograd-thread slice that overlaps it, all inside it) loses from its self
// time the part of its own time (its span less its direct children) inside
// that pass; a forward slice the pass only partly overlaps keeps its time
// (work beside the pass, not a wait for it). Per process (a job's ranks are
// read together); unlike HTA, the forward thread's own autograd events do
// not stop the autograd thread from being found
// (docs/formats.md#backward-thread).
void SubtractBackwardWork(const TraceRecords& r, const std::vector<bool>& flat, Nesting& n,
                          uint32_t fwd, uint32_t bwd) {
  // The union of the autograd thread's slices, sorted, disjoint (the same as
  // that of its outermost ones, a slice outliving its parent included).
  std::vector<std::pair<int64_t, int64_t>> cover;
  const auto [blo, bhi] = n.threads.at(bwd);
  for (uint32_t pos = blo; pos < bhi; ++pos) {
    const uint32_t s = n.order[pos];
    if (flat[s]) continue;
    const Slice& slice = r.slices[s];
    // Overlapping slices merge; touching ones stay apart, so that the first
    // slice overlapping a span is where the pass starts for it.
    if (!cover.empty() && slice.start < cover.back().second) {
      cover.back().second = std::max(cover.back().second, slice.end);
    } else {
      cover.emplace_back(slice.start, slice.end);
    }
  }
  if (cover.empty()) return;
  // The backward pass as seen from [lo, hi): from the first start to the last
  // end of the autograd work overlapping it; empty when none overlaps or the
  // pass does not lie inside [lo, hi).
  auto window = [&](int64_t lo, int64_t hi) -> std::pair<int64_t, int64_t> {
    auto first = std::partition_point(cover.begin(), cover.end(),
                                      [&](const auto& c) { return c.second <= lo; });
    auto past = std::partition_point(first, cover.end(),
                                     [&](const auto& c) { return c.first < hi; });
    if (first == past || first->first < lo || (past - 1)->second > hi) return {0, 0};
    return {first->first, (past - 1)->second};
  };
  auto overlap = [](std::pair<int64_t, int64_t> w, int64_t lo, int64_t hi) {
    return std::max<int64_t>(0, std::min(w.second, hi) - std::max(w.first, lo));
  };
  const auto [flo, fhi] = n.threads.at(fwd);
  std::unordered_map<uint32_t, std::pair<int64_t, int64_t>> windows;
  std::unordered_map<uint32_t, int64_t> cut;  // per forward slice: its own time in the pass
  for (uint32_t pos = flo; pos < fhi; ++pos) {
    const uint32_t s = n.order[pos];
    if (flat[s]) continue;
    const auto w = window(r.slices[s].start, r.slices[s].end);
    if (w.second > w.first) {
      windows.emplace(s, w);
      cut.emplace(s, w.second - w.first);
    }
  }
  for (uint32_t pos = flo; pos < fhi; ++pos) {
    const uint32_t s = n.order[pos];
    const uint32_t p = n.parent[s];
    if (flat[s] || p == kNone) continue;
    auto w = windows.find(p);
    if (w == windows.end()) continue;
    cut[p] -= overlap(w->second, r.slices[s].start, std::min(r.slices[s].end, r.slices[p].end));
  }
  for (const auto& [s, ns] : cut) n.self_ns[s] -= std::max<int64_t>(ns, 0);
}

void SubtractBackwardWork(const TraceRecords& r, const std::vector<bool>& flat, Nesting& n) {
  const auto fwd = ThreadsNaming(r, n, "forward");
  if (fwd.empty()) return;
  for (const auto& [pid, bwd] : ThreadsNaming(r, n, "autograd", fwd)) {
    if (auto f = fwd.find(pid); f != fwd.end()) SubtractBackwardWork(r, flat, n, f->second, bwd);
  }
}

// Nesting::order, visible_order and by_start: the slices sorted by start, the
// outer one first, then file order; then by thread, a stable counting sort,
// for the nesting and the timeline (one sort for both: the timeline's slices
// include the kept ones), while the kept ones are also kept by start, for the
// nodes. The keys are copied next to each other: comparing through indexes
// into `slices` missed the cache on every comparison. Equal starts (a parent
// and its first child, on a clock of whole µs) look up their ends and events.
void SortSlices(const TraceRecords& r, const std::vector<bool>& keep,
                const std::vector<bool>& visible, Nesting& n) {
  const std::vector<Slice>& slices = r.slices;
  struct Key {
    int64_t start;
    uint32_t thread;
    uint32_t slice;
  };
  auto less = [&slices](const Key& x, const Key& y) {
    if (x.start != y.start) return x.start < y.start;
    const Slice& a = slices[x.slice];
    const Slice& b = slices[y.slice];
    if (a.end != b.end) return a.end > b.end;  // the outer one first
    if (a.event != b.event) return a.event < b.event;
    return x.slice < y.slice;  // a total order: the halves merge into the one sort
  };
  // A large trace's two halves of slices are keyed, counted by thread and
  // sorted on two cores, then merged into the orders.
  const bool parallel = slices.size() >= kParallelTraceItems;
  std::array<std::vector<Key>, 2> halves;
  std::array<std::vector<uint32_t>, 2> kept_in, visible_in;  // per half and thread: how many
  RunHalvesIf(parallel, slices.size(), [&](size_t from, size_t to, size_t half) {
    std::vector<Key>& keys = halves[half];
    kept_in[half].assign(r.strings.size(), 0);
    visible_in[half].assign(r.strings.size(), 0);
    keys.reserve(to - from);
    for (size_t i = from; i < to; ++i) {
      if (keep[i] || visible[i]) {
        keys.push_back({slices[i].start, slices[i].thread, static_cast<uint32_t>(i)});
        kept_in[half][slices[i].thread] += keep[i] ? 1 : 0;
        visible_in[half][slices[i].thread] += visible[i] ? 1 : 0;
      }
    }
    std::sort(keys.begin(), keys.end(), less);
  });
  // Where each thread's run starts and ends in each order.
  std::vector<uint32_t>& kept_at = kept_in[0];
  std::vector<uint32_t>& visible_at = visible_in[0];
  std::vector<uint32_t>& kept_end = kept_in[1];
  std::vector<uint32_t>& visible_end = visible_in[1];
  uint32_t kept = 0, shown = 0;
  for (uint32_t thread = 0; thread < kept_at.size(); ++thread) {
    const uint32_t k = kept_at[thread] + kept_end[thread];
    const uint32_t v = visible_at[thread] + visible_end[thread];
    kept_at[thread] = kept;
    visible_at[thread] = shown;
    kept += k;
    shown += v;
    kept_end[thread] = kept;
    visible_end[thread] = shown;
  }
  // The halves merged from both ends at once: the smaller keys from the front,
  // each thread's run written from its start; the larger from the back, each
  // run from its end. The order is total, so the two meet exactly.
  const size_t keys = halves[0].size() + halves[1].size();
  n.order.resize(kept);
  n.visible_order.resize(shown);
  n.by_start.resize(kept);
  const std::vector<Key>& x = halves[0];
  const std::vector<Key>& y = halves[1];
  auto front = [&] {
    size_t at = 0;
    for (size_t a = 0, b = 0; a + b < keys / 2;) {
      const Key& key = b == y.size() || (a < x.size() && less(x[a], y[b])) ? x[a++] : y[b++];
      if (keep[key.slice]) n.order[kept_at[key.thread]++] = n.by_start[at++] = key.slice;
      if (visible[key.slice]) n.visible_order[visible_at[key.thread]++] = key.slice;
    }
  };
  auto back = [&] {
    size_t at = n.by_start.size();
    for (size_t a = x.size(), b = y.size(); a + b > keys / 2;) {
      const Key& key = b == 0 || (a > 0 && less(y[b - 1], x[a - 1])) ? x[--a] : y[--b];
      if (keep[key.slice]) n.order[--kept_end[key.thread]] = n.by_start[--at] = key.slice;
      if (visible[key.slice]) n.visible_order[--visible_end[key.thread]] = key.slice;
    }
  };
  RunBothIf(keys >= kParallelTraceItems, front, back);
}

}  // namespace

Nesting NestSlices(const TraceRecords& r, const std::vector<bool>& keep,
                   const std::vector<bool>& flat, const std::vector<bool>& visible) {
  const std::vector<Slice>& slices = r.slices;
  Nesting n;
  n.kept = keep;
  n.parent.assign(slices.size(), kNone);
  n.self_ns.assign(slices.size(), 0);
  SortSlices(r, keep, visible, n);
  const bool parallel = slices.size() >= kParallelTraceItems;
  // Each thread's slices nest among themselves: a large trace's threads in
  // two runs, split where a thread ends past the middle of the order, each
  // with its own ranges and overlaps, joined in order.
  struct Run {
    std::vector<std::pair<uint32_t, std::pair<uint32_t, uint32_t>>> threads;
    uint64_t overlaps = 0;
    std::string first_overlap;
  };
  std::array<Run, 2> runs;
  size_t split = n.order.size();
  if (parallel) {
    split = n.order.size() / 2;
    while (split > 0 && split < n.order.size() &&
           slices[n.order[split - 1]].thread == slices[n.order[split]].thread) {
      ++split;
    }
  }
  auto nest = [&](size_t from, size_t to, Run& run) {
    std::vector<uint32_t> stack;  // the open slices of the current thread, innermost last
    for (size_t pos = from; pos < to; ++pos) {
      const uint32_t s = n.order[pos];
      const Slice& slice = slices[s];
      if (pos == from || slices[n.order[pos - 1]].thread != slice.thread) {
        stack.clear();
        run.threads.push_back({slice.thread, {static_cast<uint32_t>(pos), 0}});
      }
      run.threads.back().second.second = static_cast<uint32_t>(pos + 1);
      if (flat[s]) {
        n.self_ns[s] = slice.end - slice.start;
        continue;
      }
      // A slice that ends at or before this start is over: [start, end) spans.
      while (!stack.empty() && slices[stack.back()].end <= slice.start) stack.pop_back();
      n.self_ns[s] = slice.end - slice.start;
      if (!stack.empty()) {
        const uint32_t p = stack.back();
        n.parent[s] = p;
        // A slice that outlives its parent is subtracted only where they overlap.
        if (slice.end > slices[p].end && run.overlaps++ == 0) {
          run.first_overlap =
              fmt::format("'{}', traceEvents[{}]", r.strings.str(slice.name), slice.event);
        }
        n.self_ns[p] -= std::min(slice.end, slices[p].end) - slice.start;
      }
      stack.push_back(s);
    }
  };
  RunBothIf(
      parallel && split < n.order.size(), [&] { nest(0, split, runs[0]); },
      [&] { nest(split, n.order.size(), runs[1]); });
  for (Run& run : runs) {
    n.threads.insert(run.threads.begin(), run.threads.end());
    if (n.overlaps == 0) n.first_overlap = std::move(run.first_overlap);
    n.overlaps += run.overlaps;
  }
  SubtractBackwardWork(r, flat, n);
  for (int64_t& self : n.self_ns) self = std::max<int64_t>(self, 0);
  return n;
}

namespace {

// The kept slice a v1 flow event at `ts` on `thread` binds to, or kNone.
uint32_t BindFlow(const TraceRecords& r, const Nesting& n, const FlowMark& flow) {
  auto range = n.threads.find(flow.thread);
  if (range == n.threads.end()) return kNone;
  const auto lo = n.order.begin() + range->second.first;
  const auto hi = n.order.begin() + range->second.second;
  if (!flow.enclosing) {
    // The next slice: the first that starts at or after the flow event.
    auto next =
        std::partition_point(lo, hi, [&](uint32_t s) { return r.slices[s].start < flow.ts; });
    return next == hi ? kNone : *next;
  }
  // The enclosing slice: the deepest with start <= ts <= end. It is the last
  // slice starting at or before ts, or one of its ancestors.
  auto after =
      std::partition_point(lo, hi, [&](uint32_t s) { return r.slices[s].start <= flow.ts; });
  if (after == lo) return kNone;
  uint32_t s = *(after - 1);
  while (s != kNone && r.slices[s].end < flow.ts) s = n.parent[s];
  return s;
}

}  // namespace

std::vector<FlowLink> ResolveFlows(const TraceRecords& r, const Nesting& n, Tally& unbound) {
  const std::vector<FlowMark>& flows = r.flows;
  // Binding each flow event to its slice and ordering them by key are
  // independent: a large trace has them on two cores.
  std::vector<uint32_t> bound(flows.size(), kNone);
  // Binding takes longer than sorting: the flows are bound in chunks that
  // either thread takes, the sorting one once it has sorted. Each chunk
  // writes only its own flows' entries.
  constexpr size_t kChunk = 4096;
  std::atomic<size_t> next_chunk{0};
  auto bind = [&] {
    for (size_t lo = next_chunk.fetch_add(kChunk); lo < flows.size();
         lo = next_chunk.fetch_add(kChunk)) {
      for (size_t i = lo; i < std::min(flows.size(), lo + kChunk); ++i) {
        const FlowMark& flow = flows[i];
        if (flow.slice != kNone) {
          bound[i] = n.kept[flow.slice] ? flow.slice : kNone;  // v2: on its own slice
        } else if (!flow.on_mark) {
          bound[i] = BindFlow(r, n, flow);
        }
      }
    }
  };
  std::vector<uint32_t> order(flows.size());
  auto sort = [&] {
    // By key, time, phase, then file order; keys side by side, as in NestSlices.
    struct Key {
      FlowKey key;
      int64_t ts;
      uint32_t phase;
      uint32_t event;
      uint32_t flow;
    };
    std::vector<Key> keys(flows.size());
    for (uint32_t i = 0; i < flows.size(); ++i) {
      keys[i] = {flows[i].key, flows[i].ts, static_cast<uint32_t>(flows[i].phase), flows[i].event,
                 i};
    }
    std::sort(keys.begin(), keys.end(), [](const Key& x, const Key& y) {
      if (x.key != y.key) return x.key < y.key;
      if (x.ts != y.ts) return x.ts < y.ts;
      if (x.phase != y.phase) return x.phase < y.phase;
      return x.event < y.event;
    });
    for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].flow;
    bind();
  };
  // From 16k flows on (the largest fixture traces have 40k-65k, so that the
  // ThreadSanitizer batch runs this split).
  RunBothIf(flows.size() >= kParallelTraceItems, bind, sort);

  // Each key's events in time order: a start opens a flow, a step links the
  // open end to its slice and becomes the open end, an end links and closes.
  // Ends without a start are normal (Kineto writes them) and make nothing.
  // The links come out key by key in the order the keys first appear in the
  // file (a key's first flow event), as the edges are numbered from them.
  std::vector<FlowLink> walked;
  struct Run {
    uint32_t begin, end;  // the key's links in `walked`
  };
  std::vector<uint32_t> run_at(flows.size(), kNone);  // a key's first flow event -> its run
  std::vector<Run> runs;
  uint32_t lost_first = kNone;  // the first flow event of the key of the first lost one
  uint64_t lost_count = 0;
  uint32_t lost_event = 0;
  enum class State : uint8_t { kClosed, kOpen, kLost };
  for (size_t lo = 0; lo < order.size();) {
    size_t hi = lo + 1;
    uint32_t first = order[lo];
    while (hi < order.size() && flows[order[hi]].key == flows[order[lo]].key) {
      first = std::min(first, order[hi++]);
    }
    const auto begin = static_cast<uint32_t>(walked.size());
    State state = State::kClosed;
    uint32_t open = kNone;
    for (size_t i = lo; i < hi; ++i) {
      const FlowMark& flow = flows[order[i]];
      const uint32_t here = bound[order[i]];
      if (flow.phase != FlowPhase::kStart) {
        if (state == State::kOpen && here != kNone) {
          if (here != open) {
            walked.push_back(FlowLink{.from = open, .to = here, .fwdbwd = flow.fwdbwd});
          }
        } else if (state != State::kClosed) {
          if (lost_count++ == 0 || first < lost_first) {
            lost_first = first;
            lost_event = flow.event;
          }
        }
      }
      if (flow.phase == FlowPhase::kEnd) {
        state = State::kClosed;
      } else if (here != kNone) {
        state = State::kOpen;
        open = here;
      } else {
        state = State::kLost;  // counted when a step or end finds it
      }
    }
    if (walked.size() > begin) {
      run_at[first] = static_cast<uint32_t>(runs.size());
      runs.push_back({begin, static_cast<uint32_t>(walked.size())});
    }
    lo = hi;
  }
  if (lost_count > 0) {
    unbound.Add(fmt::format("traceEvents[{}]", lost_event));
    unbound.count += lost_count - 1;
  }
  std::vector<FlowLink> links;
  links.reserve(walked.size());
  for (uint32_t run : run_at) {
    if (run == kNone) continue;
    links.insert(links.end(), walked.begin() + runs[run].begin, walked.begin() + runs[run].end);
  }
  return links;
}

}  // namespace cookgraph::chrome

namespace cookgraph::chrome {

std::optional<std::string> RoundLikeHta(TraceRecords& r, bool round) {
  auto fractional = [](int64_t ns) { return ns % 1000 != 0; };
  // HTA rounds when its ts column holds a fraction (pandas makes it float64);
  // a fractional dur on whole ts leaves it alone.
  const bool any = std::any_of(r.slices.begin(), r.slices.end(),
                               [&](const Slice& s) { return fractional(s.start); }) ||
                   std::any_of(r.memory.begin(), r.memory.end(),
                               [&](const MemoryMark& m) { return fractional(m.ts); });
  if (!any) return std::nullopt;
  if (!round) {
    return "times are kept to the nanosecond; Holistic Trace Analysis rounds each start up and "
           "each end down to a whole µs first (--hta-rounding does that to reproduce its figures)";
  }
  auto up = [](int64_t ns) { return ns >= 0 ? (ns + 999) / 1000 * 1000 : -(-ns / 1000 * 1000); };
  auto down = [](int64_t ns) { return ns >= 0 ? ns / 1000 * 1000 : -((-ns + 999) / 1000 * 1000); };
  size_t emptied = 0;
  for (Slice& s : r.slices) {
    const int64_t start = up(s.start), end = down(s.end);
    emptied += end < start;
    s.start = start;
    s.end = std::max(end, start);
  }
  for (MemoryMark& m : r.memory) m.ts = up(m.ts);
  return fmt::format(
      "times rounded as Holistic Trace Analysis rounds them (--hta-rounding): each start up and "
      "each end down to a whole µs{}",
      emptied > 0 ? fmt::format("; {} event(s) shorter than that are 0 long (HTA gives them a "
                                "negative duration)",
                                emptied)
                  : "");
}

}  // namespace cookgraph::chrome
