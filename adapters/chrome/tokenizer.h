#ifndef COOKGRAPH_ADAPTERS_CHROME_TOKENIZER_H_
#define COOKGRAPH_ADAPTERS_CHROME_TOKENIZER_H_

// The Chrome trace reader's tokenizer (stage 2): an EventHandler that follows
// the structure of the file (tokenizer.cc) and keeps a few fields
// of each event as a record (event.cc). Internal to adapters/.

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "adapters/chrome/records.h"
#include "adapters/events.h"

namespace cookgraph::chrome {

// Args kept as node parameters, and the name each gets (the names the example
// snapshots and the advisor's packs use).
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kParamArgs = {{
    {"Input Dims", "input_dims"},
    {"Input type", "input_types"},
    {"grid", "grid"},
    {"block", "block"},
    {"registers per thread", "registers per thread"},
    {"shared memory", "shared memory"},
    {"stream", "stream"},
    {"bytes", "bytes"},
    {"provider", "provider"},
    {"input_type_shape", "input_type_shape"},
    {"output_type_shape", "output_type_shape"},
}};

// Whole-number args read from every event: the launch/kernel correlation, the
// fields of Kineto's [memory] events, and what a CUDA stream wait waits on.
inline constexpr std::array<std::string_view, 8> kNumberArgs = {
    "correlation",     "Device Type",    "Device Id",      "Bytes",
    "Total Allocated", "Total Reserved", "wait_on_stream", "wait_on_cuda_event_record_corr_id"};
enum NumberArg : uint8_t {
  kCorrelation,
  kDeviceType,
  kDeviceId,
  kBytes,
  kTotalAllocated,
  kTotalReserved,
  kWaitOnStream,
  kWaitOnRecord
};

/// The event keys the tokenizer reads.
enum class Field : uint8_t {
  kOther,  // any key not read
  kPh,
  kName,
  kCat,
  kTs,
  kDur,
  kPid,
  kTid,
  kId,
  kBp,
  kBindId,
  kFlowIn,
  kFlowOut,
  kArgs
};

/// The Field of event key `key`; kOther for the others.
Field EventField(std::string_view key);

/// What one event says, reset before each.
struct EventFields {
  char ph = 0;  // the phase letter; '\0' when "ph" is not one letter
  std::string name, cat, pid, tid, id, bind_id, bp, label, type;
  bool has_ph = false, has_name = false, has_cat = false, has_pid = false, has_tid = false;
  bool has_id = false, has_bind_id = false, has_label = false, has_type = false;
  std::optional<int64_t> ts, dur;
  bool negative_dur = false;
  bool flow_in = false, flow_out = false;
  std::vector<std::string> inputs;
  // Whitelisted args as (name, text): the first param_count of them. The
  // strings stay from one event to the next, so that reading them allocates
  // nothing once warm (most events repeat a node whose params are kept).
  std::vector<std::pair<std::string, std::string>> params;
  size_t param_count = 0;
  void AddParam(std::string_view key, std::string_view text) {
    if (param_count == params.size()) params.emplace_back();
    params[param_count].first = key;
    params[param_count].second = text;
    ++param_count;
  }
  // Whole-number args that matter (kNumberArgs), each with whether it was given.
  std::array<int64_t, kNumberArgs.size()> numbers{};
  std::array<bool, kNumberArgs.size()> has_number{};
  // ONNX Runtime's args.thread_scheduling_stats when it is an object (event
  // and pool unset until EndEvent).
  bool has_pool = false;
  PoolMark pool;
  std::string pool_name;

