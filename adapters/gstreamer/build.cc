// The last stage of the GStreamer reader: a DotPipeline and a GstLog joined
// into a Snapshot. The decisions (ids, frames, queues, tees) are documented in
// adapters/gstreamer/gstreamer.h.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "adapters/gstreamer/cooks.h"
#include "adapters/gstreamer/records.h"
#include "base/text.h"
#include "model/gstreamer_threads.h"

namespace cookgraph::gst {
namespace {

using build_internal::AudioPeriodMs;
using build_internal::Cook;
using build_internal::CooksOf;
using build_internal::FrameMs;
using build_internal::Framerate;
using build_internal::Latency;
using build_internal::MarkFrameThreads;
using build_internal::SamplesPerBuffer;
using build_internal::ScoreWork;
using build_internal::ThreadSources;
using build_internal::Threads;

std::string Ms(double v) { return fmt::format("{:.3f}", v); }

std::string Example(const LogProblem& p, const std::string& file) {
  return fmt::format("{}:{}: {}", file, p.first_line, p.first_text);
}

class Builder {
 public:
  Builder(const DotPipeline& dot, const GstLog* log, const std::string& dot_file,
          const std::string& log_file, const InputLimits& limits)
      : dot_(dot), log_(log), dot_file_(dot_file), log_file_(log_file), limits_(limits) {}

  Result<Snapshot> Build() {
    s_.info.engine = "gstreamer";
    s_.info.name = dot_.name.empty() ? "pipeline" : dot_.name;
    s_.info.source.push_back(dot_file_);
    if (log_) s_.info.source.push_back(log_file_);
    ResolveLinks();
    IndexCaps();
    JoinLog();
    if (Status status = AddNodes(); !status) return status.error();
    AddEdges();
    if (Status status = AddSamples(); !status) return status.error();
    Warn();
    return std::move(s_);
  }

 private:
  // Links through ghost and proxy pads, from each element's src pad to the
  // element pads it reaches: the element-level `data` edges.
  void ResolveLinks() {
    std::unordered_map<std::string_view, int> pad_index;
    for (size_t i = 0; i < dot_.pads.size(); ++i) {
      pad_index.emplace(dot_.pads[i].id, static_cast<int>(i));
    }
    std::unordered_map<std::string_view, std::vector<size_t>> out;  // pad id -> links from it
    for (size_t i = 0; i < dot_.links.size(); ++i) out[dot_.links[i].from].push_back(i);
    auto leaf = [&](std::string_view pad_id) -> int {
      auto it = pad_index.find(pad_id);
      if (it == pad_index.end()) return -1;
      const int owner = dot_.pads[it->second].owner;
      return owner >= 0 && !dot_.elements[owner].bin ? owner : -1;
    };
    for (const DotLink& link : dot_.links) linked_to_.insert(link.to);
    for (const DotLink& link : dot_.links) {
      const int from = leaf(link.from);
      if (link.ghost || from < 0) continue;
      const std::string& pad_name = dot_.pads[pad_index[link.from]].name;
      if (!link.caps.empty()) caps_.emplace_back(from, pad_name, CompactCaps(link.caps));
      // Walk ghost and proxy pads (pads of bins, or pads the dump does not
      // declare) until element pads.
      std::vector<std::string_view> todo = {link.to};
      std::set<std::string_view> seen;
      bool reached = false;
      while (!todo.empty()) {
        const std::string_view pad = todo.back();
        todo.pop_back();
        if (!seen.insert(pad).second) continue;
        if (const int to = leaf(pad); to >= 0) {
          edges_.insert({from, to});
          peers_.try_emplace({from, pad_name}, to);
          reached = true;
          continue;
        }
        if (auto it = out.find(pad); it != out.end()) {
          for (size_t l : it->second) todo.push_back(dot_.links[l].to);
        }
      }
      if (!reached && dead_links_++ == 0) {
        dead_link_example_ =
            fmt::format("{}:{}: {} -> {}", dot_file_, link.line, link.from, link.to);
      }
    }
  }

