#ifndef COOKGRAPH_MODEL_SERIES_STORE_H_
#define COOKGRAPH_MODEL_SERIES_STORE_H_

// Many series' values in a few large blocks, written one series at a time: a
// reader's alternative to one std::vector per series. A native snapshot of
// 100k nodes × 600 frames holds 140k series; one 4.8 KB block each cost a
// malloc that grew the heap and a page fault per 4 KiB, a third of the read's
// CPU (docs/performance.md#a-snapshots-series-in-large-blocks). Blocks grow
// from 4 KiB to 2 MiB, where the program's operator new puts each in one huge
// page (cli/huge_pages.cc), so a small input pays for no large block.

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace cookgraph {

/// Series written value by value, each kept whole in one block: a span of a
/// closed series stays valid as long as the store.
class SeriesStore {
 public:
  SeriesStore() = default;
  SeriesStore(const SeriesStore&) = delete;
  SeriesStore& operator=(const SeriesStore&) = delete;

  /// Starts a series (closing none: an open one's values are dropped), with
  /// room for `expected` values in the current block (more may follow).
  void Open(size_t expected);
  /// Appends `value` to the open series.
  void Push(double value) {
    if (next_ == end_) NewBlock(2 * open_size() + 1);
    *next_++ = value;
  }
  /// Values of the open series so far.
  size_t open_size() const { return static_cast<size_t>(next_ - open_); }
  /// Ends the open series: its values.
  std::span<const double> Close();

 private:
  // Moves the open series to a new block with room for `room` values in all.
  void NewBlock(size_t room);

  static constexpr size_t kFirstBlock = 512;       // values: 4 KiB
  static constexpr size_t kLargestBlock = 262144;  // values: 2 MiB, one huge page
  std::vector<std::unique_ptr<double[]>> blocks_;
  size_t next_block_ = kFirstBlock;  // values in the next block, at least
  double* open_ = nullptr;           // the open series' first value
  double* next_ = nullptr;           // where its next value goes
  double* end_ = nullptr;            // the end of the current block
};

}  // namespace cookgraph

#endif  // COOKGRAPH_MODEL_SERIES_STORE_H_
