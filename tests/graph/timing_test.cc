// Timings of the graph algorithms on large random networks. Not a benchmark
// (bench/ holds those) and never an assertion: run by hand with
//   graph_tests --gtest_also_run_disabled_tests --gtest_filter='*Timing*'
// and COOKGRAPH_TIMING_NODES=1000000 for a million nodes (default 100000).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "graph/condensation.h"
#include "graph/network_critical_path.h"
#include "graph/loops.h"
#include "graph/upstream.h"

namespace cookgraph {
namespace {

size_t TimingNodes() {
  const char* env = std::getenv("COOKGRAPH_TIMING_NODES");
  return env ? std::strtoull(env, nullptr, 10) : 100000;
}

Network Nodes(size_t n) {
  Network network;
  network.Reserve(n, 4 * n);
  for (size_t i = 0; i < n; ++i) {
    if (!network.AddNode({.id = "/n" + std::to_string(i)})) std::abort();
  }
  return network;
}

void TimeAll(const char* shape, const Network& network) {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  std::vector<double> weight(network.size());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> w(0.0, 1.0);
  for (double& x : weight) x = w(rng);

  auto t0 = Clock::now();
  Adjacency adjacency(network);
  auto t1 = Clock::now();
  Condensation condensation = Condense(network, adjacency);
  auto t2 = Clock::now();
  std::vector<Loop> loops = FindLoops(network, adjacency, condensation);
  auto t3 = Clock::now();
  Path path = CriticalPath(adjacency, condensation, weight);
  auto t4 = Clock::now();
  std::vector<double> cost = UpstreamCost(adjacency, condensation, weight);
  auto t5 = Clock::now();
  size_t largest = 0;
  for (const auto& m : condensation.members) largest = std::max(largest, m.size());
  std::printf(
      "%s: %zu nodes, %zu edges, %zu components (largest %zu), %zu loops, path of %zu\n"
      "  Adjacency %.0f ms, Condense %.0f ms, FindLoops %.0f ms, CriticalPath %.0f ms, "
      "UpstreamCost %.0f ms\n",
      shape, network.size(), network.edges().size(), condensation.members.size(), largest,
      loops.size(), path.nodes.size(), ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4), ms(t4, t5));
}

// Edges between uniformly random nodes: one giant strongly connected component.
TEST(Timing, DISABLED_UniformRandomEdges) {
  const size_t n = TimingNodes();
  Network network = Nodes(n);
  std::mt19937 rng(1);
  std::uniform_int_distribution<NodeIndex> any(0, static_cast<NodeIndex>(n - 1));
  for (size_t i = 0; i < 4 * n; ++i) {
    // A few feedback edges: each inside the giant component is a loop of it all.
    network.AddEdge(any(rng), any(rng), i % 250000 == 0 ? EdgeKind::kFeedback : EdgeKind::kData);
  }
  TimeAll("uniform", network);
}

// A DAG of local edges (an operator pipeline), with 1% short feedback edges and
// 0.1% short backward edges making small cycles: the hard case for upstream
// cost, a million components with dense ancestor sets.
TEST(Timing, DISABLED_LocalDag) {
  const size_t n = TimingNodes();
  Network network = Nodes(n);
  std::mt19937 rng(2);
  std::uniform_int_distribution<NodeIndex> any(0, static_cast<NodeIndex>(n - 1));
  std::uniform_int_distribution<NodeIndex> near(1, 64);
  std::uniform_int_distribution<int> percent(0, 999);
  for (size_t i = 0; i < 4 * n; ++i) {
    const NodeIndex u = any(rng);
    const NodeIndex v = std::min<NodeIndex>(u + near(rng), static_cast<NodeIndex>(n - 1));
    if (u == v) continue;
    const int roll = percent(rng);
    if (roll < 10) {
      network.AddEdge(v, u, EdgeKind::kFeedback);
    } else if (roll < 11 && v - u <= 4) {
      network.AddEdge(v, u, EdgeKind::kData);
    } else {
      network.AddEdge(u, v, EdgeKind::kData);
    }
  }
  TimeAll("local DAG", network);
}

}  // namespace
}  // namespace cookgraph
