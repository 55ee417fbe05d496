// The rate floor with the client's defaults (Endpoint{}: 16 bytes/s judged
// over 30 s of trickle), on arrival patterns given with their times: what it
// must end (a drip) and what it must never end (a model thinking in silence,
// a slow model, keep-alives of the usual size).

#include "advisor/llm/rate_floor.h"

#include <gtest/gtest.h>

#include <optional>

#include "advisor/llm/chat_request.h"

namespace cookgraph {
namespace {

RateFloor Defaults() { return RateFloor(Endpoint{}.min_bytes_per_s, Endpoint{}.rate_window_s); }

/// Feeds `bytes` every `every_s` seconds from `from_s` for `for_s` seconds;
/// the time of the arrival the floor refused, or none.
std::optional<double> Feed(RateFloor& floor, size_t bytes, double every_s, double from_s,
                           double for_s) {
  for (double t = from_s; t < from_s + for_s; t += every_s) {
    if (!floor.Record(bytes, t)) return t;
  }
  return std::nullopt;
}

TEST(RateFloor, ADripOfOneByteEveryThreeTenthsOfASecondEndsAfterOneWindow) {
  RateFloor floor = Defaults();
  const std::optional<double> ended = Feed(floor, 1, 0.3, 0, 3600);
  ASSERT_TRUE(ended);
  EXPECT_NEAR(*ended, 30, 0.5);
  EXPECT_NEAR(floor.last_rate(), 1 / 0.3, 0.05);
}

TEST(RateFloor, ADripWithLongGapsEndsToo) {
  // One byte every 5 s: each gap is charged 1 s, so 30 windows' worth of
  // seconds pass before the window is judged, but it is judged.
  RateFloor floor = Defaults();
  const std::optional<double> ended = Feed(floor, 1, 5, 0, 3600);
  ASSERT_TRUE(ended);
  EXPECT_NEAR(*ended, 150, 5.1);
}

TEST(RateFloor, SilenceBeforeTheAnswerCostsNothing) {
  // A role chunk, 59 s of thinking in silence (within the idle timeout), then
  // the answer at 10 chunks of 150 bytes a second.
  RateFloor floor = Defaults();
  EXPECT_TRUE(floor.Record(150, 0));
  EXPECT_FALSE(Feed(floor, 150, 0.1, 59, 120));
}

TEST(RateFloor, ASlowModelPasses) {
  // A large model on a CPU: one token (a chunk of about 150 bytes) every 2 s.
  RateFloor floor = Defaults();
  EXPECT_FALSE(Feed(floor, 150, 2, 0, 3600));
}

TEST(RateFloor, UsualKeepAlivesPassAndTinyOnesEndAWaitAfterThirtyOfThem) {
  RateFloor openrouter = Defaults();  // ": OPENROUTER PROCESSING\n\n" every 15 s
  EXPECT_FALSE(Feed(openrouter, 26, 15, 0, 3600));
  RateFloor ping = Defaults();  // ": ping\n\n" every 15 s: 8 bytes per charged second
  const std::optional<double> ended = Feed(ping, 8, 15, 0, 3600);
  ASSERT_TRUE(ended);
  EXPECT_NEAR(*ended, 30 * 15, 0.1);
}

TEST(RateFloor, AFullSpeedStreamPassesAndAZeroFloorIsOff) {
  RateFloor fast = Defaults();
  EXPECT_FALSE(Feed(fast, 16384, 0.001, 0, 100));
  RateFloor off(0, 30);
  EXPECT_FALSE(Feed(off, 1, 0.3, 0, 3600));
}

}  // namespace
}  // namespace cookgraph
