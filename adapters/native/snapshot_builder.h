#ifndef COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_H_
#define COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_H_

// The third stage of the snapshot reader: events (from JSON or YAML) into a
// Snapshot, checking everything docs/formats.md#native-snapshot-format requires on the way.

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adapters/events.h"
#include "adapters/input_limits.h"
#include "model/snapshot.h"

namespace cookgraph {

class SnapshotBuilder final : public EventHandler {
 public:
  /// `file` names the input in errors and warnings; `limits` bound the number
  /// of nodes and the length of names (the tokenizers bound the rest).
  explicit SnapshotBuilder(std::string file, const InputLimits& limits = {});
  ~SnapshotBuilder() override;

  bool BeginObject(Location at) override;
  bool EndObject(Location at) override;
  bool BeginArray(Location at) override;
  bool EndArray(Location at) override;
  bool Key(std::string_view key, Location at) override;
  bool Null(Location at) override;
  bool Bool(bool value, Location at) override;
  bool Number(double value, std::string_view text, bool integer, Location at) override;
  bool String(std::string_view value, Location at) override;

  /// The error that stopped the parse, when a handler method returned false.
  const std::optional<Error>& error() const { return error_; }

  /// After a complete parse: resolves ids and checks the whole; the builder is
  /// spent afterwards.
  Result<Snapshot> Finish();

  /// A split parse (adapters/events.h, JsonSplit; snapshot_builder_join.cc).
  /// The second half's builder starts inside frames.series, before a node's
  /// series, and collects series.
  void StartInsideSeries();
  /// True between two node series of frames.series, where the halves meet.
  bool BetweenSeries() const;
  /// Takes the series `rest` read from `place` on (its places counted from
  /// there: line 1, and that line's columns, from `place`) as if this builder
  /// had read them. False, with nothing taken, where one builder reading on
  /// would have done otherwise (a series given twice, a series of another
  /// length than a complete frames.index): the caller then reads that part
  /// itself.
  bool JoinSeries(SnapshotBuilder& rest, Location place);

 private:
  // The kind of a value in the input; defined with State in
  // adapters/native/snapshot_builder_state.h.
  enum class Got : uint8_t;

  // Every handler first asks Skipping(): true when the event belongs to the value
  // of an unknown key, which is passed over.
  bool Skipping(bool is_begin, bool is_end);
  // Records an error and stops the parse: returns false.
  bool Fail(Location at, std::string where, std::string message);
  // False (with the error) when `name` is longer than the name-length limit;
  // `what` is the field ("an id").
  bool NameFits(std::string_view name, std::string_view what, Location at);
  // Records the error for a value of kind `got` with no place here
  // (snapshot_builder_errors.cc).
  bool Unexpected(Got got, Location at);

  struct State;
  std::unique_ptr<State> s_;
  std::optional<Error> error_;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_NATIVE_SNAPSHOT_BUILDER_H_