  // The caps by dot element: of its src pads, and (distinct) into it; so that
  // looking them up costs the element's own links, not all of them.
  void IndexCaps() {
    out_caps_.assign(dot_.elements.size(), {});
    in_caps_.assign(dot_.elements.size(), {});
    for (const auto& [element, pad, caps] : caps_) {
      out_caps_[element].emplace_back(pad, caps);
      auto it = peers_.find({element, pad});
      if (it == peers_.end()) continue;
      std::vector<std::string_view>& in = in_caps_[it->second];
      if (std::find(in.begin(), in.end(), caps) == in.end()) in.push_back(caps);
    }
  }

  // Log elements to dot elements: by pointer (the element-id is the `_0x<ptr>`
  // suffix of the cluster id), else by a name only one element of the dump has.
  void JoinLog() {
    if (!log_) return;
    std::unordered_map<std::string_view, int> by_pointer;
    std::unordered_map<std::string_view, int> by_name;  // -2 = more than one
    for (size_t i = 0; i < dot_.elements.size(); ++i) {
      const DotElement& e = dot_.elements[i];
      if (!e.pointer.empty()) by_pointer.emplace(e.pointer, static_cast<int>(i));
      if (e.bin) continue;
      auto [it, added] = by_name.emplace(e.name, static_cast<int>(i));
      if (!added) it->second = -2;
    }
    auto find = [&](const std::string& id, const std::string& name, bool count) -> int {
      if (auto it = by_pointer.find(id); it != by_pointer.end()) {
        if (count && dot_.elements[it->second].name != name && renamed_++ == 0) {
          renamed_example_ = fmt::format("{} is {} in the log, {} in the dump", id, name,
                                         dot_.elements[it->second].name);
        }
        return it->second;
      }
      if (auto it = by_name.find(name); it != by_name.end() && it->second >= 0) {
        if (count && by_name_++ == 0) {
          by_name_example_ = fmt::format("{} ({} in the log)", name, id);
        }
        return it->second;
      }
      return -1;
    };
    joined_.assign(log_->elements.size(), -1);
    for (size_t i = 0; i < log_->elements.size(); ++i) {
      const LogElement& e = log_->elements[i];
      joined_[i] = find(e.id, e.name, true);
    }
    for (const LogPair& p : log_->pairs) {
      if (const int sink = find(p.sink_id, p.sink_name, false); sink >= 0) sinks_.insert(sink);
    }
  }

