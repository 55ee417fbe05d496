#ifndef COOKGRAPH_ADAPTERS_CHROME_RECORDS_H_
#define COOKGRAPH_ADAPTERS_CHROME_RECORDS_H_

// The middle of the Chrome trace reader (adapters/chrome/chrome_trace.h): the plain
// records the tokenizer keeps of each event, and the stages that turn them
// into a Snapshot. Internal to adapters/.
//
// Memory: one Slice (40 bytes) per X event or B/E pair, one Mark per B or E,
// one FlowMark per flow event; every string (names, categories, threads, flow
// keys) is interned once. Args are read only for the few keys that matter, and
// kept once per node (NodeExtras), not per event.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "adapters/byte_source.h"
#include "adapters/chrome/chrome_trace.h"
#include "adapters/events.h"
#include "base/error.h"

namespace cookgraph::chrome {

/// Sentinel for "no string", "no slice", "no frame".
inline constexpr uint32_t kNone = UINT32_MAX;

/// Distinct strings, each stored once, by dense id. An open-addressing table
/// of (hash tag, id) words: one probe per event name in the common case, where
/// a node-based unordered_map cost a tenth of reading a Kineto trace.
class Interner {
 public:
  uint32_t Intern(std::string_view text);
  /// The id of `text`, or kNone when it was never interned.
  uint32_t Find(std::string_view text) const;
  const std::string& str(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }
  /// The same strings with the same ids (however the table grew).
  bool operator==(const Interner& other) const { return strings_ == other.strings_; }

 private:
  // The slot of `text` (hash `hash`): the one holding it, or the empty one
  // where it would go.
  size_t Slot(std::string_view text, uint64_t hash) const;
  void Grow();

