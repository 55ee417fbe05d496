// GPU time on hand-built timelines, each number worked out by hand from the
// definitions in docs/architecture.md#gpu-time (HTA's).

#include "metrics/hta_breakdown.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "metrics/trace_summary.h"

namespace cookgraph {
namespace {

constexpr int64_t kUs = 1000;

// A builder: one CPU thread (track 0) and GPU streams 7 and 9 (tracks 1, 2).
class Builder {
 public:
  Builder() {
    t_.tracks = {Track{.pid = "1", .tid = "1", .label = "thread 1"},
                 Track{.pid = "0", .tid = "7", .gpu = true, .stream = 7, .device = 0, .label = "GPU 0 stream 7"},
                 Track{.pid = "0", .tid = "9", .gpu = true, .stream = 9, .device = 0, .label = "GPU 0 stream 9"}};
  }
  uint32_t Cpu(const std::string& name, int64_t start_us, int64_t dur_us,
               EventKind kind = EventKind::kRuntime) {
    return Add(name, 0, start_us, dur_us, kind);
  }
  // A kernel on stream track `track` launched by event `call` (kNoIndex: none).
  uint32_t Kernel(const std::string& name, uint32_t track, int64_t start_us, int64_t dur_us,
                  uint32_t call, EventKind kind = EventKind::kKernel) {
    const uint32_t k = Add(name, track, start_us, dur_us, kind);
    t_.events[k].link = call;
    if (call != kNoIndex) t_.events[call].link = k;
    return k;
  }
  Timeline& timeline() { return t_; }