  // Ids first ("/pipeline0/bin/element", unique), then the nodes with their
  // params, so that per-pad params can name the elements they feed.
  Status AddNodes() {
    const std::string root = "/" + s_.info.name;
    std::set<std::string> taken = {root};
    auto unique = [&](std::string id, const std::string& pointer) {
      if (taken.count(id)) id += " [" + (pointer.empty() ? "?" : pointer) + "]";
      for (int n = 2; taken.count(id); ++n) id += fmt::format("#{}", n);
      taken.insert(id);
      return id;
    };
    // Creation order: a bin lists its newest child first in the dump.
    std::vector<std::vector<int>> children(dot_.elements.size());
    std::vector<int> stack;  // popped from the back: oldest first
    for (size_t i = 0; i < dot_.elements.size(); ++i) {
      const int parent = dot_.elements[i].parent;
      (parent < 0 ? stack : children[parent]).push_back(static_cast<int>(i));
    }
    std::vector<int> order;
    ids_.assign(dot_.elements.size(), "");
    while (!stack.empty()) {
      const int i = stack.back();
      stack.pop_back();
      const DotElement& e = dot_.elements[i];
      // An id is a path through the bins: bounded like any name, or deeply
      // nested bins would make ids of quadratic total size.
      const std::string& parent_id = e.parent < 0 ? root : ids_[e.parent];
      const size_t id_length = parent_id.size() + 1 + e.name.size();
      if (id_length > limits_.name_length) {
        return Error{.file = dot_file_,
                     .line = e.line,
                     .where = "element '" + TruncateMiddle(e.name, 40) + "'",
                     .message = NameTooLong(limits_, "its id (the path through its bins)",
                                            id_length)};
      }
      ids_[i] = unique(parent_id + "/" + e.name, e.pointer);
      order.push_back(i);
      stack.insert(stack.end(), children[i].begin(), children[i].end());
    }
    // Elements of the log that the dump does not show (created after it was
    // written): kept at the top level, without links.
    std::vector<size_t> extra;
    if (log_) {
      for (size_t i = 0; i < log_->elements.size(); ++i) {
        const LogElement& e = log_->elements[i];
        if (joined_[i] >= 0) {
          for (const LogPad& p : e.pads) dot_pads_[joined_[i]].push_back(&p);
          continue;
        }
        if (unknown_++ == 0) unknown_example_ = fmt::format("{} ({})", e.name, e.id);
        extra_ids_[i] = unique(root + "/" + e.name, e.id);
        extra.push_back(i);
      }
    }

    if (1 + order.size() + extra.size() > limits_.nodes) {
      return Error{.file = log_ ? log_file_ : dot_file_,
                   .message = LimitMessage(limits_, &InputLimits::nodes,
                                           fmt::format("the dump's {} elements and the log's {} "
                                                       "others make more nodes than",
                                                       order.size(), extra.size()))};
    }
    Network& net = s_.network;
    net.Reserve(1 + order.size() + extra.size(), edges_.size());
    auto added = net.AddNode(
        Node{.id = root, .type = dot_.type, .family = "bin", .parent = "", .params = dot_.params});
    if (!added) return Error{.file = dot_file_, .message = added.error().message};
    node_.assign(dot_.elements.size(), 0);
    for (int i : order) {
      const DotElement& e = dot_.elements[i];
      bool has_sink = false, has_src = false;
      for (int p : e.pads) (dot_.pads[p].src ? has_src : has_sink) = true;
      Node node{.id = ids_[i],
                .type = e.type,
                .family = e.bin                 ? "bin"
                          : IsQueueType(e.type) ? "queue"
                          : IsMixer(e)          ? "mixer"
                                                : "element",
                .parent = e.parent < 0 ? root : ids_[e.parent],
                .params = e.params,
                .output = !e.bin && ((has_sink && !has_src) || sinks_.count(i) > 0)};
      for (const auto& [pad, caps] : out_caps_[i]) {
        node.params.emplace_back(std::string(pad) + "::caps", std::string(caps));
      }
      if (auto it = dot_pads_.find(i); it != dot_pads_.end()) PadParams(i, it->second, node.params);
      auto index = net.AddNode(std::move(node));
      if (!index) {
        return Error{.file = dot_file_,
                     .line = e.line,
                     .where = "element '" + e.name + "'",
                     .message = index.error().message};
      }
      node_[i] = *index;
      element_of_node_.emplace(*index, i);
    }
    for (size_t i : extra) {
      // Its GType is unknown; a default name (queue5, multiqueue0) still says a
      // queue, whose time is waiting.
      Node node{.id = extra_ids_[i],
                .type = "",
                .family = IsQueueType(log_->elements[i].name) ? "queue" : "element",
                .parent = root};
      std::vector<const LogPad*> pads;
      for (const LogPad& p : log_->elements[i].pads) pads.push_back(&p);
      PadParams(-1, pads, node.params);
      auto index = net.AddNode(std::move(node));
      if (!index) return Error{.file = log_file_, .message = index.error().message};
      extra_node_[i] = *index;
    }
    return {};
  }

  // An element with two or more linked sink pads and a src pad (compositor,
  // audiomixer, a muxer): its time holds the wait for its other inputs.
  bool IsMixer(const DotElement& e) const {
    int linked_sinks = 0;
    bool src = false;
    for (int p : e.pads) {
      const DotPad& pad = dot_.pads[p];
      src = src || pad.src;
      if (!pad.src && linked_to_.count(pad.id)) ++linked_sinks;
    }
    return src && linked_sinks >= 2;
  }

  void AddEdges() {
    for (const auto& [from, to] : edges_) {
      s_.network.AddEdge(node_[from], node_[to], EdgeKind::kData);
    }
    // The rate of the caps feeding the outputs; else the fastest video
    // anywhere (a muxer's output has no framerate); else raw audio's buffers.
    double fps = 0, any_fps = 0, audio_ms = 0;
    const double samples_per_buffer = SamplesPerBuffer(dot_);
    for (const auto& [element, pad, caps] : caps_) {
      auto it = peers_.find({element, pad});
      if (it != peers_.end() && s_.network.node(node_[it->second]).output) {
        fps = std::max(fps, Framerate(caps));
      }
      any_fps = std::max(any_fps, Framerate(caps));
      if (audio_ms == 0) audio_ms = AudioPeriodMs(caps, samples_per_buffer);
    }
    if (fps > 0) {
      s_.info.fps = fps;
    } else if (any_fps > 0) {
      s_.info.fps = any_fps;
    } else if (audio_ms > 0) {
      s_.info.fps = 1000.0 / audio_ms;
    }
  }

