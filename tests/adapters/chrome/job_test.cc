// One job, many ranks (adapters/chrome/job.h): traces of the ranks of one
// distributed job are found together and read as one snapshot.

#include "adapters/chrome/job.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "adapters/input_files.h"
#include "adapters/input_reader.h"
#include "metrics/analysis.h"
#include "tests/shell.h"
#include "tests/temp_dir.h"

namespace cookgraph {
namespace {

using testing::TempDir;
using testing::WriteFile;

// A Kineto trace of rank `rank` of `world` with steps 1 and 2 lasting
// `step1` and `step2` µs, an op in each and a kernel in the first.
std::string Rank(int rank, int world, int step1, int step2) {
  return fmt::format(R"({{"schemaVersion": 1, "distributedInfo": {{"backend": "nccl", "rank": {0}, "world_size": {1}}},
  "traceEvents": [
    {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": {2}}},
    {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 10}},
    {{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3, "args": {{"correlation": 7}}}},
    {{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 6, "dur": {3}, "args": {{"correlation": 7, "stream": 7}}}},
    {{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": {2}, "dur": {4}}},
    {{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": {5}, "dur": 20}}
  ]}})",
                     rank, world, step1, 4 + rank, step2, step1 + 1);
}


TEST(Job, DistributedInfoFromTheFirstBytes) {
  auto info = FindDistributedInfo(R"({"distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8}, "traceEvents": [)");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->rank, 3);
  EXPECT_EQ(info->world_size, 8);
  EXPECT_FALSE(FindDistributedInfo(R"({"traceEvents": [])"));
  EXPECT_FALSE(FindDistributedInfo(R"({"distributedInfo": {"rank": 8, "world_size": 8}})"));
  EXPECT_FALSE(FindDistributedInfo(R"({"distributedInfo": {"rank": 1}})"));
  // Keys sorted: an object of its own comes first; its keys are not the rank's.
  info = FindDistributedInfo(
      R"({"distributedInfo": {"backend": "nccl", "pg_config": [{"rank": 9, "pg_name": "0"}], "rank": 2, "world_size": 4}})");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->rank, 2);
  EXPECT_FALSE(FindDistributedInfo(R"({"distributedInfo": {"rank": 5000000000, "world_size": 9000000000}})"));
}

TEST(Job, AFolderOfRanksIsOneInputAndOneSnapshot) {
  TempDir dir;
  WriteFile(dir / "rank-0.json", Rank(0, 2, 100, 200));
  WriteFile(dir / "rank-1.json", Rank(1, 2, 130, 150));
  const InputList list = ExpandInputs({dir.path()});
  ASSERT_EQ(list.inputs.size(), 1u);
  EXPECT_EQ(list.inputs[0].paths.size(), 2u);
  for (const std::vector<std::string>& paths :
       {list.inputs[0].paths, std::vector<std::string>{dir.path()}}) {
    auto job = ReadInput(paths);
    ASSERT_TRUE(job) << job.error().message;
    ASSERT_EQ(job->timelines.size(), 2u);
    EXPECT_EQ(job->timelines[0].rank, 0u);
    EXPECT_EQ(job->timelines[1].rank, 1u);
    EXPECT_EQ(job->info.source.size(), 2u);
    // Steps 1 and 2; each lasts as long as its slowest rank.
    EXPECT_EQ(job->samples.frame_index(), (std::vector<int64_t>{1, 2}));
    EXPECT_DOUBLE_EQ(job->samples.frame_ms()[0], 0.130);
    EXPECT_DOUBLE_EQ(job->samples.frame_ms()[1], 0.200);
    // The kernel: 4 µs on rank 0, 5 on rank 1: a mean of 4.5 µs per step.
    const auto gemm = job->network.Find("gemm");
    ASSERT_TRUE(gemm);
    EXPECT_DOUBLE_EQ(job->samples.series(*gemm, Metric::kCookMs)[0], 0.0045);
    const Analysis a = Analyse(*job);
    ASSERT_TRUE(a.trace);
    ASSERT_EQ(a.trace->ranks.size(), 2u);
    // Step 1: rank 1 (130) over a median of 115; step 2: rank 0 (200) over 175.
    ASSERT_TRUE(a.trace->ranks[1].straggler_ms[0]);
    EXPECT_DOUBLE_EQ(*a.trace->ranks[1].straggler_ms[0], 0.015);
    ASSERT_TRUE(a.trace->ranks[0].straggler_ms[1]);
    EXPECT_DOUBLE_EQ(*a.trace->ranks[0].straggler_ms[1], 0.025);
    EXPECT_FALSE(a.has_budget);
    EXPECT_TRUE(a.frames.over_budget.empty());
  }
}

TEST(Job, TwoTracesOfOneRankAreNoJob) {
  TempDir dir;
  WriteFile(dir / "a.json", Rank(0, 2, 100, 200));
  WriteFile(dir / "b.json", Rank(0, 2, 130, 150));
  const InputList list = ExpandInputs({dir.path()});
  EXPECT_EQ(list.inputs.size(), 2u);  // scored one by one
  std::vector<Snapshot> ranks;
  for (const Input& input : list.inputs) {
    auto s = ReadInput(input.paths);
    ASSERT_TRUE(s);
    ranks.push_back(std::move(*s));
  }
  auto merged = MergeRanks(std::move(ranks), "job");
  ASSERT_FALSE(merged);
  EXPECT_NE(merged.error().message.find("rank 0"), std::string::npos);
}

TEST(Job, TracesOfOtherWorldSizesStayApart) {
  TempDir dir;
  WriteFile(dir / "a.json", Rank(0, 2, 100, 200));
  WriteFile(dir / "b.json", Rank(1, 4, 130, 150));
  EXPECT_EQ(ExpandInputs({dir.path()}).inputs.size(), 2u);
}

// Each rank's timeline speaks the job's numbers: an event's node is the job's
// node of its name, a marker sits at its step's position among the job's steps.
TEST(Job, TimelinesUseTheJobsNodesAndSteps) {
  TempDir dir;
  // Rank 0 runs aten::mm first and has steps 1, 2; rank 1 runs aten::add
  // first and has steps 2, 3.
  WriteFile(dir / "r0.json", R"({"distributedInfo": {"rank": 0, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 101, "dur": 10}]})");
  WriteFile(dir / "r1.json", R"({"distributedInfo": {"rank": 1, "world_size": 2}, "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 0, "dur": 150},
    {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 10},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 150, "dur": 100},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 151, "dur": 10}]})");
  auto job = ReadInput({dir.path()});
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->samples.frame_index(), (std::vector<int64_t>{1, 2, 3}));
  ASSERT_EQ(job->timelines.size(), 2u);
  for (const Timeline& t : job->timelines) {
    ASSERT_EQ(t.markers.size(), 3u);
    EXPECT_EQ(t.steps, (std::vector<int64_t>{1, 2, 3}));
    for (size_t f = 0; f < 3; ++f) {
      if (t.markers[f] == kNoIndex) continue;
      EXPECT_EQ(t.name(t.events[t.markers[f]]), "ProfilerStep#" + std::to_string(f + 1));
    }
    for (const TimelineEvent& e : t.events) {
      if (e.node == kNoIndex) continue;
      ASSERT_LT(e.node, job->network.size());
      EXPECT_EQ(job->network.node(e.node).id, t.name(e)) << "rank " << t.rank;
      ASSERT_NE(e.frame, kNoIndex);
      EXPECT_EQ(t.name(t.events[t.markers[e.frame]]),
                "ProfilerStep#" + std::to_string(job->samples.frame_index()[e.frame]));
    }
  }
  EXPECT_EQ(job->timelines[0].markers[2], kNoIndex);  // rank 0 has no step 3
  EXPECT_EQ(job->timelines[1].markers[0], kNoIndex);  // rank 1 has no step 1
}

}  // namespace
}  // namespace cookgraph
