#include "model/series_store.h"

#include <algorithm>

namespace cookgraph {

void SeriesStore::Open(size_t expected) {
  open_ = next_;
  if (static_cast<size_t>(end_ - next_) < expected) NewBlock(expected);
}

std::span<const double> SeriesStore::Close() {
  std::span<const double> values(open_, next_);
  open_ = next_;
  return values;
}

void SeriesStore::NewBlock(size_t room) {
  const size_t size = std::max(room, next_block_);
  // Default-initialised, not zeroed: every value is written before it is
  // read (std::make_unique_for_overwrite, which Emscripten's libc++ lacks).
  std::unique_ptr<double[]> block(new double[size]);
  const size_t open = open_size();
  if (open > 0) std::copy(open_, next_, block.get());
  open_ = block.get();
  next_ = open_ + open;
  end_ = open_ + size;
  blocks_.push_back(std::move(block));
  next_block_ = std::min(next_block_ * 2, kLargestBlock);
}

}  // namespace cookgraph
