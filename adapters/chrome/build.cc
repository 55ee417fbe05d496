// Stage 3 of the Chrome trace reader: records into a Snapshot. Pairs B/E,
// classifies slices, nests them, resolves flows and frames (slices.cc,
// frames.cc), then makes the nodes, edges, outputs and samples.

#include "adapters/chrome/build.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <ctime>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <numeric>
#include <optional>
#include <unordered_map>

#include "base/text.h"
#include "graph/parallel.h"

namespace cookgraph::chrome {
namespace {

// TensorFlow's input names: "^x" is a control input and "x:1" output 1 of x;
// both name node x.
std::string_view ProducerOf(std::string_view input) {
  if (!input.empty() && input.front() == '^') input.remove_prefix(1);
  const size_t colon = input.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < input.size() &&
      std::all_of(input.begin() + colon + 1, input.end(),
                  [](char c) { return c >= '0' && c <= '9'; })) {
    input = input.substr(0, colon);
  }
  return input;
}

// "YYYY-MM-DDTHH:MM:SSZ" for ns since 1970, or "" outside 2000..2100 (a clock
// that is not wall time: Perfetto's and Chrome's boot clocks, ORT's own).
std::string IsoTime(int64_t ns) {
  constexpr int64_t kYear2000 = 946684800LL * 1000000000LL;
  constexpr int64_t kYear2100 = 4102444800LL * 1000000000LL;
  if (ns < kYear2000 || ns >= kYear2100) return "";
  const std::time_t seconds = static_cast<std::time_t>(ns / 1000000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string BaseName(const std::string& file) {
  const size_t slash = file.rfind('/');
  return slash == std::string::npos ? file : file.substr(slash + 1);
}

void AddTally(std::vector<std::string>& warnings, const Tally& tally, std::string_view what) {
  if (tally.count == 0) return;
  warnings.push_back(fmt::format("{} {} (first: {})", tally.count, what, tally.first));
}

void AddTally(std::vector<std::string>& warnings, const EventTally& tally, std::string_view what) {
  if (tally.count == 0) return;
  warnings.push_back(fmt::format("{} {} (first: {})", tally.count, what, tally.First()));
}

// 64-bit keys to 32-bit values in one array (open addressing, linear
// probing, at most half full): the node and edge tables are asked once per
// counted slice, where std::unordered_map's buckets and nodes missed the
// cache on nearly every lookup.
class KeyTable {
 public:
  // The value of `key` (never ~0), with `value` put in when it had none;
  // and whether it was put in.
  std::pair<uint32_t*, bool> Insert(uint64_t key, uint32_t value) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    Slot& slot = slots_[Probe(key)];
    if (slot.key == key) return {&slot.value, false};
    slot = {key, value};
    ++size_;
    return {&slot.value, true};
  }
  const uint32_t* Find(uint64_t key) const {
    if (slots_.empty()) return nullptr;
    const Slot& slot = slots_[Probe(key)];
    return slot.key == key ? &slot.value : nullptr;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  struct Slot {
    uint64_t key = kEmpty;
    uint32_t value = 0;
  };
  // The slot holding `key`, or the empty one where it would go.
  size_t Probe(uint64_t key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
    while (slots_[i].key != key && slots_[i].key != kEmpty) i = (i + 1) & mask;
    return i;
  }
  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<size_t>(64, old.size() * 2), Slot{});
    for (const Slot& slot : old) {
      if (slot.key != kEmpty) slots_[Probe(slot.key)] = slot;
    }
  }
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

// Node identity per producer; builds the nodes in the order their first
// counted slice started.
class NodeTable {
 public:
  NodeTable(const TraceRecords& r, const Classified& c) : r_(r), c_(c) {}

  uint32_t NodeOf(uint32_t slice) {
    const Slice& s = r_.slices[slice];
    const uint32_t label = r_.LabelOf(slice);
    const bool by_label = c_.producer == Producer::kTensorFlow && label != kNone;
    const uint32_t primary = by_label ? label : s.name;
    const uint64_t key = (uint64_t{primary} << 32) | (s.cat == kNone ? 0xFFFFFFFFu : s.cat);
    auto [known, added] = by_key_.Insert(key, 0);  // primary < kNone: never the empty key
    if (!added) return *known;

    std::string id = r_.strings.str(primary);
    if (c_.producer == Producer::kOnnxRuntime && EndsWith(id, "_kernel_time")) {
      id.resize(id.size() - std::string_view("_kernel_time").size());
    }
    if (id.empty()) id = "[no name]";
    std::string family = FamilyOf(c_.producer, s.cat == kNone ? "" : r_.strings.str(s.cat));
    // The same id with another family (a CPU and a GPU range of one name) is
    // another node: "name [family]".
    auto [first, fresh] = first_family_.try_emplace(id, family);
    if (!fresh && first->second != family) id += " [" + family + "]";
    auto [node, is_new] = by_id_.try_emplace(id, static_cast<uint32_t>(nodes_.size()));
    *known = node->second;
    if (!is_new) return node->second;

    Node n;
    n.id = std::move(id);
    n.family = std::move(family);
    if (c_.producer == Producer::kOnnxRuntime) {
      n.type = r_.TypeOf(slice) != kNone ? r_.strings.str(r_.TypeOf(slice)) : "";
    } else {
      n.type = r_.strings.str(s.name);
    }
    const uint32_t extras_key = label != kNone ? label : s.name;
    if (auto extras = r_.extras.find(extras_key); extras != r_.extras.end()) {
      n.params = extras->second.params;
      // A TensorFlow op's GPU work shares its node name (args.name) and so its
      // args; its inputs are the op's, which launches it.
      inputs_.push_back(IsGpuFamily(n.family) ? nullptr : &extras->second.inputs);
    } else {
      inputs_.push_back(nullptr);
    }
    gpu_.push_back(IsGpuFamily(n.family));
    nodes_.push_back(std::move(n));
    return node->second;
  }

  std::vector<Node>& nodes() { return nodes_; }
  bool gpu(uint32_t node) const { return gpu_[node]; }
  // TensorFlow: the inputs its first slice names, or nullptr.
  const std::vector<std::string>* inputs(uint32_t node) const { return inputs_[node]; }
  uint32_t Find(std::string_view id) const {
    auto it = by_id_.find(std::string(id));
    return it == by_id_.end() ? kNone : it->second;
  }

 private:
  const TraceRecords& r_;
  const Classified& c_;
  KeyTable by_key_;  // (primary name, category) -> node
  std::unordered_map<std::string, std::string> first_family_;
  std::unordered_map<std::string, uint32_t> by_id_;
  std::vector<Node> nodes_;
  std::vector<const std::vector<std::string>*> inputs_;
  std::vector<bool> gpu_;
};

// Edges without repeats.
class EdgeSet {
 public:
  bool Add(uint32_t from, uint32_t to, EdgeKind kind) {
    if (from == to) return false;  // a node nested in itself, a flow within one node
    uint32_t& kinds = *seen_.Insert(Key(from, to), 0).first;
    if (kinds & Bit(kind)) return false;
    kinds |= Bit(kind);
    edges_.push_back(Edge{from, to, kind});
    return true;
  }
  bool Has(uint32_t from, uint32_t to, EdgeKind kind) const {
    const uint32_t* kinds = seen_.Find(Key(from, to));
    return kinds != nullptr && (*kinds & Bit(kind));
  }
  const std::vector<Edge>& edges() const { return edges_; }

 private:
  // from != to: never the empty key.
  static uint64_t Key(uint32_t from, uint32_t to) { return (uint64_t{from} << 32) | to; }
  static uint32_t Bit(EdgeKind kind) { return uint32_t{1} << static_cast<int>(kind); }
  KeyTable seen_;  // (from, to) -> the kinds of edge between them, a bit each
  std::vector<Edge> edges_;
};

// engine, source, name and the wall time of `first_start` (ns on the trace's clock).
SnapshotInfo MakeInfo(const TraceRecords& r, Producer producer, const std::string& file,
                      int64_t first_start) {
  SnapshotInfo info;
  info.engine = EngineName(producer);
  info.source = {BaseName(file)};
  info.name = BaseName(file);
  for (std::string_view suffix : {".gz", ".json"}) {
    if (EndsWith(info.name, suffix) && info.name.size() > suffix.size()) {
      info.name.resize(info.name.size() - suffix.size());
    }
  }
  int64_t wall_ns = 0;
  if (r.base_time_ns && !__builtin_add_overflow(*r.base_time_ns, first_start, &wall_ns)) {
    info.captured = IsoTime(wall_ns);  // Kineto's relative clock
  }
  if (info.captured.empty()) info.captured = IsoTime(first_start);
  return info;
}

// Per frame and node: cook_ms = the self time of its slices (ms; NaN = none in
// that frame), inclusive_ms = their whole spans, cooks = their number (0 =
// none), gpu_ms = cook_ms for GPU nodes;
// and the recorded timing: each frame's start and each node's first slice start.
void FillSamples(Snapshot& snapshot, const Frames& frames, const std::vector<uint32_t>& counted,
                 const std::vector<uint32_t>& node_of, const Nesting& nesting,
                 const NodeTable& table, const std::vector<Slice>& slices) {
  Samples& samples = snapshot.samples;
  const size_t frame_count = frames.index.size();
  const size_t node_count = samples.node_count();
  std::vector<std::vector<double>> cook_ns(node_count), cooks(node_count), whole_ns(node_count);
  RecordedTiming timing;
  timing.first_start_ms.resize(node_count);
  const int64_t origin = frames.start_ns.empty() ? 0 : frames.start_ns.front();
  for (int64_t start : frames.start_ns) {
    timing.frame_start_ms.push_back(static_cast<double>(start - origin) / 1e6);
  }
  for (uint32_t s : counted) {
    const uint32_t n = node_of[s], f = frames.of_slice[s];
    if (cook_ns[n].empty()) {
      cook_ns[n].assign(frame_count, 0.0);
      cooks[n].assign(frame_count, 0.0);
      whole_ns[n].assign(frame_count, 0.0);
      timing.first_start_ms[n].assign(frame_count, kMissing);
    }
    cook_ns[n][f] += static_cast<double>(nesting.self_ns[s]);  // exact below 2^53 ns
    whole_ns[n][f] += static_cast<double>(slices[s].end - slices[s].start);
    cooks[n][f] += 1;
    const double start_ms = static_cast<double>(slices[s].start - origin) / 1e6;
    double& first = timing.first_start_ms[n][f];
    if (IsMissing(first) || start_ms < first) first = start_ms;
  }
  if (timing.frame_start_ms.size() == frame_count) snapshot.timing = std::move(timing);
  samples.SetFrameIndex(frames.index);
  samples.SetFrameMs(frames.frame_ms);
  for (uint32_t n = 0; n < node_count; ++n) {
    if (cooks[n].empty()) continue;  // never: every node comes from a counted slice
    std::vector<double> cook(frame_count, kMissing), whole(frame_count, kMissing);
    for (size_t f = 0; f < frame_count; ++f) {
      if (cooks[n][f] > 0) {
        cook[f] = cook_ns[n][f] / 1e6;
        whole[f] = whole_ns[n][f] / 1e6;
      }
    }
    samples.SetSeries(n, Metric::kInclusiveMs, std::move(whole));
    if (table.gpu(n)) samples.SetSeries(n, Metric::kGpuMs, cook);
    samples.SetSeries(n, Metric::kCookMs, std::move(cook));
    samples.SetSeries(n, Metric::kCooks, std::move(cooks[n]));
  }
}

// The memory columns: per frame and node, the MB its calls allocated (the
// [memory] events inside them with Bytes > 0), on the CPU (cpu_mem_mb) and on
// GPUs (gpu_mem_mb). Nodes that allocated nothing keep no value.
void FillMemory(Samples& samples, const Timeline& t) {
  if (t.memory.empty()) return;
  const size_t frames = samples.frame_count();
  std::vector<std::vector<double>> cpu(samples.node_count()), gpu(samples.node_count());
  for (const MemoryEvent& m : t.memory) {
    if (m.op == kNoIndex || m.bytes <= 0) continue;
    const TimelineEvent& op = t.events[m.op];
    if (op.node == kNoIndex || op.frame == kNoIndex) continue;
    if (m.device_type < 0) continue;
    auto& series = m.device_type == 0 ? cpu[op.node] : gpu[op.node];
    if (series.empty()) series.assign(frames, kMissing);
    double& value = series[op.frame];
    value = (IsMissing(value) ? 0.0 : value) + BytesToMb(m.bytes);
  }
  for (uint32_t n = 0; n < samples.node_count(); ++n) {
    if (!cpu[n].empty()) samples.SetSeries(n, Metric::kCpuMemMb, std::move(cpu[n]));
    if (!gpu[n].empty()) samples.SetSeries(n, Metric::kGpuMemMb, std::move(gpu[n]));
  }
}

// The counted slices (nodes' slices inside a frame) by start, then file
// order: nodes are numbered in the order they first ran. From the nesting's
// kept slices by start, where equal starts have the outer one first: those
// few are put in file order.
std::vector<uint32_t> CountedByStart(const TraceRecords& r, const Nesting& nesting,
                                     const Frames& frames) {
  std::vector<uint32_t> counted;
  for (uint32_t s : nesting.by_start) {
    if (frames.of_slice[s] != kNone) counted.push_back(s);
  }
  const std::vector<Slice>& slices = r.slices;
  for (size_t lo = 0; lo < counted.size();) {
    size_t hi = lo + 1;
    while (hi < counted.size() && slices[counted[hi]].start == slices[counted[lo]].start) ++hi;
    if (hi - lo > 1) {
      std::sort(counted.begin() + static_cast<std::ptrdiff_t>(lo),
                counted.begin() + static_cast<std::ptrdiff_t>(hi),
                [&](uint32_t a, uint32_t b) { return slices[a].event < slices[b].event; });
    }
    lo = hi;
  }
  return counted;
}

// The nodes, edges and samples of the counted slices (CountedByStart's order:
// nodes numbered in the order they first ran). `node_of` gets each counted
// slice's node.
Result<Snapshot> BuildNodes(const TraceRecords& r, const Classified& c, const Nesting& nesting,
                            const std::vector<FlowLink>& links, const Frames& frames,
                            std::vector<uint32_t> counted, const std::string& file,
                            const InputLimits& limits, std::vector<std::string>& warnings,
                            std::vector<uint32_t>& node_of) {
  NodeTable table(r, c);
  node_of.assign(r.slices.size(), kNone);
  for (uint32_t s : counted) {
    node_of[s] = table.NodeOf(s);
    if (table.nodes().size() > limits.nodes) {
      return Error{.file = file,
                   .where = fmt::format("traceEvents[{}]", r.slices[s].event),
                   .message = LimitMessage(limits, &InputLimits::nodes,
                                           "the trace has more distinct operators (nodes) than")};
    }
  }
  std::vector<Node>& nodes = table.nodes();
  // Every operator gets a slot in every frame (FillSamples): refuse a table
  // the limit does not allow before it is allocated.
  if (const size_t frame_count = frames.index.size();
      frame_count > 0 && nodes.size() > limits.samples / frame_count) {
    return Error{
        .file = file,
        .message = LimitMessage(limits, &InputLimits::samples,
                                fmt::format("{} operators × {} {}s make more samples than",
                                            nodes.size(), frame_count, FrameWordOf(c.producer)))};
  }

  // Edges: TensorFlow's inputs, nesting, flows.
  EdgeSet edges;
  Tally unknown_inputs;
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    if (table.inputs(n) == nullptr) continue;
    for (const std::string& input : *table.inputs(n)) {
      const std::string_view producer = ProducerOf(input);
      const uint32_t from = table.Find(producer);
      if (from == kNone) {
        unknown_inputs.Add(fmt::format("'{}' of '{}'", producer, nodes[n].id));
      } else {
        edges.Add(from, n, EdgeKind::kData);
      }
    }
  }
  AddTally(warnings, unknown_inputs,
           "input(s) name nodes that did not run in the trace: no data edge from them");
  std::vector<bool> launched(r.slices.size(), false);
  for (uint32_t s : counted) {
    const uint32_t p = nesting.parent[s];
    if (p != kNone && node_of[p] != kNone) edges.Add(node_of[p], node_of[s], EdgeKind::kCall);
  }
  for (const FlowLink& link : links) {
    const uint32_t from = node_of[link.from], to = node_of[link.to];
    if (from == kNone || to == kNone) continue;
    const bool launch = c.gpu[link.to] && !c.gpu[link.from];
    launched[link.to] = launched[link.to] || launch;
    if (!launch && edges.Has(from, to, EdgeKind::kData)) continue;
    edges.Add(from, to,
              launch        ? EdgeKind::kLaunch
              : link.fwdbwd ? EdgeKind::kFwdBwd
                            : EdgeKind::kFlow);
  }

  // Outputs: nodes with a top-level, unlaunched slice from which no data or
  // flow edge leaves (adapters/chrome/chrome_trace.h says why).
  std::vector<bool> top_level(nodes.size(), false), feeds(nodes.size(), false);
  for (uint32_t s : counted) {
    const uint32_t p = nesting.parent[s];
    if ((p == kNone || node_of[p] == kNone) && !launched[s]) top_level[node_of[s]] = true;
  }
  for (const Edge& e : edges.edges()) {
    if (e.kind == EdgeKind::kData || e.kind == EdgeKind::kFlow) feeds[e.from] = true;
  }
  for (uint32_t n = 0; n < nodes.size(); ++n) nodes[n].output = top_level[n] && !feeds[n];

  Snapshot snapshot;
  snapshot.info = MakeInfo(r, c.producer, file, r.slices[counted.front()].start);
  Network& network = snapshot.network;
  network.Reserve(nodes.size(), edges.edges().size());
  for (Node& node : nodes) {
    auto added = network.AddNode(std::move(node));
    if (!added) {
      Error error = added.error();
      error.file = file;
      return error;
    }
  }
  for (const Edge& e : edges.edges()) network.AddEdge(e.from, e.to, e.kind);

  snapshot.samples = Samples(network.size());
  FillSamples(snapshot, frames, counted, node_of, nesting, table, r.slices);
  return snapshot;
}

}  // namespace