  // Frame k is each element's k-th cook (all its records, all pads: CooksOf);
  // frame_ms of frame k is the slowest streaming thread's k-th buffer, the sum
  // of its working elements' k-th cooks in it. `latency` records are the
  // pipeline's latency, never frame time. Every sampled element gets a slot in
  // every frame: past the samples limit, an error.
  Status AddSamples() {
    const Network& net = s_.network;
    Samples samples(net.size());
    if (!log_) {
      s_.samples = std::move(samples);
      return {};
    }
    // Each sampled node with the log elements joined to it.
    std::map<NodeIndex, std::vector<const LogElement*>> by_node;
    for (size_t i = 0; i < log_->elements.size(); ++i) {
      const NodeIndex n = joined_[i] >= 0 ? node_[joined_[i]] : extra_node_.at(i);
      by_node[n].push_back(&log_->elements[i]);
    }
    std::vector<std::pair<NodeIndex, std::vector<Cook>>> series;
    size_t frames = 0;
    for (const auto& [n, elements] : by_node) {
      series.emplace_back(n, CooksOf(elements));
      if (!IsWaitingFamily(net.node(n).family)) ScoreWork(series.back().second);
      frames = std::max(frames, series.back().second.size());
    }
    if (frames > 0 && series.size() > limits_.samples / frames) {
      return Error{.file = log_file_,
                   .message = LimitMessage(
                       limits_, &InputLimits::samples,
                       fmt::format("{} sampled elements × {} buffers make more samples than",
                                   series.size(), frames))};
    }
    // FrameMs holds a buffer time per thread and frame: bounded as samples are.
    if (frames > 0 && log_->threads.size() > limits_.samples / frames) {
      return Error{.file = log_file_,
                   .message = LimitMessage(
                       limits_, &InputLimits::samples,
                       fmt::format("{} streaming threads × {} buffers make more samples than",
                                   log_->threads.size(), frames))};
    }
    std::vector<int64_t> index(frames);
    for (size_t f = 0; f < frames; ++f) index[f] = static_cast<int64_t>(f);
    samples.SetFrameIndex(std::move(index));
    std::vector<std::pair<std::string, size_t>> counts;  // node id, samples
    for (const auto& [n, cooks] : series) {
      std::vector<double> cook(frames, kMissing), latency(frames, kMissing);
      for (size_t f = 0; f < cooks.size(); ++f) {
        cook[f] = cooks[f].ms;
        latency[f] = cooks[f].latency_ms;
      }
      samples.SetSeries(n, Metric::kLatencyMs, std::move(latency));
      counts.emplace_back(net.node(n).id,
                          static_cast<size_t>(std::count_if(
                              cook.begin(), cook.end(), [](double v) { return !IsMissing(v); })));
      samples.SetSeries(n, Metric::kCookMs, std::move(cook));
    }
    Streaming streaming = Threads(Sources(), series);
    streaming.bottleneck = BottleneckThread(streaming.threads);
    MarkFrameThreads(streaming);
    std::vector<double> frame_ms = FrameMs(Sources(), series, frames, streaming);
    if (!frame_ms.empty()) {
      samples.SetFrameMs(std::move(frame_ms));
      // A buffer index no thread worked on (only queues and mixers logged
      // it) is not a frame of work: out of the frame statistics.
      samples.SetUnmeasuredFramesIdle(true);
    }
    CookTimes(series, streaming);
    streaming.latency = Latency(*log_);
    s_.samples = std::move(samples);
    s_.streaming = std::move(streaming);
    CountWarning(counts);
    return {};
  }

  // When each cook began and on which thread (Streaming::cook_start_ms), in
  // ms since the earliest known entry.
  void CookTimes(const std::vector<std::pair<NodeIndex, std::vector<Cook>>>& series,
                 Streaming& out) const {
    int64_t origin = INT64_MAX;
    for (const auto& [n, cooks] : series) {
      for (const Cook& c : cooks) {
        if (c.entry_ns >= 0) origin = std::min(origin, c.entry_ns);
      }
    }
    if (origin == INT64_MAX) return;
    out.cook_start_ms.resize(s_.network.size());
    out.cook_thread.resize(s_.network.size());
    for (const auto& [n, cooks] : series) {
      auto& start = out.cook_start_ms[n];
      auto& thread = out.cook_thread[n];
      start.reserve(cooks.size());
      thread.reserve(cooks.size());
      for (const Cook& c : cooks) {
        start.push_back(c.entry_ns >= 0 ? static_cast<double>(c.entry_ns - origin) / 1e6 : kMissing);
        thread.push_back(c.thread == kNoThread ? kNoStreamingThread : c.thread);
      }
    }
  }

