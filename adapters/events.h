#ifndef COOKGRAPH_ADAPTERS_EVENTS_H_
#define COOKGRAPH_ADAPTERS_EVENTS_H_

// The second stage of the snapshot reader: JSON and YAML both become one stream
// of events (begin/end of objects and arrays, keys, scalars), each with the place
// in the input where it occurred. One builder turns either stream into a
// Snapshot, so the two spellings cannot drift apart and neither needs a document
// tree in memory.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "adapters/byte_source.h"
#include "base/error.h"

namespace cookgraph {

/// 1-based line and column; 0 = unknown.
struct Location {
  int64_t line = 0;
  int64_t column = 0;
};

/// Receives events. Every method returns false to stop the parse; the handler
/// then keeps its own error.
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual bool BeginObject(Location at) = 0;
  virtual bool EndObject(Location at) = 0;
  virtual bool BeginArray(Location at) = 0;
  virtual bool EndArray(Location at) = 0;
  /// An object key (a mapping key in YAML).
  virtual bool Key(std::string_view key, Location at) = 0;
  virtual bool Null(Location at) = 0;
  virtual bool Bool(bool value, Location at) = 0;
  /// A number; `text` is its spelling in the input (integers: digits only).
  virtual bool Number(double value, std::string_view text, bool integer, Location at) = 0;
  virtual bool String(std::string_view value, Location at) = 0;

  /// Asked after each Key() by the one-thread reader: true when the value
  /// that follows means nothing to the handler, which then gets none of its
  /// events (the reader still checks it and its limits, and fails on it as
  /// on any value).
  virtual bool SkipsValue() const { return false; }
  /// False when Number()'s `value` is never read (the handler parses `text`):
  /// the reader then passes 0 and converts only numbers that may overflow, to
  /// refuse them as before.
  virtual bool ReadsNumberValues() const { return true; }
};

/// Parses JSON from `source` into `handler`. A syntax error is returned with its
/// line and column; a stop by the handler returns an Error with an empty message
/// (the handler holds the real one). When `ended_early` is given, it tells
/// whether the error was the input ending before the document did (the reader
/// reads ahead, so the source's own position cannot tell).
///
/// `threads`: kTwo reads the JSON on a worker thread while the handler runs on
/// the calling one (the handler sees the same events either way); kAuto does
/// that for inputs of 16 MiB or more on a machine with two cores or more.
enum class JsonThreads : uint8_t { kAuto, kOne, kTwo };
Status ParseJsonEvents(ByteSource& source, EventHandler& handler, bool* ended_early = nullptr,
                       JsonThreads threads = JsonThreads::kAuto);

/// The thread count COOKGRAPH_JSON_THREADS asks for (1 or 2), else kAuto.
JsonThreads JsonThreadsFromEnvironment();
/// True when kAuto reads `source` on two threads: 16 MiB or more, two cores.
bool UseTwoThreads(const ByteSource& source);

/// How a reader that can split its input parses `source`: `threads` (kAuto:
/// COOKGRAPH_JSON_THREADS, else two threads where UseTwoThreads or a
/// `split_from` says so), and, on two threads, where a split parse looks for
/// its second half (`split_from`, else the middle of the input); none on one.
struct JsonPlan {
  JsonThreads threads = JsonThreads::kOne;
  std::optional<uint64_t> split_from;
};
JsonPlan PlanJsonThreads(const ByteSource& source, JsonThreads threads,
                         std::optional<uint64_t> split_from);

/// A parse in two halves at once, each half reading and handling its own
/// bytes (docs/performance.md#both-cores-in-the-parse): the first half on the
/// calling thread, the second on a worker, from `at` on.
///
/// `at` is a guess at the offset of a value in an array (or of a key in an
/// object) that holds most of the input, inside the containers `open`
/// (outermost first, '{' or '['; the innermost is that array or object). The
/// second half reads `rest` (the same input, ByteSource::Reopen()) from `at`
/// into `rest_handler`, as if the array's values (the object's members) began
/// there, up to where the container closes. When the first half reaches `at`
/// before a value (a key), inside exactly `open`, and the second half ended
/// without an error, `join(place)` is asked on the calling thread (`place`:
/// the 1-based line and column of `at`; the second half counts lines from 1
/// there, and columns of that line from `at`) whether `handler` takes
/// `rest_handler`'s events as its own; the parse then goes on after the
/// container's last member, and `joined` is set.
/// Otherwise (a wrong guess, an error in the second half, a no from `join`)
/// the first half reads on from `at` itself. Either way `handler` ends up
/// with what a one-thread parse gives it, and the status is the same.
/// `at_boundary`, when given, is asked first, before the second half is
/// waited for: false gives the split up at once (the handler is not between
/// two members of that container). An `at` within the first 3 bytes, where a
/// byte-order mark may be, is read on one thread.
struct JsonSplit {
  uint64_t at = 0;
  std::string open;
  std::unique_ptr<ByteSource> rest;
  /// Instead of `at` and `rest`: the source the first half reads, inflating
  /// in the background (ByteSource::InflatesInBackground). The second half's
  /// thread then waits for the inflate to end and places the split itself,
  /// at an event halfway from where the first half has read to the end,
  /// holding the first half's reads there; none when there is no room left.
  ByteSource* inflating = nullptr;
  EventHandler* rest_handler = nullptr;
  std::function<bool()> at_boundary;
  std::function<bool(Location place)> join;
  bool joined = false;
};
Status ParseJsonEventsSplit(ByteSource& source, EventHandler& handler, JsonSplit& split,
                            bool* ended_early = nullptr);

/// A guess at `at` for JsonSplit, read from `source` (a ByteSource::Reopen(),
/// left anywhere): the first `first` byte ('{', an object in an array; '"', a
/// key of an object) at or after offset `from`, within 1 MiB, that follows a
/// ',' and blanks with a line break among them (one event or member a line,
/// as Kineto and cookgraph's exporters write), else the first that follows a
/// ','; nullopt when there is none. With `accept`, only a byte whose text (to
/// the window's end) it accepts counts.
std::optional<uint64_t> FindSplitPoint(
    ByteSource& source, uint64_t from, char first = '{',
    const std::function<bool(std::string_view)>& accept = nullptr);

/// Parses YAML (one document) from `source` into `handler`. Plain scalars are
/// typed by the YAML 1.2 core schema (null, true/false, integers, floats,
/// .inf/.nan); quoted scalars are strings. Anchors and aliases are refused.
Status ParseYamlEvents(ByteSource& source, EventHandler& handler);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_EVENTS_H_