  std::deque<std::string> strings_;  // a deque never moves its strings
  std::vector<uint64_t> slots_;      // high 32 bits: hash tag; low 32: id; ~0 = empty
};

/// An X event, or a B/E pair once paired. Times in ns on the trace's clock.
/// 40 bytes: a large trace holds millions (its TensorFlow and ONNX Runtime
/// names are in TraceRecords::tags, which a Kineto trace does not have).
struct Slice {
  int64_t start = 0;             // ns
  int64_t end = 0;               // ns; >= start
  uint32_t name = kNone;         // interned event name
  uint32_t cat = kNone;          // interned category; kNone = none given
  uint32_t thread = kNone;       // interned "pid\x1Ftid"
  uint32_t event = 0;            // index in traceEvents (of the B for a pair): file order
  uint32_t correlation = kNone;  // args.correlation (Kineto: a launch call and its kernel)
  bool operator==(const Slice&) const = default;
};

/// A slice's args.name (TensorFlow's node name) and args.op_name (ONNX
/// Runtime's op type), interned; kNone = not given.
struct SliceTags {
  uint32_t label = kNone;
  uint32_t type = kNone;
  bool operator==(const SliceTags&) const = default;
};

/// A B or E event, before pairing.
struct Mark {
  int64_t ts = 0;  // ns
  uint32_t thread = kNone;
  uint32_t event = 0;
  uint32_t name = kNone, cat = kNone, label = kNone, type = kNone;  // B only
  uint32_t correlation = kNone;                                     // B only
  bool begin = false;
  bool operator==(const Mark&) const = default;
};

enum class FlowPhase : uint8_t { kStart, kStep, kEnd };  // s, t, f (this order at equal ts)

/// A flow's key: the text "cat\x1Fid" (v1) or "\x1Ebind_id" (v2), which flow
/// events of one flow share. Kineto's ids are whole numbers, one per launch:
/// those keys are numbers, not interned (FlowKeyOf), so that the tokenizer
/// and the join of a split parse hash no text for them.
///   bit 63 clear: bits 47-62 the category's slot (0 = v2, 1 = an empty
///     category, 2 + its id in TraceRecords::strings), bits 0-46 the id;
///   bit 63 set: bits 0-31 the text's id in TraceRecords::flow_keys.
/// Two flow events share a key exactly when their texts are equal.
using FlowKey = uint64_t;
inline constexpr FlowKey kTextFlowKey = FlowKey{1} << 63;
inline constexpr int kFlowKeyIdBits = 47;
inline constexpr uint64_t kFlowKeySlots = uint64_t{1} << 16;

/// A flow event (v1) or a flow binding on a slice (v2).
struct FlowMark {
  int64_t ts = 0;  // ns
  FlowKey key = 0;
  uint32_t thread = kNone;
  uint32_t event = 0;
  uint32_t slice = kNone;  // v2: the slice it is on (a Mark index while on_mark)
  FlowPhase phase = FlowPhase::kStart;
  bool enclosing = true;  // v1: binds to the enclosing slice, not the next one
  bool on_mark = false;   // v2 on a B event: `slice` is the B's Mark index
  bool fwdbwd = false;    // the key's text starts with "fwdbwd\x1F" (PyTorch's fwd-bwd links)
  bool operator==(const FlowMark&) const = default;
};

/// Records that were bad one by one, or left aside: how many, and the first.
struct Tally {
  uint64_t count = 0;
  std::string first;  // e.g. "traceEvents[12] at line 40"
  void Add(std::string_view where) {
    if (count++ == 0) first = std::string(where);
  }
};

/// Events the tokenizer counted and left aside: how many, and the first, by
/// its index in traceEvents and its line (kept as numbers, so that the
/// records of a split parse can be joined: AppendRecords).
struct EventTally {
  uint64_t count = 0;
  uint32_t first_event = 0;
  int64_t first_line = 0;
  void Add(uint32_t event, int64_t line) {
    if (count++ == 0) {
      first_event = event;
      first_line = line;
    }
  }
  /// "traceEvents[12] at line 40".
  std::string First() const;
  bool operator==(const EventTally&) const = default;
};

/// What the args of a node's first event say, kept once per node key.
struct NodeExtras {
  // TensorFlow args.inputN, as text: not interned, so that the strings a
  // trace interns do not depend on which event's args were kept (a split
  // parse's second half reads args that the first half's make redundant).
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, std::string>> params;  // whitelisted args, as text
  bool operator==(const NodeExtras&) const = default;
};

/// A Kineto [memory] instant event (an allocation or a free).
struct MemoryMark {
  int64_t ts = 0;  // ns
  uint32_t thread = kNone;
  int64_t bytes = 0, total_allocated = 0, total_reserved = 0;
  int32_t device_type = -1;  // "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA); -1 = not given
  int32_t device = -1;       // "Device Id"
  bool operator==(const MemoryMark&) const = default;
};

/// What a CUDA stream wait (cudaStreamWaitEvent, and its GPU-side "Stream Wait
/// Event" / "Event Sync") waits on, from its args.
struct WaitMark {
  uint32_t event = 0;           // index in traceEvents
  int64_t wait_on_stream = -1;  // args.wait_on_stream
  int64_t wait_on_record = -1;  // args.wait_on_cuda_event_record_corr_id
  bool operator==(const WaitMark&) const = default;
};

/// What an ONNX Runtime node event's args.thread_scheduling_stats say: its
/// intra-op thread pool's counters for that node (docs/formats.md#onnx-runtime).
struct PoolMark {
  uint32_t event = 0;              // index in traceEvents
  uint32_t pool = kNone;           // interned main_thread.thread_pool_name
  int64_t run_us = 0;              // main_thread.Run: the node's own thread running its share
  int64_t wait_us = 0;             // main_thread.Wait + WaitRevoke: waiting on the helpers
  int64_t distribution_us = 0;     // main_thread.Distribution + DistributionEnqueue
  uint32_t parallel_sections = 0;  // entries of main_thread.block_size
  uint32_t helpers = 0;            // entries of sub_threads
  int64_t helper_runs = 0;         // their num_run, summed (counted since profiling began)
  bool operator==(const PoolMark&) const = default;
};

/// A device of Kineto's deviceProperties.
struct DeviceMark {
  int64_t id = -1;
  std::string name;
  int64_t total_memory = 0;
  bool operator==(const DeviceMark&) const = default;
};

/// Everything the tokenizer keeps of a trace.
struct TraceRecords {
  Interner strings;
  /// The flows' keys that are not numbers (FlowKey), apart from the names;
  /// needed only until the flows are bound.
  Interner flow_keys;
  std::vector<Slice> slices;
  /// Per slice, once a slice has a tag (TensorFlow, ONNX Runtime); empty
  /// while none has (Kineto). AddSlice keeps the two in step.
  std::vector<SliceTags> tags;
  std::vector<Mark> marks;
  std::vector<FlowMark> flows;
  /// By args.name when the event has one, else by event name: its first event's args.
  std::unordered_map<uint32_t, NodeExtras> extras;
  std::vector<MemoryMark> memory;
  std::vector<WaitMark> waits;              // in file order
  std::vector<PoolMark> pools;              // in file order
  std::optional<int64_t> base_time_ns;      // Kineto's baseTimeNanoseconds
  std::optional<int64_t> rank, world_size;  // Kineto's distributedInfo
  std::vector<DeviceMark> devices;          // Kineto's deviceProperties
  /// "M" process_name events: the pid (interned, as in Slice::thread before
  /// the separator) and its args.name (interned), in file order.
  std::vector<std::pair<uint32_t, uint32_t>> process_names;
  bool kineto_keys = false;      // schemaVersion, deviceProperties, ... at the top
  bool missing_bracket = false;  // array form cut after a complete event
  uint64_t events = 0;           // elements of traceEvents