Result<Snapshot> BuildChromeSnapshot(TraceRecords r, const ChromeTraceOptions& options,
                                     const std::string& file, const InputLimits& limits) {
  std::vector<std::string> warnings = PairBeginEnd(r);
  if (std::optional<std::string> said = RoundLikeHta(r, options.hta_rounding)) {
    warnings.push_back(std::move(*said));
  }
  if (r.missing_bracket) {
    warnings.push_back("the array of events has no closing bracket: read up to its last event");
  }
  AddTally(warnings, r.no_phase, "event(s) without \"ph\" were ignored");
  AddTally(warnings, r.no_ts, "slice or flow event(s) without \"ts\" were ignored");
  AddTally(warnings, r.no_dur, "X event(s) without \"dur\" were ignored");
  AddTally(warnings, r.negative_dur, "X event(s) with a negative dur were ignored");
  AddTally(warnings, r.flow_without_id, "flow event(s) without \"id\" were ignored");
  AddTally(warnings, r.async,
           "async event(s) (b/e/n) were not read: cookgraph reads thread slices and flows");

  auto classified = ClassifySlices(r, options, file);
  if (!classified) return classified.error();
  const Classified& c = *classified;
  warnings.insert(warnings.end(), c.warnings.begin(), c.warnings.end());
  std::vector<bool> keep(r.slices.size()), visible(r.slices.size());
  for (size_t i = 0; i < keep.size(); ++i) {
    keep[i] = c.role[i] == Role::kNode || (c.role[i] == Role::kTimeline && c.gpu[i]);
    // The timeline's: slices outside every frame stay, GPU time counts them.
    visible[i] = c.role[i] != Role::kIgnored;
  }
  Nesting nesting = NestSlices(r, keep, c.gpu, visible);
  if (nesting.overlaps > 0) {
    warnings.push_back(fmt::format(
        "{} slice(s) start inside another slice of their thread and end after it; only the "
        "overlap counts as nested (first: {})",
        nesting.overlaps, nesting.first_overlap));
  }
  Tally unbound;
  std::vector<FlowLink> links = ResolveFlows(r, nesting, unbound);
  if (!c.tf_streams.empty()) AddTensorFlowLaunches(r, c, links);
  AddTally(warnings, unbound,
           "flow event(s) lie on no slice of their thread: their edges are missing");
  std::vector<uint32_t> launcher = Launchers(r, c, links);
  Frames frames = AssignFrames(r, c, launcher, options.keep_warmup);
  warnings.insert(warnings.end(), frames.warnings.begin(), frames.warnings.end());

  // The counted slices (CountedByStart), and beside them the timeline's plan:
  // BuildTimeline makes its events once the order and the launchers that the
  // plan reads are freed, as a large trace's memory peaks when they are made.
  const bool parallel = r.slices.size() >= kParallelTraceItems;
  std::vector<uint32_t> counted, event_of;
  TimelinePlan plan;
  RunBothIf(
      parallel,
      [&] {
        counted = CountedByStart(r, nesting, frames);
        std::vector<uint32_t>().swap(nesting.by_start);
      },
      [&] {
        plan = PlanTimeline(r, c, std::move(launcher), std::move(nesting.visible_order), file,
                            event_of);
      });
  if (counted.empty()) {
    return Error{.file = file,
                 .message = r.slices.empty()
                                ? "no slices to profile: the trace has no X events or B/E pairs"
                                : fmt::format("no slices to profile: none of the {} slices is an "
                                              "operator inside a {} ({})",
                                              r.slices.size(), FrameWordOf(c.producer),
                                              c.marker_what)};
  }
  // What neither builder reads goes first: the peak of a large trace's
  // memory is while both run.
  std::vector<FlowMark>().swap(r.flows);
  r.flow_keys = Interner();
  std::vector<uint32_t>().swap(nesting.order);
#ifdef __GLIBC__
  // The flow keys were thousands of small blocks amid the heap: their pages
  // go back now, before the peak, not after it.
  malloc_trim(0);
#endif
  // The timeline on a second core while the nodes and samples are built: they
  // share only what is read here (docs/performance.md#what-the-timeline-costs).
  std::vector<uint32_t> node_of;
  Timeline timeline;
  std::optional<Result<Snapshot>> built;
  RunBothIf(
      parallel,
      [&] {
        built = BuildNodes(r, c, nesting, links, frames, std::move(counted), file, limits, warnings,
                           node_of);
      },
      [&] { timeline = BuildTimeline(r, c, frames, std::move(plan), event_of); });
  if (!*built) return built->error();
  Snapshot snapshot = std::move(**built);
  for (uint32_t i = 0; i < event_of.size(); ++i) {
    if (event_of[i] != kNoIndex) timeline.events[event_of[i]].node = node_of[i];
  }
  FillMemory(snapshot.samples, timeline);
  if (!r.memory.empty() && timeline.memory.size() == r.memory.size()) {
    const size_t outside_ops = static_cast<size_t>(
        std::count_if(timeline.memory.begin(), timeline.memory.end(),
                      [](const MemoryEvent& m) { return m.op == kNoIndex && m.bytes > 0; }));
    if (outside_ops > 0) {
      warnings.push_back(fmt::format(
          "{} of {} [memory] allocation(s) happen outside any operator: they count in the "
          "memory timeline, not in an operator's memory columns",
          outside_ops, timeline.memory.size()));
    }
  }
  snapshot.timelines.push_back(std::move(timeline));
  snapshot.warnings = std::move(warnings);
  return snapshot;
}

}  // namespace cookgraph::chrome