  ThreadSources Sources() const {
    return ThreadSources{.network = s_.network,
                         .log = *log_,
                         .dot = dot_,
                         .element_of_node = element_of_node_,
                         .out_caps = out_caps_,
                         .in_caps = in_caps_};
  }

  // The numbers of each src pad of an element that logs on several (a tee, a
  // demuxer): `<pad>::avg_ms`, `<pad>::max_ms`, `<pad>::buffers` and, when the
  // dump shows the link, `<pad>::peer` (the id of the element it feeds).
  void PadParams(int element, const std::vector<const LogPad*>& pads, Params& params) const {
    if (pads.size() < 2) return;
    for (const LogPad* p : pads) {
      double sum = 0, max = 0;
      size_t count = 0;
      for (double v : p->ms) {
        if (IsMissing(v)) continue;
        sum += v;
        max = std::max(max, v);
        ++count;
      }
      params.emplace_back(p->name + "::avg_ms",
                          count ? Ms(sum / static_cast<double>(count)) : "n/a");
      params.emplace_back(p->name + "::max_ms", count ? Ms(max) : "n/a");
      params.emplace_back(p->name + "::buffers", std::to_string(p->ms.size()));
      if (auto it = peers_.find({element, p->name}); it != peers_.end()) {
        params.emplace_back(p->name + "::peer", ids_[it->second]);
      }
    }
  }

  void CountWarning(const std::vector<std::pair<std::string, size_t>>& counts) {
    size_t most = 0;
    for (const auto& c : counts) most = std::max(most, c.second);
    std::string fewer;
    size_t n = 0;
    for (const auto& [id, count] : counts) {
      if (count == most) continue;
      if (n++ < 5) fewer += fmt::format("{}{} ({})", fewer.empty() ? "" : ", ", id, count);
    }
    if (n == 0) return;
    s_.warnings.push_back(fmt::format(
        "{}: {} element(s) have fewer samples than the {} of the most sampled: {}{}. Sample k is "
        "each element's k-th buffer, so past a rate change (decoder, muxer, videorate, drops) the "
        "k-th samples of two elements are not the same buffer",
        log_file_, n, most, fewer, n > 5 ? ", ..." : ""));
  }

