// Stage 2 of the Chrome trace reader: JSON events (adapters/json_tokenizer.cc,
// cookgraph's own streaming JSON reader) into TraceRecords. This file follows the structure:
// the top level, the traceEvents array, each event, its args; the values an
// event holds are read in event.cc.

#include "adapters/chrome/tokenizer.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <memory>

namespace cookgraph::chrome {
namespace {

// Kineto's top-level keys besides traceEvents.
constexpr std::array<std::string_view, 6> kKinetoKeys = {"schemaVersion",       "deviceProperties",
                                                         "computeProperties",   "distributedInfo",
                                                         "baseTimeNanoseconds", "traceName"};

}  // namespace

// Before an element of a captured array, or a key of a captured object: ", "
// after the first. A value in an object follows its key without one.
void Tokenizer::CaptureSeparator(bool key) {
  auto& [closer, first] = capture_open_.back();
  if (closer == '}' && !key) return;
  if (!first) capture_ += ", ";
  first = false;
}

bool Tokenizer::Open(Location at, bool object) {
  const Kind kind = object ? Kind::kObject : Kind::kArray;
  // The branches exclude each other (events_depth_ >= 1, and a capture is
  // three levels into an event): the ones every event takes come first.
  if (in_events_ && depth_ == events_depth_) {
    if (!object) return Fail(at, Where(), "is an array, not an event object");
    event_open_ = true;
    event_line_ = at.line;
    e_.Clear();
  } else if (event_open_ && depth_ == events_depth_ + 1) {
    if (field_ == Field::kTs || field_ == Field::kDur) return TimeValue(kind, "", at);
    if (field_ == Field::kArgs && object) in_args_ = true;
  } else if (depth_ == 0) {
    object_form_ = object;
    array_form_ = !object;
    in_events_ = array_form_;
    events_depth_ = array_form_ ? 1 : -1;
  } else if (object_form_ && depth_ == 1) {
    if (top_key_ == "traceEvents") {
      if (object) return Fail(at, "traceEvents", "is an object, not an array of events");
      events_seen_ = in_events_ = true;
      events_depth_ = 2;
    }
  } else if (object_form_ && !in_events_ && depth_ == 2 && object &&
             top_key_ == "deviceProperties") {
    r_.devices.emplace_back();
  } else if (in_args_ && depth_ == events_depth_ + 2) {
    if (arg_ == Arg::kPool && object) {
      in_pool_ = e_.has_pool = true;
      e_.pool = PoolMark{};
      e_.pool_name.clear();
      pool_part_.clear();
      pool_key_.clear();
    } else if (arg_ == Arg::kParam) {
      capturing_ = true;
      capture_name_ = kParamArgs[arg_index_].second;
      capture_.clear();
      capture_open_.clear();
    }
  } else if (capturing_) {
    CaptureSeparator(false);
  }
  if (capturing_) {
    capture_ += object ? '{' : '[';
    capture_open_.emplace_back(object ? '}' : ']', true);
    if (!CaptureFits(at)) return false;
  }
  ++depth_;
  return true;
}

bool Tokenizer::NameTooLong(std::string_view field, std::string_view text, Location at) {
  return Fail(at, Where(), cookgraph::NameTooLong(source_.limits(), field, text.size()));
}

bool Tokenizer::CaptureFits(Location at) {
  if (capture_.size() <= source_.limits().string_length) return true;
  return Fail(at, Where(),
              LimitMessage(source_.limits(), &InputLimits::string_length,
                           fmt::format("args \"{}\" is longer than", capture_name_)));
}

bool Tokenizer::Close(Location at) {
  --depth_;
  if (capturing_) {
    capture_ += capture_open_.back().first;
    capture_open_.pop_back();
    if (!CaptureFits(at)) return false;
    if (capture_open_.empty()) {
      capturing_ = false;
      e_.AddParam(capture_name_, capture_);
    }
  } else if (depth_ == 0) {
    if (object_form_ && !events_seen_) {
      return Fail(at, "",
                  "not a Chrome trace: the object has no \"traceEvents\" array (a trace is an "
                  "array of events or an object with \"traceEvents\")");
    }
  } else if (event_open_ && depth_ == events_depth_) {
    EndEvent();
    event_open_ = false;
  } else if (in_events_ && depth_ == events_depth_ - 1) {
    in_events_ = false;
  } else if (in_args_ && depth_ == events_depth_ + 1) {
    in_args_ = false;
  } else if (in_pool_ && depth_ == events_depth_ + 2) {
    in_pool_ = false;
  }
  return true;
}

bool Tokenizer::Key(std::string_view key, Location at) {
  // As in Open(): the keys of every event first.
  if (event_open_ && depth_ == events_depth_ + 1) {
    field_ = EventField(key);
    return true;
  }
  if (in_args_ && depth_ == events_depth_ + 2) {
    ArgKey(key);
    return true;
  }
  if (capturing_) {
    CaptureSeparator(true);
    capture_ += '"';
    capture_ += key;
    capture_ += "\": ";
    return CaptureFits(at);
  } else if (in_pool_) {
    PoolKey(key);
  } else if (object_form_ && depth_ == 1) {
    top_key_ = key;
    for (std::string_view k : kKinetoKeys) r_.kineto_keys = r_.kineto_keys || k == key;
  } else if (object_form_ && !in_events_ && depth_ >= 2) {
    nested_key_ = key;
  }
  return true;
}

void Tokenizer::TopValue(Kind kind, std::string_view text) {
  int64_t number = 0;
  const bool whole = kind == Kind::kNumber &&
                     std::from_chars(text.data(), text.data() + text.size(), number).ptr ==
                         text.data() + text.size();
  if (top_key_ == "distributedInfo" && depth_ == 2 && whole) {
    if (nested_key_ == "rank") r_.rank = number;
    if (nested_key_ == "world_size") r_.world_size = number;
  } else if (top_key_ == "deviceProperties" && depth_ == 3 && !r_.devices.empty()) {
    DeviceMark& device = r_.devices.back();
    if (nested_key_ == "id" && whole) device.id = number;
    if (nested_key_ == "totalGlobalMem" && whole) device.total_memory = number;
    if (nested_key_ == "name" && kind == Kind::kString) {
      device.name = text.substr(0, source_.limits().name_length);
    }
  }
}

bool Tokenizer::Scalar(Kind kind, std::string_view text, Location at) {
  // As in Open(): the values of every event first.
  if (event_open_ && depth_ == events_depth_ + 1) return EventValue(kind, text, at);
  if (in_args_ && depth_ == events_depth_ + 2) return ArgValue(kind, text, at);
  if (depth_ == 0) {
    return Fail(at, "",
                fmt::format("not a Chrome trace: the input is {}, not an array of events or an "
                            "object with \"traceEvents\"",
                            KindName(kind)));
  }
  if (capturing_) {
    CaptureSeparator(false);
    if (kind == Kind::kString) capture_ += '"';
    capture_ += text;
    if (kind == Kind::kString) capture_ += '"';
    return CaptureFits(at);
  } else if (in_pool_) {
    PoolValue(kind, text);
  } else if (object_form_ && depth_ == 1) {
    if (top_key_ == "traceEvents") {
      return Fail(at, "traceEvents", fmt::format("is {}, not an array of events", KindName(kind)));
    }
    if (top_key_ == "baseTimeNanoseconds" && kind == Kind::kNumber) {
      int64_t base = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), base);
      if (ec == std::errc() && end == text.data() + text.size()) r_.base_time_ns = base;
    }
  } else if (object_form_ && !in_events_ && depth_ >= 2) {
    TopValue(kind, text);
  } else if (in_events_ && depth_ == events_depth_) {
    return Fail(at, Where(), fmt::format("is {}, not an event object", KindName(kind)));
  }
  return true;
}