  void Clear() {
    // Keeps the strings' capacity: no allocation per event once warm.
    ph = 0;
    for (std::string* s : {&name, &cat, &pid, &tid, &id, &bind_id, &bp, &label, &type}) {
      s->clear();
    }
    has_ph = has_name = has_cat = has_pid = has_tid = false;
    has_id = has_bind_id = has_label = has_type = false;
    ts.reset();
    dur.reset();
    negative_dur = flow_in = flow_out = false;
    inputs.clear();
    param_count = 0;
    has_number.fill(false);
    has_pool = false;
  }
};

/// Turns the JSON events of one trace into `records`; stops at the first error
/// a user must fix (error()).
class Tokenizer final : public EventHandler {
 public:
  Tokenizer(ByteSource& source, TraceRecords& records) : source_(source), r_(records) {}

  const std::optional<Error>& error() const { return error_; }
  // True when the parse stopped between two events of a top-level array: the
  // format allows the closing bracket to be missing.
  bool BetweenEvents() const { return array_form_ && in_events_ && depth_ == 1; }
  bool InsideEvent() const { return event_open_; }
  // Between two events of the traceEvents array, in the object form when
  // `object_form`, else in the array form: where a split parse joins.
  bool AtEventBoundary(bool object_form) const {
    return object_form_ == object_form && in_events_ && depth_ == events_depth_ && !event_open_;
  }
  // Starts as AtEventBoundary(object_form) would find it: the second half of
  // a split parse, which begins at an event.
  void StartInsideEvents(bool object_form);
  uint64_t event_index() const { return r_.events; }

  bool BeginObject(Location at) override { return Open(at, true); }
  bool BeginArray(Location at) override { return Open(at, false); }
  bool EndObject(Location at) override { return Close(at); }
  bool EndArray(Location at) override { return Close(at); }
  bool Key(std::string_view key, Location at) override;
  bool Null(Location at) override { return Scalar(Kind::kNull, "null", at); }
  bool Bool(bool value, Location at) override {
    return Scalar(value ? Kind::kTrue : Kind::kFalse, value ? "true" : "false", at);
  }
  bool Number(double, std::string_view text, bool, Location at) override {
    return Scalar(Kind::kNumber, text, at);
  }
  // Numbers are read from their text (TimeValue, ArgValue).
  bool ReadsNumberValues() const override { return false; }
  // An event's field or an arg that is none of those read: its value changes
  // nothing here, whatever it holds.
  bool SkipsValue() const override {
    if (event_open_ && depth_ == events_depth_ + 1) return field_ == Field::kOther;
    return in_args_ && depth_ == events_depth_ + 2 && arg_ == Arg::kOther;
  }
  bool String(std::string_view value, Location at) override {
    return Scalar(Kind::kString, value, at);
  }

 private:
  enum class Kind : uint8_t { kNull, kTrue, kFalse, kNumber, kString, kObject, kArray };

  static std::string_view KindName(Kind kind) {
    static constexpr std::array<std::string_view, 7> kNames = {
        "null", "true", "false", "a number", "a string", "an object", "an array"};
    return kNames[static_cast<size_t>(kind)];
  }

  bool Open(Location at, bool object);
  bool Close(Location at);
  bool Scalar(Kind kind, std::string_view text, Location at);
  bool EventValue(Kind kind, std::string_view text, Location at);
  bool TimeValue(Kind kind, std::string_view text, Location at);
  bool ArgValue(Kind kind, std::string_view text, Location at);
  // Notes what the args key `key` is, for the value that follows (arg_).
  void ArgKey(std::string_view key);
  // A value under a top-level key other than traceEvents (Kineto's
  // distributedInfo and deviceProperties).
  void TopValue(Kind kind, std::string_view text);
  // Records that `text`, the value of `field`, is longer than the name-length
  // limit (names are interned and become node ids); returns false.
  bool NameTooLong(std::string_view field, std::string_view text, Location at);
  // False (with the error) when the captured arg has passed string-length.
  bool CaptureFits(Location at);
  void CaptureSeparator(bool key);
  void EndEvent();
  void AddMemory();
  void AddArgs(uint32_t index, uint32_t name, uint32_t label);  // EndEvent's, but for 'E'
  // args.correlation of the current event, or kNone.
  uint32_t Correlation() const;
  std::string Where() const { return fmt::format("traceEvents[{}]", r_.events); }
  bool Fail(Location at, std::string where, std::string message) {
    error_ = Error{.file = source_.name(),
                   .line = at.line,
                   .column = at.column,
                   .where = std::move(where),
                   .message = std::move(message)};
    return false;
  }

