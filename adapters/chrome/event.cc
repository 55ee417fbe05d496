// The values of one Chrome trace event (stage 2 of the reader): its fields,
// its times as exact ns, the args that matter, and at its end the record it
// becomes. A value a user must fix stops the parse with its place; a record
// that is bad on its own is counted and skipped.

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "adapters/chrome/tokenizer.h"

namespace cookgraph::chrome {
namespace {

// The largest dur a real slice can have: 1e12 µs is 11.6 days.
constexpr double kMaxDurMicros = 1e12;

bool IsInputKey(std::string_view key) {
  if (key.size() <= 5 || key.substr(0, 5) != "input") return false;
  for (char c : key.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

constexpr std::array<std::pair<std::string_view, Field>, 13> kFields = {{
    {"ph", Field::kPh},
    {"name", Field::kName},
    {"cat", Field::kCat},
    {"ts", Field::kTs},
    {"dur", Field::kDur},
    {"pid", Field::kPid},
    {"tid", Field::kTid},
    {"id", Field::kId},
    {"bp", Field::kBp},
    {"bind_id", Field::kBindId},
    {"flow_in", Field::kFlowIn},
    {"flow_out", Field::kFlowOut},
    {"args", Field::kArgs},
}};

// The key of `field`, for messages.
std::string_view EventFieldName(Field field) {
  for (const auto& [name, f] : kFields) {
    if (f == field) return name;
  }
  return "";
}

}  // namespace

Field EventField(std::string_view key) {
  // Every key of every event comes here: one comparison for the usual ones.
  auto is = [&](std::string_view name) {
    return std::memcmp(key.data(), name.data(), name.size()) == 0;
  };
  switch (key.size()) {
    case 2:
      return is("ph")   ? Field::kPh
             : is("ts") ? Field::kTs
             : is("id") ? Field::kId
             : is("bp") ? Field::kBp
                        : Field::kOther;
    case 3:
      return is("cat")   ? Field::kCat
             : is("dur") ? Field::kDur
             : is("pid") ? Field::kPid
             : is("tid") ? Field::kTid
                         : Field::kOther;
    case 4:
      return is("name") ? Field::kName : is("args") ? Field::kArgs : Field::kOther;
    case 7:
      return is("bind_id") ? Field::kBindId : is("flow_in") ? Field::kFlowIn : Field::kOther;
    case 8:
      return is("flow_out") ? Field::kFlowOut : Field::kOther;
    default:
      return Field::kOther;
  }
}

void Tokenizer::ArgKey(std::string_view key) {
  // Every key of every event's args comes here, a dozen per event and most
  // of them read by nothing: the key's length picks the one to three names
  // it can be, from a table made at compile time out of kNumberArgs,
  // kParamArgs and the few others.
  struct Name {
    std::string_view key;
    Arg arg;
    uint8_t index;
  };
  static constexpr size_t kLongest = 40;
  static constexpr auto kNames = [] {
    std::array<Name, kNumberArgs.size() + kParamArgs.size() + 3> names{};
    size_t n = 0;
    names[n++] = {"name", Arg::kName, 0};
    names[n++] = {"op_name", Arg::kOpName, 0};
    names[n++] = {"thread_scheduling_stats", Arg::kPool, 0};
    for (size_t k = 0; k < kNumberArgs.size(); ++k)
      names[n++] = {kNumberArgs[k], Arg::kNumber, static_cast<uint8_t>(k)};
    for (size_t k = 0; k < kParamArgs.size(); ++k)
      names[n++] = {kParamArgs[k].first, Arg::kParam, static_cast<uint8_t>(k)};
    return names;
  }();
  // Per length, the indexes into kNames of the names that long (0xFF ends).
  static constexpr auto kByLength = [] {
    std::array<std::array<uint8_t, 4>, kLongest + 1> by{};
    for (auto& slot : by) slot.fill(0xFF);
    for (size_t i = 0; i < kNames.size(); ++i) {
      auto& slot = by[kNames[i].key.size()];  // a name over kLongest fails to compile
      size_t free = 0;
      while (slot[free] != 0xFF) ++free;  // more than three of a length fails to compile
      slot[free] = static_cast<uint8_t>(i);
    }
    return by;
  }();
  arg_ = Arg::kOther;
  if (key.size() <= kLongest) {
    for (uint8_t i : kByLength[key.size()]) {
      if (i == 0xFF) break;
      if (std::memcmp(key.data(), kNames[i].key.data(), key.size()) == 0) {
        arg_ = kNames[i].arg;
        arg_index_ = kNames[i].index;
        return;
      }
    }
  }
  if (IsInputKey(key)) {
    arg_ = Arg::kInput;
    arg_key_ = key;  // for its message
  }
}

bool Tokenizer::EventValue(Kind kind, std::string_view text, Location at) {
  const bool scalar_text = kind == Kind::kString || kind == Kind::kNumber;
  // Every text field kept is a name (interned; an id, a thread, a flow key).
  // The length first: it is almost never past the limit.
  if (text.size() > source_.limits().name_length && scalar_text && field_ != Field::kOther &&
      field_ != Field::kArgs && field_ != Field::kTs && field_ != Field::kDur) {
    return NameTooLong(fmt::format("\"{}\"", EventFieldName(field_)), text, at);
  }
  auto set = [&](std::string& field, bool& has) {
    if (!scalar_text) return;
    field = text;
    has = true;
  };
  switch (field_) {
    case Field::kPh:
      if (scalar_text) {
        e_.ph = text.size() == 1 ? text[0] : '\0';  // a phase is one letter
        e_.has_ph = true;
      }
      break;
    case Field::kName:
      set(e_.name, e_.has_name);
      break;
    case Field::kCat:
      set(e_.cat, e_.has_cat);
      break;
    case Field::kTs:
    case Field::kDur:
      return TimeValue(kind, text, at);
    case Field::kPid:
      set(e_.pid, e_.has_pid);
      break;
    case Field::kTid:
      set(e_.tid, e_.has_tid);
      break;
    case Field::kId:
      set(e_.id, e_.has_id);
      break;
    case Field::kBindId:
      set(e_.bind_id, e_.has_bind_id);
      break;
    case Field::kBp:
      if (kind == Kind::kString) e_.bp = text;
      break;
    case Field::kFlowIn:
      e_.flow_in = kind == Kind::kTrue;
      break;
    case Field::kFlowOut:
      e_.flow_out = kind == Kind::kTrue;
      break;
    case Field::kArgs:
    case Field::kOther:
      break;
  }
  return true;
}

bool Tokenizer::TimeValue(Kind kind, std::string_view text, Location at) {
  const bool is_ts = field_ == Field::kTs;
  // Built only for a message: this runs twice per event.
  auto shown = [&] {
    return kind == Kind::kString   ? fmt::format("\"{}\"", text.substr(0, 40))
           : kind == Kind::kNumber ? std::string(text.substr(0, 40))
                                   : std::string(KindName(kind));
  };
  // A number, or a string that spells one (Perfetto reads those too). The
  // JSON reader has checked a number's spelling and that it is finite.
  const std::optional<int64_t> ns = MicrosToNanos(text);
  double value = ns ? static_cast<double>(*ns) / 1000 : NAN;
  if (!ns || kind == Kind::kString) {
    const std::string copy(text);
    char* end = nullptr;
    value = copy.empty() ? NAN : std::strtod(copy.c_str(), &end);
    if ((kind != Kind::kNumber && kind != Kind::kString) || !std::isfinite(value) ||
        end != copy.c_str() + copy.size()) {
      return Fail(
          at, Where(),
          fmt::format("{} is {}, not a number of microseconds", is_ts ? "ts" : "dur", shown()));
    }
  }
  if (is_ts) {
    if (!ns) {
      return Fail(
          at, Where(),
          fmt::format("ts {} is past any clock in microseconds (ns written as µs?)", shown()));
    }
    // 2^62 ns (146 years) either way: beyond it the differences of two
    // timestamps would leave int64.
    if (*ns > (int64_t{1} << 62) || *ns < -(int64_t{1} << 62)) {
      return Fail(
          at, Where(),
          fmt::format("ts {} is past any clock in microseconds (ns written as µs?)", shown()));
    }
    e_.ts = ns;
  } else if (value < 0) {
    e_.negative_dur = true;  // counted when the event ends
  } else if (!ns || value > kMaxDurMicros) {
    return Fail(
        at, Where(),
        fmt::format("dur {} µs is over 1e12 µs (11.6 days): not a slice's duration", shown()));
  } else {
    e_.dur = ns;
  }
  return true;
}

bool Tokenizer::ArgValue(Kind kind, std::string_view text, Location at) {
  const bool string = kind == Kind::kString;
  switch (arg_) {
    case Arg::kName:
    case Arg::kOpName:
    case Arg::kInput: {
      if (!string) break;
      if (text.size() > source_.limits().name_length) {
        std::string_view key = arg_key_;  // an input key's own text
        if (arg_ == Arg::kName) key = "name";
        if (arg_ == Arg::kOpName) key = "op_name";
        return NameTooLong(fmt::format("args \"{}\"", key), text, at);
      }
      if (arg_ == Arg::kName) {
        e_.label = text;
        e_.has_label = true;
      } else if (arg_ == Arg::kOpName) {
        e_.type = text;
        e_.has_type = true;
      } else {
        e_.inputs.emplace_back(text);
      }
      break;
    }
    case Arg::kNumber: {
      if (kind != Kind::kNumber) break;
      int64_t number = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (ec == std::errc() && end == text.data() + text.size()) {
        e_.numbers[arg_index_] = number;
        e_.has_number[arg_index_] = true;
      }
      break;
    }
    case Arg::kParam:
      e_.AddParam(kParamArgs[arg_index_].second, text);
      break;
    case Arg::kPool:  // "" where the session has no intra-op pool (one thread)
    case Arg::kOther:
      break;
  }
  return true;
}

// args.thread_scheduling_stats, as ONNX Runtime's thread pool profiler writes
// it: {"main_thread": {"thread_pool_name", "thread_id", "block_size": [...],
// "core", "Distribution", "DistributionEnqueue", "Run", "Wait", "WaitRevoke"},
// "sub_threads": {"<thread id>": {"num_run", "core"}, ...}}; times in µs.
void Tokenizer::PoolKey(std::string_view key) {
  const int inside = depth_ - events_depth_;  // 3: the stats object
  if (inside == 3) {
    pool_part_ = key;
  } else if (inside == 4 && pool_part_ == "sub_threads") {
    ++e_.pool.helpers;
  } else if (inside == 4 || inside == 5) {
    pool_key_ = key;
  }
}

void Tokenizer::PoolValue(Kind kind, std::string_view text) {
  const int inside = depth_ - events_depth_;
  const bool main = pool_part_ == "main_thread";
  if (main && inside == 5 && pool_key_ == "block_size") {
    ++e_.pool.parallel_sections;
    return;
  }
  if (main && inside == 4 && kind == Kind::kString && pool_key_ == "thread_pool_name") {
    e_.pool_name = text.substr(0, source_.limits().name_length);
    return;
  }
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (kind != Kind::kNumber || ec != std::errc() || end != text.data() + text.size() || n < 0) {
    return;
  }
  if (main && inside == 4) {
    if (pool_key_ == "Run") e_.pool.run_us += n;
    if (pool_key_ == "Wait" || pool_key_ == "WaitRevoke") e_.pool.wait_us += n;
    if (pool_key_ == "Distribution" || pool_key_ == "DistributionEnqueue") {
      e_.pool.distribution_us += n;
    }
  } else if (pool_part_ == "sub_threads" && inside == 5 && pool_key_ == "num_run") {
    e_.pool.helper_runs += n;
  }
}

uint32_t Tokenizer::Correlation() const {
  const int64_t c = e_.numbers[kCorrelation];
  return e_.has_number[kCorrelation] && c >= 0 && c < int64_t{kNone} ? static_cast<uint32_t>(c)
                                                                     : kNone;
}

void Tokenizer::AddMemory() {
  scratch_ = e_.pid;
  scratch_ += '\x1F';
  scratch_ += e_.has_tid ? e_.tid : e_.pid;
  MemoryMark m{.ts = *e_.ts, .thread = thread_cache_.Intern(r_.strings, scratch_)};
  m.bytes = e_.has_number[kBytes] ? e_.numbers[kBytes] : 0;
  m.total_allocated = e_.has_number[kTotalAllocated] ? e_.numbers[kTotalAllocated] : 0;
  m.total_reserved = e_.has_number[kTotalReserved] ? e_.numbers[kTotalReserved] : 0;
  auto small = [&](NumberArg arg) {
    const int64_t v = e_.numbers[arg];
    return e_.has_number[arg] && v >= -1 && v < 1 << 20 ? static_cast<int32_t>(v) : -1;
  };
  m.device_type = small(kDeviceType);
  m.device = small(kDeviceId);
  r_.memory.push_back(m);
}

// A begin or complete event's args: a node key's inputs and params (from its
// first event), its wait and its thread pool's args.
void Tokenizer::AddArgs(uint32_t index, uint32_t name, uint32_t label) {
  if (!e_.inputs.empty() || e_.param_count > 0) {
    // Only a node key's first event gives its args: a table by interned id
    // says which keys have them, without a hash lookup per event.
    const uint32_t key = label != kNone ? label : name;
    if (key >= has_extras_.size())
      has_extras_.resize(std::max<size_t>(key + 1, 2 * has_extras_.size()));
    if (!has_extras_[key]) {
      has_extras_[key] = true;
      // Records joined from a split parse's second half may hold the key.
      auto [it, added] = r_.extras.try_emplace(key);
      if (added) {
        it->second.inputs = e_.inputs;
        it->second.params.assign(e_.params.begin(),
                                 e_.params.begin() + static_cast<ptrdiff_t>(e_.param_count));
      }
    }
  }
  if (e_.has_number[kWaitOnStream] || e_.has_number[kWaitOnRecord]) {
    r_.waits.push_back(
        WaitMark{.event = index,
                 .wait_on_stream = e_.has_number[kWaitOnStream] ? e_.numbers[kWaitOnStream] : -1,
                 .wait_on_record = e_.has_number[kWaitOnRecord] ? e_.numbers[kWaitOnRecord] : -1});
  }
  if (e_.has_pool) {
    e_.pool.event = index;
    e_.pool.pool = r_.strings.Intern(e_.pool_name);
    r_.pools.push_back(e_.pool);
  }
}

void Tokenizer::EndEvent() {
  const auto index = static_cast<uint32_t>(r_.events);
  ++r_.events;
  if (!e_.has_ph || e_.ph == '\0') {
    if (!e_.has_ph) r_.no_phase.Add(index, event_line_);
    return;
  }
  const char ph = e_.ph;
  const bool slice = ph == 'X' || ph == 'B' || ph == 'E';
  const bool flow = ph == 's' || ph == 't' || ph == 'f';
  if (ph == 'b' || ph == 'e' || ph == 'n') r_.async.Add(index, event_line_);
  if ((ph == 'i' || ph == 'I') && e_.ts && e_.name == "[memory]") {
    AddMemory();
    return;
  }
  if (ph == 'M' && e_.name == "process_name" && e_.has_label) {
    r_.process_names.emplace_back(r_.strings.Intern(e_.pid), r_.strings.Intern(e_.label));
    return;
  }
  if (!slice && !flow) return;  // other metadata and instants, counters, objects: not read
  if (!e_.ts) {
    r_.no_ts.Add(index, event_line_);
    return;
  }
  // Perfetto's rule: a missing tid is the pid (one thread per process).
  scratch_ = e_.pid;
  scratch_ += '\x1F';
  scratch_ += e_.has_tid ? e_.tid : e_.pid;
  const uint32_t thread = thread_cache_.Intern(r_.strings, scratch_);
  const uint32_t cat = e_.has_cat ? cat_cache_.Intern(r_.strings, e_.cat) : kNone;

  if (flow) {
    if (!e_.has_id) {
      r_.flow_without_id.Add(index, event_line_);
      return;
    }
    bool fwdbwd = false;
    const FlowKey key = FlowKeyOf(r_, e_.cat, cat, e_.id, false, fwdbwd);
    r_.flows.push_back(FlowMark{.ts = *e_.ts,
                                .key = key,
                                .thread = thread,
                                .event = index,
                                .phase = ph == 's'   ? FlowPhase::kStart
                                         : ph == 't' ? FlowPhase::kStep
                                                     : FlowPhase::kEnd,
                                .enclosing = ph != 'f' || e_.bp == "e",
                                .fwdbwd = fwdbwd});
    return;
  }
  if (ph == 'X' && !e_.dur) {
    if (e_.negative_dur) {
      r_.negative_dur.Add(index, event_line_);
    } else {
      r_.no_dur.Add(index, event_line_);
    }
    return;
  }
  const uint32_t name = name_cache_.Intern(r_.strings, e_.has_name ? e_.name : std::string_view());
  const uint32_t label = e_.has_label ? r_.strings.Intern(e_.label) : kNone;
  const uint32_t type = e_.has_type ? r_.strings.Intern(e_.type) : kNone;
  if (ph != 'E') AddArgs(index, name, label);
  uint32_t target = kNone;
  if (ph == 'X') {
    const int64_t start = *e_.ts;
    const int64_t end = start > std::numeric_limits<int64_t>::max() - *e_.dur
                            ? std::numeric_limits<int64_t>::max()
                            : start + *e_.dur;
    target = static_cast<uint32_t>(r_.slices.size());
    r_.AddSlice(Slice{.start = start,
                      .end = end,
                      .name = name,
                      .cat = cat,
                      .thread = thread,
                      .event = index,
                      .correlation = Correlation()},
                SliceTags{.label = label, .type = type});
  } else {
    target = static_cast<uint32_t>(r_.marks.size());
    r_.marks.push_back(Mark{.ts = *e_.ts,
                            .thread = thread,
                            .event = index,
                            .name = name,
                            .cat = cat,
                            .label = label,
                            .type = type,
                            .correlation = Correlation(),
                            .begin = ph == 'B'});
  }
  if (ph != 'E' && e_.has_bind_id && (e_.flow_in || e_.flow_out)) {
    bool fwdbwd = false;
    const FlowKey key = FlowKeyOf(r_, "", kNone, e_.bind_id, true, fwdbwd);
    r_.flows.push_back(FlowMark{.ts = *e_.ts,
                                .key = key,
                                .thread = thread,
                                .event = index,
                                .slice = target,
                                .phase = e_.flow_in && e_.flow_out ? FlowPhase::kStep
                                         : e_.flow_out             ? FlowPhase::kStart
                                                                   : FlowPhase::kEnd,
                                .on_mark = ph == 'B'});
  }
}

}  // namespace cookgraph::chrome
