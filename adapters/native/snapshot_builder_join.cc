#include "adapters/native/snapshot_builder.h"
#include "adapters/native/snapshot_builder_state.h"

// The series of a split parse (adapters/events.h, JsonSplit): a second builder
// reads the second half of frames.series on another core, and the first takes
// its series when it reaches them, as if it had read them itself.

namespace cookgraph {

using builder_internal::Ctx;
using builder_internal::Field;
using builder_internal::PendingSeries;

namespace {

constexpr std::array<Ctx, 3> kInsideSeries = {Ctx::kTop, Ctx::kFrames, Ctx::kSeries};

// A place the second half counted from `place` (its line 1, and that line's
// columns from `place`), as the whole input counts it.
Location Shifted(Location at, Location place) {
  if (at.line == 0) return at;  // unknown
  return {.line = at.line + place.line - 1,
          .column = at.line == 1 ? at.column + place.column - 1 : at.column};
}

}  // namespace

void SnapshotBuilder::StartInsideSeries() {
  State& s = *s_;
  s.stack.assign(kInsideSeries.begin(), kInsideSeries.end());
  s.frames_seen = true;
  s.field = Field::kSeries;
}

bool SnapshotBuilder::BetweenSeries() const {
  const State& s = *s_;
  return !error_ && s.skip_depth == 0 && !s.skip_next &&
         std::equal(s.stack.begin(), s.stack.end(), kInsideSeries.begin(), kInsideSeries.end());
}

bool SnapshotBuilder::JoinSeries(SnapshotBuilder& rest, Location place) {
  State& s = *s_;
  State& r = *rest.s_;
  if (!BetweenSeries() || !rest.BetweenSeries()) return false;
  // What one builder reading on would have refused where it read it: a
  // series given twice, or of another length than a complete frames.index.
  for (const PendingSeries& series : r.series) {
    if (s.series_by_id.contains(series.id)) return false;
    for (size_t m = 0; m < kMetricCount; ++m) {
      if (s.index_complete && series.present[m] && series.values[m].size() != s.index.size()) {
        return false;
      }
    }
  }
  // Not entered in series_by_id: frames.series closes where the second half
  // ended, so no series follows to be checked against them.
  s.series.reserve(s.series.size() + r.series.size());
  for (PendingSeries& series : r.series) {
    series.at = Shifted(series.at, place);
    for (Location& at : series.value_at) at = Shifted(at, place);
    s.series.push_back(std::move(series));
  }
  std::vector<PendingSeries>().swap(r.series);
  s.stores.insert(s.stores.end(), r.stores.begin(), r.stores.end());
  for (auto& [message, key] : r.unknown_keys) {
    auto& entry = s.unknown_keys[message];
    if (entry.count == 0) entry.first = Shifted(key.first, place);
    entry.count += key.count;
  }
  return true;
}

}  // namespace cookgraph