 private:
  uint32_t Add(const std::string& name, uint32_t track, int64_t start_us, int64_t dur_us,
               EventKind kind) {
    t_.names.push_back(name);
    TimelineEvent e;
    e.start_ns = start_us * kUs;
    e.dur_ns = dur_us * kUs;
    e.name = static_cast<uint32_t>(t_.names.size() - 1);
    e.track = track;
    e.source = static_cast<uint32_t>(t_.events.size());
    e.kind = kind;
    t_.events.push_back(e);
    return e.source;
  }
  Timeline t_;
};

// The union's length against a count of the unit cells covered, over
// intervals in 1 to 200 ascending runs (streams of a timeline, each by
// start; past 64 runs they are sorted instead of merged) and shuffled: a
// merge of the runs that dropped or misplaced one would count another union.
TEST(UnionLength, AnyNumberOfRunsAgainstCoveredCells) {
  std::mt19937 random(39);
  for (size_t runs : {1, 2, 3, 5, 64, 65, 200, 0}) {
    std::vector<std::pair<int64_t, int64_t>> intervals;
    std::vector<bool> covered(3000, false);
    for (size_t r = 0; r < std::max<size_t>(runs, 1); ++r) {
      int64_t start = std::uniform_int_distribution<int64_t>(0, 99)(random);
      for (int k = 0; k < 12; ++k) {
        start += std::uniform_int_distribution<int64_t>(0, 40)(random);  // ties too
        const int64_t end = start + std::uniform_int_distribution<int64_t>(0, 60)(random);
        intervals.emplace_back(start, end);
        for (int64_t c = start; c < end; ++c) covered[static_cast<size_t>(c)] = true;
      }
    }
    if (runs == 0) std::shuffle(intervals.begin(), intervals.end(), random);  // no order at all
    const auto cells = static_cast<int64_t>(std::count(covered.begin(), covered.end(), true));
    EXPECT_EQ(UnionLength(intervals), cells) << runs << " runs";
  }
}

TEST(KernelType, ByNameAsHta) {
  EXPECT_EQ(KernelTypeOf("ncclKernel_AllReduce_RING_LL_Sum_float", EventKind::kKernel),
            KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOf("ncclDevKernel_SendRecv", EventKind::kKernel), KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOf("gloo:all_reduce", EventKind::kKernel), KernelType::kCommunication);
  EXPECT_EQ(KernelTypeOf("Memcpy HtoD (Pageable -> Device)", EventKind::kMemcpy), KernelType::kMemory);
  EXPECT_EQ(KernelTypeOf("Memset (Device)", EventKind::kMemset), KernelType::kMemory);
  EXPECT_EQ(KernelTypeOf("volta_sgemm_128x64_nt", EventKind::kKernel), KernelType::kComputation);
}

TEST(GpuTime, TemporalBreakdownIdleSplitAndLaunches) {
  Builder b;
  // Stream 7: k1 [100, 150) launched at 10; k2 [160, 170) launched at 20
  // (before k1 ended: the 10 µs gap is kernel wait); k3 [300, 305) launched
  // at 200 (after k2 ended: the 130 µs gap is host wait); k4 [400, 410)
  // launched at 250, before k3 ended, so not host wait; its 95 µs gap is over
  // 30 µs: other.
  const uint32_t c1 = b.Cpu("cudaLaunchKernel", 10, 5);
  const uint32_t c2 = b.Cpu("cudaLaunchKernel", 20, 5);
  const uint32_t c3 = b.Cpu("cudaLaunchKernel", 200, 5);
  const uint32_t c4 = b.Cpu("cudaLaunchKernel", 250, 5);
  // Stream 9: a communication kernel [140, 240) overlapping gemm [100, 150)
  // and relu [160, 170) for 20 µs, launched by a call that is not a launch
  // API (no launch delay counted).
  const uint32_t c5 = b.Cpu("ncclAllReduce", 30, 5, EventKind::kCpuOp);
  b.Kernel("gemm", 1, 100, 50, c1);
  b.Kernel("relu", 1, 160, 10, c2);
  b.Kernel("relu", 1, 300, 5, c3);
  b.Kernel("gemm", 1, 400, 10, c4);
  b.Kernel("ncclKernel_AllReduce", 2, 140, 100, c5);
  const GpuTime g = AnalyseGpuTime({b.timeline()});
  ASSERT_EQ(g.ranks.size(), 1u);
  const RankGpuTime& r = g.ranks[0];
  EXPECT_DOUBLE_EQ(r.kernel_span_ms, 0.310);                 // 410 - 100
  EXPECT_DOUBLE_EQ(r.busy_ms, 0.155);  // [100, 240) + [300, 305) + [400, 410)
  EXPECT_DOUBLE_EQ(r.idle_ms, 0.155);
  EXPECT_DOUBLE_EQ(r.compute_ms, 0.075);                     // 50 + 10 + 5 + 10
  EXPECT_DOUBLE_EQ(r.communication_ms, 0.100);
  EXPECT_DOUBLE_EQ(r.non_compute_ms, 0.080);  // 310 - 75 - 155: the exposed collective
  ASSERT_EQ(r.streams.size(), 2u);
  const StreamTime& s7 = r.streams[0];
  EXPECT_EQ(s7.stream, 7);
  EXPECT_EQ(s7.kernels, 4u);
  EXPECT_DOUBLE_EQ(s7.kernel_ms, 0.075);
  EXPECT_DOUBLE_EQ(s7.idle_kernel_wait_ms, 0.010);
  EXPECT_DOUBLE_EQ(s7.idle_host_wait_ms, 0.130);
  EXPECT_DOUBLE_EQ(s7.idle_other_ms, 0.095);
  EXPECT_DOUBLE_EQ(s7.idle_ms, 0.235);
  // Launches: the four cudaLaunchKernel pairs; delays from each call's end
  // (HTA's definition): 85, 135, 95, 145 µs.
  EXPECT_EQ(g.launches.count, 4u);
  EXPECT_DOUBLE_EQ(g.launches.delay_mean_ms, 0.115);
  EXPECT_DOUBLE_EQ(g.launches.delay_p50_ms, 0.115);  // (95 + 135) / 2
  EXPECT_DOUBLE_EQ(g.launches.delay_max_ms, 0.145);
  EXPECT_NEAR(g.launches.delay_p95_ms, 0.1435, 1e-12);  // 135 + 0.85 * 10
  EXPECT_DOUBLE_EQ(g.launches.cpu_ms, 0.020);
  EXPECT_EQ(g.launches.kernels_under_10us, 1u);  // the 5 µs relu
  EXPECT_DOUBLE_EQ(g.overlap.communication_ms, 0.100);
  EXPECT_DOUBLE_EQ(g.overlap.overlapped_ms, 0.020);
}

// A kernel that starts before its launch call returns (the call blocks, or the
// GPU was idle and fast) has a launch delay of 0, not a negative one, as HTA
// clips it.
TEST(GpuTime, LaunchDelayRunsFromTheCallsEndClippedAtZero) {
  Builder b;
  const uint32_t c1 = b.Cpu("cudaLaunchKernel", 10, 20);  // ends at 30
  const uint32_t c2 = b.Cpu("cudaLaunchKernel", 40, 5);   // ends at 45
  b.Kernel("gemm", 1, 25, 10, c1);                        // starts 5 µs before the end: 0
  b.Kernel("relu", 1, 57, 10, c2);                        // 12 µs after the end
  const GpuTime g = AnalyseGpuTime({b.timeline()});
  EXPECT_EQ(g.launches.count, 2u);
  EXPECT_DOUBLE_EQ(g.launches.delay_mean_ms, 0.006);
  EXPECT_DOUBLE_EQ(g.launches.delay_max_ms, 0.012);
  EXPECT_DOUBLE_EQ(g.launches.delay_p50_ms, 0.006);
}

TEST(GpuTime, TheLastStepAndUnlaunchedKernelsAreLeftOutWithTwoSteps) {
  Builder b;
  b.Cpu("ProfilerStep#1", 0, 100, EventKind::kMarker);
  b.Cpu("ProfilerStep#2", 100, 100, EventKind::kMarker);
  const uint32_t c1 = b.Cpu("cudaLaunchKernel", 10, 5);
  const uint32_t c2 = b.Cpu("cudaLaunchKernel", 110, 5);
  b.Kernel("a", 1, 20, 10, c1);
  b.Kernel("b", 1, 120, 10, c2);           // launched in the last step: out
  b.Kernel("c", 1, 5, 2, kNoIndex);        // launched before profiling: out
  const GpuTime g = AnalyseGpuTime({b.timeline()});
  ASSERT_EQ(g.ranks.size(), 1u);
  EXPECT_EQ(g.ranks[0].kernels, 1u);
  EXPECT_DOUBLE_EQ(g.ranks[0].kernel_span_ms, 0.010);
  EXPECT_EQ(g.launches.unlaunched, 1u);
}

TEST(GpuTime, NoGpuWorkIsEmpty) {
  Builder b;
  b.Cpu("aten::add", 0, 10, EventKind::kCpuOp);
  EXPECT_TRUE(AnalyseGpuTime({b.timeline()}).empty());
}

TEST(GpuTime, HostWaitNamesTheCpuOpsThatRanMeanwhile) {
  Builder b;
  // k1 ends at 20; the CPU runs optimizer (top level) from 20 to 90, then
  // launches k2 at 95: the 80 µs gap is host wait, 70 µs of it in optimizer.
  const uint32_t c1 = b.Cpu("cudaLaunchKernel", 0, 5);
  b.Cpu("optimizer", 20, 70, EventKind::kAnnotation);
  const uint32_t c2 = b.Cpu("cudaLaunchKernel", 95, 5);
  b.Kernel("k1", 1, 10, 10, c1);
  b.Kernel("k2", 1, 100, 10, c2);
  const GpuTime g = AnalyseGpuTime({b.timeline()});
  ASSERT_EQ(g.ranks.size(), 1u);
  EXPECT_DOUBLE_EQ(g.ranks[0].host_wait_ms(), 0.080);
  ASSERT_FALSE(g.ranks[0].host_wait_ops.empty());
  EXPECT_EQ(g.ranks[0].host_wait_ops[0].name, "optimizer");
  EXPECT_DOUBLE_EQ(g.ranks[0].host_wait_ops[0].ms, 0.070);
}

TEST(TraceSummary, MemoryPeaksStepsAndStragglers) {
  Builder r0, r1;
  for (Builder* b : {&r0, &r1}) {
    b->timeline().steps = {5, 6};
  }
  r0.timeline().rank = 0;
  r1.timeline().rank = 1;
  r0.timeline().markers = {r0.Cpu("ProfilerStep#5", 0, 100, EventKind::kMarker),
                           r0.Cpu("ProfilerStep#6", 100, 120, EventKind::kMarker)};
  r1.timeline().markers = {r1.Cpu("ProfilerStep#5", 0, 110, EventKind::kMarker),
                           r1.Cpu("ProfilerStep#6", 110, 100, EventKind::kMarker)};
  r0.timeline().memory = {MemoryEvent{.ts_ns = 1, .bytes = 1 << 20, .total_allocated = 3 << 20,
                                      .total_reserved = 4 << 20, .device_type = 1, .device = 0},
                          MemoryEvent{.ts_ns = 2, .bytes = -(1 << 20), .total_allocated = 2 << 20,
                                      .total_reserved = 8 << 20, .device_type = 1, .device = 0}};
  r0.timeline().devices = {Device{.id = 0, .name = "GPU", .total_memory = int64_t{16} << 20}};
  const TraceSummary t = SummariseTrace({r0.timeline(), r1.timeline()}, Samples(0), {});
  ASSERT_EQ(t.memory.size(), 1u);
  EXPECT_EQ(t.memory[0].device, "cuda:0");
  EXPECT_DOUBLE_EQ(t.memory[0].peak_allocated_mb, 3.0);
  EXPECT_DOUBLE_EQ(t.memory[0].peak_reserved_mb, 8.0);
  EXPECT_DOUBLE_EQ(t.memory[0].total_mb, 16.0);
  ASSERT_EQ(t.ranks.size(), 2u);
  EXPECT_TRUE(t.job());
  EXPECT_EQ(t.ranks[0].steps, (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(t.ranks[0].step_ms, (std::vector<double>{0.1, 0.12}));
  // Step 5: rank 1 (110 µs) against a median of 105; step 6: rank 0 (120 against 110).
  ASSERT_TRUE(t.ranks[1].straggler_ms[0]);
  EXPECT_DOUBLE_EQ(*t.ranks[1].straggler_ms[0], 0.005);
  EXPECT_FALSE(t.ranks[0].straggler_ms[0]);
  ASSERT_TRUE(t.ranks[0].straggler_ms[1]);
  EXPECT_DOUBLE_EQ(*t.ranks[0].straggler_ms[1], 0.010);
}

}  // namespace
}  // namespace cookgraph