void Tokenizer::StartInsideEvents(bool object_form) {
  object_form_ = object_form;
  array_form_ = !object_form;
  events_seen_ = object_form;
  in_events_ = true;
  events_depth_ = depth_ = object_form ? 2 : 1;
  if (object_form) top_key_ = "traceEvents";
}

namespace {

// Where a split parse looks for its second half: from `from`, at an event of
// the traceEvents array (FindSplitPoint), in a plain input that can be read
// twice; nullopt for a one-piece parse.
std::optional<JsonSplit> PlanSplit(ByteSource& source, uint64_t from) {
  const char first = source.PeekNonBlank();
  if ((first != '[' && first != '{') || source.failed() ||
      source.stored_size() > source.limits().input_size) {
    return std::nullopt;
  }
  std::unique_ptr<ByteSource> rest = source.Reopen();
  if (rest == nullptr) return std::nullopt;
  const std::optional<uint64_t> at = FindSplitPoint(*rest, from);
  if (!at || !rest->SkipTo(*at)) return std::nullopt;
  return JsonSplit{.at = *at, .open = first == '{' ? "{[" : "[", .rest = std::move(rest)};
}

// A split whose second half places it once `source`, inflating in the
// background, is whole (JsonSplit::inflating): the first half reads as the
// bytes come.
std::optional<JsonSplit> PlanSplitLater(ByteSource& source) {
  const char first = source.PeekNonBlank();
  // (Found corrupt before a byte was read, it is read block by block now.)
  if ((first != '[' && first != '{') || source.failed() || !source.InflatesInBackground()) {
    return std::nullopt;
  }
  return JsonSplit{.open = first == '{' ? "{[" : "[", .inflating = &source};
}

}  // namespace