  ByteSource& source_;
  TraceRecords& r_;
  std::optional<Error> error_;

  int depth_ = 0;  // containers open
  bool object_form_ = false, array_form_ = false;
  bool events_seen_ = false;  // object form: the traceEvents array was found
  bool in_events_ = false;    // inside the traceEvents array (or the top-level array)
  int events_depth_ = -1;     // depth_ directly inside that array
  std::string top_key_;       // object form: the key at depth 1
  std::string nested_key_;    // object form: the latest key below depth 1, outside the events
  bool event_open_ = false;   // inside an event object (depth events_depth_ + 1)
  int64_t event_line_ = 0;
  Field field_ = Field::kOther;  // key read at event level
  bool in_args_ = false;         // inside the event's args object
  // The args key read last: which of the args that matter it is (kNumberArgs
  // or kParamArgs: arg_index_ says which), and for an input key its text.
  enum class Arg : uint8_t { kOther, kName, kOpName, kInput, kNumber, kParam, kPool };
  Arg arg_ = Arg::kOther;
  uint8_t arg_index_ = 0;
  std::string arg_key_;
  // A whitelisted arg (kParamArgs) whose value is an array or object, written
  // out as compact text while it is read; per open container of it, the
  // closing bracket and whether nothing is written in it yet.
  bool capturing_ = false;
  std::string capture_name_, capture_;
  std::vector<std::pair<char, bool>> capture_open_;
  // Inside args.thread_scheduling_stats (ONNX Runtime): its part
  // ("main_thread" or "sub_threads") and the key last read in that part.
  bool in_pool_ = false;
  std::string pool_part_, pool_key_;
  bool PoolOpen(bool object);
  void PoolKey(std::string_view key);
  void PoolValue(Kind kind, std::string_view text);
  EventFields e_;
  std::string scratch_;
  // The ids of texts interned before, in a small table indexed by their
  // length and first and last eight bytes: an event's thread, category and
  // name are nearly always ones seen before, and one comparison of the whole
  // text then stands for hashing it and probing the interner. A miss interns
  // as before, so the ids are the interner's own.
  template <size_t kSize>
  class RecentIds {
   public:
    uint32_t Intern(Interner& strings, std::string_view value) {
      Entry& entry = entries_[Index(value)];
      if (entry.id == kNone || value != entry.text) {
        entry.text = value;
        entry.id = strings.Intern(value);
      }
      return entry.id;
    }

   private:
    static size_t Index(std::string_view v) {
      uint64_t head = 0, tail = 0;
      const size_t n = v.size();
      if (n >= 8) {
        std::memcpy(&head, v.data(), 8);
        std::memcpy(&tail, v.data() + n - 8, 8);
      } else if (n > 0) {
        std::memcpy(&head, v.data(), n);
      }
      const uint64_t h = (head * 0x9E3779B97F4A7C15ULL) ^ (tail * 0xC2B2AE3D27D4EB4FULL) ^ n;
      return static_cast<size_t>((h ^ (h >> 29)) * 0xFF51AFD7ED558CCDULL >> 40) % kSize;
    }
    struct Entry {
      std::string text;
      uint32_t id = kNone;
    };
    std::array<Entry, kSize> entries_;
  };
  RecentIds<16> thread_cache_, cat_cache_;
  RecentIds<256> name_cache_;
  // Per interned string: a node key whose args r_.extras holds (EndEvent).
  std::vector<bool> has_extras_;
};

}  // namespace cookgraph::chrome

#endif  // COOKGRAPH_ADAPTERS_CHROME_TOKENIZER_H_
