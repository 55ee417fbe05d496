#include "advisor/llm/rate_floor.h"

#include <algorithm>

namespace cookgraph {

bool RateFloor::Record(size_t bytes, double now_s) {
  if (min_bytes_per_s_ <= 0) return true;
  // The first arrival has no gap before it: its bytes count, no time does.
  if (started_) charged_ += std::clamp(now_s - last_s_, 0.0, kMaxChargedGapS);
  started_ = true;
  last_s_ = now_s;
  bytes_ += static_cast<double>(bytes);
  if (charged_ < window_s_) return true;
  last_rate_ = bytes_ / charged_;
  charged_ = 0;
  bytes_ = 0;
  return last_rate_ >= min_bytes_per_s_;
}

}  // namespace cookgraph
