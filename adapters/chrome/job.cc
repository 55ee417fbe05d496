// The ranks of one job as one snapshot (adapters/chrome/job.h).

#include "adapters/chrome/job.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>
#include <unordered_map>

namespace cookgraph {
namespace {

// The whole number after `"key"` and a colon inside `object`, or nullopt.
std::optional<int64_t> NumberAfter(std::string_view object, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  const size_t at = object.find(quoted);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + quoted.size();
  while (i < object.size() && (object[i] == ' ' || object[i] == '\t' || object[i] == '\n' ||
                               object[i] == '\r' || object[i] == ':')) {
    ++i;
  }
  int64_t value = 0;
  auto [end, ec] = std::from_chars(object.data() + i, object.data() + object.size(), value);
  if (ec != std::errc() || end == object.data() + i) return std::nullopt;
  return value;
}

// The ranks' networks as one, nodes by id in rank order, into `job`; per rank,
// its node -> the job's in `to_job` (one list per rank). An error when a
// node cannot be added.
std::optional<Error> MergeNetworks(const std::vector<Snapshot>& ranks, Snapshot& job,
                                   std::vector<std::vector<NodeIndex>>& to_job) {
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (const Node& node : ranks[r].network.nodes()) {
      std::optional<NodeIndex> have = job.network.Find(node.id);
      if (!have) {
        Node copy = node;
        copy.output = false;
        auto added = job.network.AddNode(std::move(copy));
        if (!added) return added.error();
        have = *added;
      }
      to_job[r].push_back(*have);
    }
  }
  std::vector<bool> output(job.network.size(), false);
  std::set<std::tuple<NodeIndex, NodeIndex, int>> edges;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const Network& net = ranks[r].network;
    for (NodeIndex n = 0; n < net.size(); ++n) output[to_job[r][n]] = output[to_job[r][n]] || net.node(n).output;
    for (const Edge& e : net.edges()) {
      edges.emplace(to_job[r][e.from], to_job[r][e.to], static_cast<int>(e.kind));
    }
  }
  // Outputs are set on the nodes: rebuild the network with them.
  {
    Network network;
    network.Reserve(job.network.size(), edges.size());
    for (NodeIndex n = 0; n < job.network.size(); ++n) {
      Node node = job.network.node(n);
      node.output = output[n];
      auto added = network.AddNode(std::move(node));
      if (!added) return added.error();
    }
    for (const auto& [from, to, kind] : edges) network.AddEdge(from, to, static_cast<EdgeKind>(kind));
    job.network = std::move(network);
  }
  return std::nullopt;
}

// Every node's series of every metric, per step the mean over the ranks that
// have the step (`rank_count`), at the job's step positions (`step_pos`).
void MergeSeries(const std::vector<Snapshot>& ranks,
                 const std::vector<std::vector<NodeIndex>>& to_job,
                 std::map<int64_t, size_t>& step_pos, const std::vector<double>& rank_count,
                 Snapshot& job) {
  const size_t frames = rank_count.size();
  for (Metric metric : {Metric::kCookMs, Metric::kGpuMs, Metric::kCpuMemMb, Metric::kGpuMemMb,
                        Metric::kCooks, Metric::kInclusiveMs}) {
    std::vector<std::vector<double>> sum(job.network.size());
    std::vector<std::vector<bool>> any(job.network.size());
    for (size_t r = 0; r < ranks.size(); ++r) {
      const Samples& samples = ranks[r].samples;
      const auto& idx = samples.frame_index();
      for (NodeIndex n = 0; n < samples.node_count() && n < to_job[r].size(); ++n) {
        std::span<const double> series = samples.series(n, metric);
        if (series.empty()) continue;
        const NodeIndex j = to_job[r][n];
        if (sum[j].empty()) {
          sum[j].assign(frames, 0.0);
          any[j].assign(frames, false);
        }
        for (size_t f = 0; f < series.size() && f < idx.size(); ++f) {
          if (IsMissing(series[f])) continue;
          const size_t pos = step_pos[idx[f]];
          sum[j][pos] += series[f];
          any[j][pos] = any[j][pos] || metric != Metric::kCooks || series[f] > 0;
        }
      }
    }
    for (NodeIndex j = 0; j < job.network.size(); ++j) {
      if (sum[j].empty()) continue;
      std::vector<double> values(frames, metric == Metric::kCooks ? 0.0 : kMissing);
      for (size_t f = 0; f < frames; ++f) {
        if (any[j][f]) values[f] = sum[j][f] / rank_count[f];
      }
      job.samples.SetSeries(j, metric, std::move(values));
    }
  }
}

// Each rank's timeline in the job's terms: its events' nodes are the job's
// nodes, its frames the job's steps (a rank may lack some of them).
void MergeTimelines(std::vector<Snapshot>& ranks, const std::vector<std::vector<NodeIndex>>& to_job,
                    std::map<int64_t, size_t>& step_pos, const std::vector<int64_t>& index,
                    Snapshot& job) {
  const size_t frames = index.size();
  for (size_t r = 0; r < ranks.size(); ++r) {
    Snapshot& s = ranks[r];
    const std::string& file = s.info.source.empty() ? s.info.name : s.info.source[0];
    for (std::string& warning : s.warnings) job.warnings.push_back(file + ": " + warning);
    const auto& idx = s.samples.frame_index();
    for (Timeline& t : s.timelines) {
      for (TimelineEvent& e : t.events) {
        if (e.node != kNoIndex) e.node = e.node < to_job[r].size() ? to_job[r][e.node] : kNoIndex;
        if (e.frame != kNoIndex) {
          e.frame = e.frame < idx.size() ? static_cast<uint32_t>(step_pos[idx[e.frame]]) : kNoIndex;
        }
      }
      std::vector<uint32_t> markers(frames, kNoIndex);
      for (size_t f = 0; f < t.markers.size() && f < idx.size(); ++f) {
        markers[step_pos[idx[f]]] = t.markers[f];
      }
      t.markers = std::move(markers);
      t.steps = index;
      job.timelines.push_back(std::move(t));
    }
  }
}

}  // namespace