Result<TraceRecords> TokenizeChromeTrace(ByteSource& source, const TokenizeOptions& options) {
  TraceRecords records;
  Tokenizer tokenizer(source, records);
  bool at_end = false;
  // One thread when asked for (the options, else COOKGRAPH_JSON_THREADS);
  // else a split parse where split_from says, or from the middle of an input
  // that two threads are for.
  const JsonPlan plan = PlanJsonThreads(source, options.threads, options.split_from);
  const JsonThreads threads = plan.threads;
  std::optional<JsonSplit> split;
  if (plan.split_from) {
    split = source.InflatesInBackground() && !options.split_from
                ? PlanSplitLater(source)
                : PlanSplit(source, *plan.split_from);
  }
  // Room for the slices the bytes may hold, so that the table is not copied
  // as it grows, nor when the second half's slices join it: a reservation,
  // whose pages are taken only as slices are written (a Kineto event is 150
  // bytes or more).
  auto room = [](uint64_t bytes) {
    return static_cast<size_t>(std::min<uint64_t>(bytes / 128, uint64_t{1} << 23));
  };
  records.slices.reserve(room(source.stored_size()));
  Status parsed;
  if (split) {
    // Two halves: the second half's records join the first's when the first
    // reaches them; see ParseJsonEventsSplit.
    TraceRecords rest_records;
    const uint64_t rest_bytes =
        split->inflating != nullptr
            ? source.stored_size() / 2
            : source.stored_size() - std::min(split->at, source.stored_size());
    rest_records.slices.reserve(room(rest_bytes));
    Tokenizer rest(source, rest_records);  // the same name and limits as split->rest's
    const bool object_form = split->open == "{[";
    rest.StartInsideEvents(object_form);
    split->rest_handler = &rest;
    split->at_boundary = [&] { return tokenizer.AtEventBoundary(object_form); };
    split->join = [&](Location place) {
      AppendRecords(records, std::move(rest_records), place.line);
      return true;
    };
    parsed = ParseJsonEventsSplit(source, tokenizer, *split, &at_end);
    if (options.joined != nullptr) *options.joined = split->joined;
  } else {
    parsed = ParseJsonEvents(source, tokenizer, &at_end, threads);
    if (options.joined != nullptr) *options.joined = false;
  }
  if (parsed) return records;
  if (tokenizer.error()) return *tokenizer.error();
  if (source.failed()) return parsed.error();
  // The format allows a bare array to end without its closing bracket (a
  // tracer killed mid-run): the events read so far are the trace.
  if (at_end && tokenizer.BetweenEvents()) {
    records.missing_bracket = true;
    return records;
  }
  Error error = parsed.error();
  if (at_end && tokenizer.InsideEvent()) {
    error.where = fmt::format("traceEvents[{}]", tokenizer.event_index());
    error.message = "the input ends inside this event (cut short?): " + error.message;
  } else if (at_end) {
    error.message = "the input ends early (cut short?): " + error.message;
  }
  return error;
}

}  // namespace cookgraph::chrome