  void Warn() {
    auto& w = s_.warnings;
    if (!log_) {
      w.push_back(dot_file_ +
                  ": no tracer log given: the graph has no samples (record one with "
                  "GST_TRACERS=\"latency(flags=element+pipeline)\" GST_DEBUG=\"GST_TRACER:7\")");
    }
    if (dot_.elements.empty()) w.push_back(dot_file_ + ": the dump shows no elements");
    if (dead_links_) {
      w.push_back(fmt::format("{}: {} pad link(s) lead to no element the dump shows, first {}",
                              dot_file_, dead_links_, dead_link_example_));
    }
    if (!log_) return;
    const GstLog& log = *log_;
    if (log.malformed.count) {
      w.push_back(
          fmt::format("{}: {} malformed latency record line(s) skipped (where the element "
                      "could be read, its buffer keeps its place as a missing sample), "
                      "first {}",
                      log_file_, log.malformed.count, Example(log.malformed, log_file_)));
    }
    if (log.negative.count) {
      w.push_back(
          fmt::format("{}: {} record(s) with a negative time (the clock went backwards) "
                      "kept as missing samples, first {}",
                      log_file_, log.negative.count, Example(log.negative, log_file_)));
    }
    for (const std::string& note : log.notes) w.push_back(log_file_ + ": " + note);
    if (unknown_) {
      w.push_back(
          fmt::format("{}: {} element(s) of the log are not in the dump (added at the top "
                      "level, without links), first {}: use the PAUSED_PLAYING dump of "
                      "the same run",
                      log_file_, unknown_, unknown_example_));
    }
    if (by_name_) {
      w.push_back(
          fmt::format("{}: {} element(s) joined to the dump by name, not by pointer, first "
                      "{}: the dump and the log seem to come from different runs",
                      log_file_, by_name_, by_name_example_));
    }
    if (renamed_) {
      w.push_back(
          fmt::format("{}: {} element(s) have another name in the log than in the dump, "
                      "first {}",
                      log_file_, renamed_, renamed_example_));
    }
    if (log.latency_records == 0) {
      w.push_back(log_file_ +
                  ": no `latency` (source -> sink) records, so the pipeline's latency is not "
                  "known. The tracer logs them only with flags=pipeline, and only when an "
                  "element, not a bin's ghost pad, feeds the sink");
    }
    if (log.element_records > 0 && log.threads.empty()) {
      w.push_back(log_file_ +
                  ": no record line names its thread (bare records, e.g. `grep -o` output), so "
                  "streaming threads and frame times are not known: give the whole log");
    }
    if (s_.streaming) {
      for (const std::string& note : s_.streaming->notes) w.push_back(log_file_ + ": " + note);
    }
    if (log.element_records == 0) {
      w.push_back(log_file_ +
                  ": no element-latency records: run with "
                  "GST_TRACERS=\"latency(flags=element+pipeline)\"");
    }
    if (log.element_records > 0 && !log.threads.empty() && log.work_windows == 0) {
      w.push_back(log_file_ +
                  ": no thread-rusage records of the streaming threads, so an element's time "
                  "is the latency tracer's, which counts the time its pushes wait downstream "
                  "as its own: record with GST_TRACERS=\"latency(flags=element+pipeline);"
                  "rusage\" to tell work from waiting");
    }
    if (log.work_windows_cut > 0) {
      w.push_back(fmt::format(
          "{}: {} of {} element-latency record(s) began before the oldest of the last {} "
          "thread-rusage records of their thread: their work is measured from that record, "
          "a lower bound",
          log_file_, log.work_windows_cut, log.work_windows, kRusageWindowPoints));
    }
  }

  const DotPipeline& dot_;
  const GstLog* log_;
  const std::string& dot_file_;
  const std::string& log_file_;
  const InputLimits& limits_;
  Snapshot s_;

  std::set<std::pair<int, int>> edges_;               // dot element -> dot element
  std::map<std::pair<int, std::string>, int> peers_;  // (element, src pad) -> element it feeds
  std::vector<std::tuple<int, std::string, std::string>> caps_;  // element, src pad, caps
  std::vector<std::vector<std::pair<std::string_view, std::string_view>>>
      out_caps_;  // dot element -> (src pad, caps) of caps_
  std::vector<std::vector<std::string_view>> in_caps_;  // dot element -> distinct caps into it
  std::unordered_map<NodeIndex, int> element_of_node_;  // node -> dot element
  std::vector<int> joined_;                             // log element -> dot element; -1 = none
  std::set<int> sinks_;                                 // dot elements that end latency records
  std::set<std::string_view> linked_to_;                // pad ids some link ends at
  std::vector<std::string> ids_;                        // dot element -> node id
  std::vector<NodeIndex> node_;                         // dot element -> node
  std::map<int, std::vector<const LogPad*>> dot_pads_;  // dot element -> its log pads
  std::map<size_t, std::string> extra_ids_;             // unjoined log element -> node id
  std::map<size_t, NodeIndex> extra_node_;              // unjoined log element -> node
  size_t dead_links_ = 0, unknown_ = 0, by_name_ = 0, renamed_ = 0;
  std::string dead_link_example_, unknown_example_, by_name_example_, renamed_example_;
};

}  // namespace

bool IsQueueType(std::string_view type) {
  for (size_t i = 0; i + 5 <= type.size(); ++i) {
    bool match = true;
    for (size_t j = 0; j < 5 && match; ++j) {
      match = std::tolower(static_cast<unsigned char>(type[i + j])) == "queue"[j];
    }
    if (match) return true;
  }
  return false;
}

Result<Snapshot> BuildSnapshot(const DotPipeline& dot, const GstLog* log,
                               const std::string& dot_file, const std::string& log_file,
                               const InputLimits& limits) {
  return Builder(dot, log, dot_file, log_file, limits).Build();
}

}  // namespace cookgraph::gst
