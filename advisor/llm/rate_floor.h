#ifndef COOKGRAPH_ADVISOR_LLM_RATE_FLOOR_H_
#define COOKGRAPH_ADVISOR_LLM_RATE_FLOOR_H_

// The rate floor of a response: bytes that keep arriving, but so slowly that
// the answer would take hours (a byte every 0.3 s never trips an idle
// timeout). Internal to the advisor library; pure, so tests drive its clock.
//
// Only trickling time is judged: each arrival is charged the time since the
// previous one, but at most kMaxChargedGapS. A silence (a model thinking
// before it answers, a whole answer being generated before it is sent) thus
// costs at most a second here: silence is the idle timeout's business, and
// libcurl's CURLOPT_LOW_SPEED_* (which counts silence) would turn the floor
// into a second, tighter idle timeout. Consequence: a lone keep-alive of N
// bytes after a pause counts as N bytes/s, so keep-alives such as
// ": OPENROUTER PROCESSING" (26 bytes) pass the default floor of 16 bytes/s,
// while a wait on 8-byte ": ping"s alone fails after window_s of them.

#include <cstddef>

namespace cookgraph {

/// The longest gap between two arrivals that is charged in full, in seconds.
inline constexpr double kMaxChargedGapS = 1.0;

/// Judges a response's rate window by window.
class RateFloor {
 public:
  /// `min_bytes_per_s` <= 0: no floor (Record always passes).
  RateFloor(double min_bytes_per_s, double window_s)
      : min_bytes_per_s_(min_bytes_per_s), window_s_(window_s) {}

  /// Records `bytes` arriving at `now_s` (seconds on a steady clock). False
  /// when this arrival completed a window whose rate is below the floor.
  bool Record(size_t bytes, double now_s);

  /// Bytes per charged second of the last window judged; 0 before the first.
  double last_rate() const { return last_rate_; }

 private:
  double min_bytes_per_s_;
  double window_s_;
  bool started_ = false;
  double last_s_ = 0;   // time of the previous arrival
  double charged_ = 0;  // seconds charged in the current window
  double bytes_ = 0;    // bytes in the current window
  double last_rate_ = 0;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_RATE_FLOOR_H_