  EventTally no_phase;         // events without "ph"
  EventTally no_ts;            // slices and flows without "ts"
  EventTally no_dur;           // X events without "dur"
  EventTally negative_dur;     // X events with dur < 0
  EventTally flow_without_id;  // s/t/f without "id"
  EventTally async;            // b/e/n async events (not read)

  /// Every record equal: how tests and the fuzz target check that a split
  /// parse reads what a one-thread parse reads.
  bool operator==(const TraceRecords&) const = default;

  void AddSlice(const Slice& slice, SliceTags tag) {
    const bool tagged = tag.label != kNone || tag.type != kNone;
    if (tags.empty() && tagged) tags.resize(slices.size());
    slices.push_back(slice);
    if (tagged || !tags.empty()) tags.push_back(tag);
  }
  uint32_t LabelOf(uint32_t slice) const { return tags.empty() ? kNone : tags[slice].label; }
  uint32_t TypeOf(uint32_t slice) const { return tags.empty() ? kNone : tags[slice].type; }
};

/// The key of a flow event whose id's text is `id`: a v1 flow event's of
/// category `cat` (its text, empty when none; `cat_id` its id in r.strings,
/// or kNone), or with `cat_id` = kNone and `bind` a v2 binding's ("\x1E" and
/// bind_id). `fwdbwd` says whether its text starts with "fwdbwd\x1F".
FlowKey FlowKeyOf(TraceRecords& r, std::string_view cat, uint32_t cat_id, std::string_view id,
                  bool bind, bool& fwdbwd);

/// Appends `rest`, the records of the events that come after those of
/// `into` in the same traceEvents array, tokenized on their own from 1-based
/// line `line` on (the second half of a split parse), so that `into` is what
/// one tokenizer reading all of them makes: the same strings with the same
/// ids, the same event and slice indices, the same first of each tally.
void AppendRecords(TraceRecords& into, TraceRecords&& rest, int64_t line);

/// How stage 2 reads. By default a large plain file is read in two halves at
/// once (ParseJsonEventsSplit, adapters/events.h), split at an event near its
/// middle; other inputs of 16 MiB or more on two threads, one scanning the
/// JSON and one handling it.
struct TokenizeOptions {
  /// Tests: look for the split's second half from this offset, whatever the
  /// input's size and however many cores there are.
  std::optional<uint64_t> split_from;
  /// Set to whether a split parse joined its two halves.
  bool* joined = nullptr;
  /// kOne: one thread, no split (the reference the split is checked against);
  /// kTwo: two threads whatever the size; kAuto: as COOKGRAPH_JSON_THREADS
  /// says, else by size (adapters/events.h).
  JsonThreads threads = JsonThreads::kAuto;
};

/// Stage 2: the events of `source` into records. Syntax errors and values a
/// user must fix come back as an Error with line and column. The records are
/// the same however the input was read (TokenizeOptions).
Result<TraceRecords> TokenizeChromeTrace(ByteSource& source, const TokenizeOptions& options = {});

/// Stage 3: records into a Snapshot. `file` names the input in errors and in
/// SnapshotInfo; `limits` bound the operators (nodes) and frames × operators
/// (samples).
Result<Snapshot> BuildChromeSnapshot(TraceRecords records, const ChromeTraceOptions& options,
                                     const std::string& file, const InputLimits& limits = {});

/// Parses a ts or dur spelled `text` (µs, integer or fraction, or a numeric
/// string) into ns, exactly for up to 3 decimals (rounded beyond). nullopt when
/// `text` is not a number or the result leaves int64.
std::optional<int64_t> MicrosToNanos(std::string_view text);

/// Per slice, within its thread: the enclosing node slice and the self time.
struct Nesting {
  std::vector<bool> kept;       // per slice: nested (a node's slice), as asked
  std::vector<uint32_t> order;  // kept slice indices by (thread, start, end descending, event)
  std::vector<uint32_t> visible_order;  // the visible slices, in the same order
  std::vector<uint32_t> by_start;       // kept slice indices by (start, end descending, event)
  std::vector<uint32_t> parent;         // per slice: the enclosing slice on its thread, or kNone
  std::vector<int64_t> self_ns;         // per slice: duration minus what direct children cover
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>>
      threads;                // thread -> [lo, hi) of order
  uint64_t overlaps = 0;      // slices that start inside a slice and end after it
  std::string first_overlap;  // the first such slice, named
};

/// Pairs the B and E marks of each thread into slices appended to
/// records.slices; v2 flows on B events are moved onto their slice.
/// Returns the warnings (unmatched B or E).
std::vector<std::string> PairBeginEnd(TraceRecords& records);

/// Nests the slices with keep[i] set; the others get no parent and no self time.
/// Kept slices with flat[i] set (GPU streams, where work runs one after another
/// and a slight overlap is the clock's, not a call) are ordered but never nest:
/// no parent, no children, self time = duration. The slices with visible[i]
/// set (a superset of keep: the timeline's) are ordered in the same sort, into
/// `visible_order`; the kept ones also across threads, into `by_start`.
Nesting NestSlices(const TraceRecords& records, const std::vector<bool>& keep,
                   const std::vector<bool>& flat, const std::vector<bool>& visible);

/// One resolved flow: the slices at its two ends.
struct FlowLink {
  uint32_t from = kNone;
  uint32_t to = kNone;
  bool fwdbwd = false;  // a v1 flow of category "fwdbwd": forward op to its backward
};

/// Binds each flow event to a kept slice and follows each flow key from start
/// through steps to end. `unbound` counts the flow events that would have made
/// a link but lie on no kept slice of their thread.
std::vector<FlowLink> ResolveFlows(const TraceRecords& records, const Nesting& nesting,
                                   Tally& unbound);

}  // namespace cookgraph::chrome

#endif  // COOKGRAPH_ADAPTERS_CHROME_RECORDS_H_