std::optional<RankInfo> FindDistributedInfo(std::string_view head) {
  const size_t key = head.find("\"distributedInfo\"");
  if (key == std::string_view::npos) return std::nullopt;
  const size_t open = head.find('{', key);
  if (open == std::string_view::npos) return std::nullopt;
  // The object's end, by depth: it may hold objects of its own (pg_config).
  // The keys looked for are its own: nested objects are cut out first.
  std::string own;
  int depth = 0;
  bool in_string = false;
  size_t close = std::string_view::npos;
  for (size_t i = open; i < head.size() && close == std::string_view::npos; ++i) {
    const char c = head[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      if (depth == 1) own += c;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{' || c == '[') ++depth;
    if (depth == 1) own += c;
    if (c == '}' || c == ']') {
      if (--depth == 0) close = i;
    }
  }
  if (close == std::string_view::npos) return std::nullopt;
  const auto rank = NumberAfter(own, "rank");
  const auto world = NumberAfter(own, "world_size");
  constexpr int64_t kMaxWorld = int64_t{1} << 31;
  if (!rank || !world || *rank < 0 || *world < 1 || *world > kMaxWorld || *rank >= *world) {
    return std::nullopt;
  }
  return RankInfo{.rank = *rank, .world_size = *world};
}

Result<Snapshot> MergeRanks(std::vector<Snapshot> ranks, const std::string& name) {
  if (ranks.empty()) return Error{.file = name, .message = "no rank to read"};
  std::sort(ranks.begin(), ranks.end(), [](const Snapshot& a, const Snapshot& b) {
    const uint32_t ra = a.timelines.empty() ? 0 : a.timelines[0].rank;
    const uint32_t rb = b.timelines.empty() ? 0 : b.timelines[0].rank;
    return ra < rb;
  });
  std::set<uint32_t> seen;
  for (const Snapshot& s : ranks) {
    const uint32_t rank = s.timelines.empty() ? 0 : s.timelines[0].rank;
    if (!seen.insert(rank).second) {
      return Error{.file = name,
                   .message = fmt::format("two traces of the job are rank {} ({}): a job has one "
                                          "trace per rank",
                                          rank, fmt::join(s.info.source, ", "))};
    }
  }
  Snapshot job;
  job.info = ranks[0].info;
  job.info.name = name;
  job.info.source.clear();
  job.info.captured.clear();
  for (const Snapshot& s : ranks) {
    job.info.source.insert(job.info.source.end(), s.info.source.begin(), s.info.source.end());
    if (!s.info.captured.empty() &&
        (job.info.captured.empty() || s.info.captured < job.info.captured)) {
      job.info.captured = s.info.captured;
    }
  }

  // Nodes by id, in rank order; per rank, its node -> the job's.
  std::vector<std::vector<NodeIndex>> to_job(ranks.size());
  if (std::optional<Error> error = MergeNetworks(ranks, job, to_job)) return *error;

  // Steps: the union of the ranks' step numbers.
  std::map<int64_t, size_t> step_pos;
  for (const Snapshot& s : ranks) {
    for (int64_t index : s.samples.frame_index()) step_pos.emplace(index, 0);
  }
  std::vector<int64_t> index;
  for (auto& [number, pos] : step_pos) {
    pos = index.size();
    index.push_back(number);
  }
  const size_t frames = index.size();
  std::vector<double> frame_ms(frames, kMissing);
  std::vector<double> rank_count(frames, 0);
  for (const Snapshot& s : ranks) {
    const auto& idx = s.samples.frame_index();
    const std::vector<double> ms(s.samples.frame_ms().begin(), s.samples.frame_ms().end());
    for (size_t f = 0; f < idx.size(); ++f) {
      const size_t pos = step_pos[idx[f]];
      rank_count[pos] += 1;
      if (f < ms.size() && !IsMissing(ms[f]) && (IsMissing(frame_ms[pos]) || ms[f] > frame_ms[pos])) {
        frame_ms[pos] = ms[f];
      }
    }
  }
  job.samples = Samples(job.network.size());
  job.samples.SetFrameIndex(index);
  if (std::any_of(frame_ms.begin(), frame_ms.end(), [](double v) { return !IsMissing(v); })) {
    job.samples.SetFrameMs(frame_ms);
  }
  MergeSeries(ranks, to_job, step_pos, rank_count, job);

  MergeTimelines(ranks, to_job, step_pos, index, job);
  if (ranks.size() > 1) {
    const uint32_t world = job.timelines.front().world_size.value_or(0);
    if (world > 0 && ranks.size() < world) {
      job.warnings.push_back(fmt::format("the job has {} ranks (world_size) but {} traces were "
                                         "given: ranks without a trace are not in the numbers",
                                         world, ranks.size()));
    }
  }
  return job;
}

}  // namespace cookgraph
