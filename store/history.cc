#include "store/history.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <string_view>
#include <unordered_map>

#include "graph/suggest.h"

// The trend and the flags of `cookgraph history` (docs/commands.md#cookgraph-history).

namespace cookgraph {
namespace {

std::optional<double> Number(const ScoreValue& v) {
  if (const double* d = std::get_if<double>(&v)) return *d;
  if (const uint64_t* u = std::get_if<uint64_t>(&v)) return static_cast<double>(*u);
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  return std::nullopt;
}

// What the test needs of one series in one run.
struct Figures {
  std::optional<double> mean, p95;
  std::optional<double> variance;  // sample variance (n - 1); nullopt: no spread known
  size_t n = 0;
  std::optional<double> score;  // nodes only, for the ranking
};

// The frame time of a snapshot: frames, frame_mean_ms and frame_std_ms
// (already a sample standard deviation).
Figures FrameFigures(const SnapshotSummary& s) {
  Figures f;
  f.n = s.frames;
  f.mean = s.frame_mean_ms;
  f.p95 = s.frame_p95_ms;
  if (s.frame_std_ms) f.variance = *s.frame_std_ms * *s.frame_std_ms;
  return f;
}

// A stored snapshot's nodes by id. std_ms is the population standard
// deviation (docs/architecture.md#node-statistics), so the sample variance is
// std_ms² · n / (n − 1) with n = cooked_frames.
class NodeLookup {
 public:
  explicit NodeLookup(const ScoreTable& table) : table_(&table) {
    auto column = [&](std::string_view name) {
      auto it = std::find(table.columns.begin(), table.columns.end(), name);
      return it == table.columns.end() ? kNone : static_cast<size_t>(it - table.columns.begin());
    };
    id_ = column("id"), score_ = column("score"), avg_ = column("avg_ms");
    std_ = column("std_ms"), p95_ = column("p95_ms"), cooked_ = column("cooked_frames");
    if (id_ == kNone) return;
    for (size_t r = 0; r < table.rows.size(); ++r) {
      if (const std::string* id = std::get_if<std::string>(&table.rows[r][id_]))
        row_of_.emplace(*id, r);
    }
  }

  bool Has(const std::string& id) const { return row_of_.count(id) > 0; }
  size_t size() const { return table_->rows.size(); }
  const std::string& IdAt(size_t r) const { return std::get<std::string>(table_->rows[r][id_]); }
  bool IdentifiedAt(size_t r) const {
    return id_ != kNone && std::holds_alternative<std::string>(table_->rows[r][id_]);
  }

  /// The figures of node `id`; no mean when it is absent or did not cook.
  Figures Of(const std::string& id) const {
    auto it = row_of_.find(id);
    return it == row_of_.end() ? Figures{} : At(it->second);
  }
  Figures At(size_t r) const {
    const std::vector<ScoreValue>& row = table_->rows[r];
    auto get = [&](size_t c) { return c == kNone ? std::nullopt : Number(row[c]); };
    Figures f;
    const std::optional<double> n = get(cooked_);
    f.n = n ? static_cast<size_t>(*n) : 0;
    if (f.n == 0) return f;
    f.mean = get(avg_);
    f.p95 = get(p95_);
    f.score = get(score_);
    const std::optional<double> std_ms = get(std_);
    if (std_ms && f.n > 1) {
      f.variance = *std_ms * *std_ms * static_cast<double>(f.n) / static_cast<double>(f.n - 1);
    }
    return f;
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  const ScoreTable* table_;
  size_t id_ = kNone, score_ = kNone, avg_ = kNone, std_ = kNone, p95_ = kNone, cooked_ = kNone;
  std::unordered_map<std::string, size_t> row_of_;
};

// One snapshot in one run.
struct Member {
  const StoredRun* run;
  const StoredSnapshot* snapshot;
  NodeLookup nodes;
  const Member* before = nullptr;  // the latest earlier member that can be compared with
  bool usable() const { return run->complete() && snapshot->summary.error.empty(); }
};

// Fills `point` with `after` and, when there is a run before, the comparison.
void Compare(const Figures* before, int64_t before_run, const Figures& after,
             const DiffOptions& options, HistoryPoint& point) {
  point.mean_ms = after.mean;
  point.p95_ms = after.p95;
  point.n = after.n;
  if (before == nullptr) return;
  point.before_run = before_run;
  point.before_ms = before->mean;
  if (!before->mean || !after.mean) return;
  point.change_pct = ChangePct(*before->mean, *after.mean);
  if (before->variance && after.variance) {
    point.test = WelchTest({before->n, *before->mean, *before->variance},
                           {after.n, *after.mean, *after.variance});
  }
  point.flagged = point.test.p_slower && point.change_pct &&
                  *point.change_pct > options.min_change_pct &&
                  *point.test.p_slower < options.alpha;
}

std::optional<std::string> Closest(const std::vector<std::string>& known,
                                   std::string_view unknown) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& k : known) {
    const size_t d = EditDistance(k, unknown);
    const size_t limit = std::max(k.size(), unknown.size()) / 3;
    if (d == 0 || d > limit) continue;
    if (!best || d < best_distance) best = k, best_distance = d;
  }
  return best;
}

std::string DidYouMean(const std::vector<std::string>& known, std::string_view unknown) {
  std::optional<std::string> closest = Closest(known, unknown);
  return closest ? " (did you mean '" + *closest + "'?)" : "";
}

HistoryFlag FlagOf(const Member& m, const std::string& key, const std::string& node,
                   const HistoryPoint& p) {
  HistoryFlag f;
  f.run = m.run->id;
  f.label = m.run->info.label;
  f.snapshot = key;
  f.node = node;
  f.before_run = p.before_run;
  f.before_ms = p.before_ms.value_or(0);
  f.after_ms = p.mean_ms.value_or(0);
  f.change_pct = p.change_pct.value_or(0);
  f.p_value = p.test.p_slower.value_or(0);
  f.test = p.test;
  f.n_before =
      m.before ? (node.empty() ? m.before->snapshot->summary.frames : m.before->nodes.Of(node).n)
               : 0;
  f.n_after = p.n;
  return f;
}

// A run the history shows: --since RUN and --since TIME.
bool Shown(const StoredRun& r, const HistoryOptions& options) {
  return r.id >= options.since_run &&
         (options.since_time.empty() || r.started_at >= options.since_time);
}

// The flags of a snapshot's runs shown, each against the run before it.
std::vector<HistoryFlag> FlagsOf(const std::vector<Member>& list, const std::string& key,
                                 const HistoryOptions& options) {
  // Pass 1: the flags of every node, so that a flagged node that is not a top node joins the
  // series.
  std::vector<HistoryFlag> flags;
  for (const Member& m : list) {
    if (!m.usable() || m.before == nullptr || !Shown(*m.run, options)) continue;
    HistoryPoint frame;
    const Figures before_frame = FrameFigures(m.before->snapshot->summary);
    Compare(&before_frame, m.before->run->id, FrameFigures(m.snapshot->summary), options.test,
            frame);
    if (frame.flagged) flags.push_back(FlagOf(m, key, "", frame));
    std::vector<HistoryFlag> node_flags;
    for (size_t r = 0; r < m.nodes.size(); ++r) {
      if (!m.nodes.IdentifiedAt(r)) continue;
      const std::string& id = m.nodes.IdAt(r);
      if (!options.node.empty() && id != options.node) continue;
      if (!m.before->nodes.Has(id)) continue;  // new in this run: not a regression
      HistoryPoint point;
      const Figures before = m.before->nodes.Of(id);
      Compare(&before, m.before->run->id, m.nodes.At(r), options.test, point);
      if (point.flagged) node_flags.push_back(FlagOf(m, key, id, point));
    }
    std::sort(
        node_flags.begin(), node_flags.end(), [](const HistoryFlag& a, const HistoryFlag& b) {
          return a.change_pct != b.change_pct ? a.change_pct > b.change_pct : a.node < b.node;
        });
    flags.insert(flags.end(), node_flags.begin(), node_flags.end());
  }
  return flags;
}

void ChooseSeries(const std::vector<Member>& list, const std::vector<HistoryFlag>& flags,
                  const HistoryOptions& options, SnapshotHistory& sh) {
  // The series: --node, or the top nodes of the latest run that can be judged
  // (else of the latest run at all), then the flagged ones.
  if (!options.node.empty()) {
    sh.nodes = {options.node};
    sh.top = 1;
  } else if (!list.empty()) {
    const Member* latest = &list.back();
    for (auto it = list.rbegin(); it != list.rend(); ++it) {
      if (it->usable()) {
        latest = &*it;
        break;
      }
    }
    std::vector<std::pair<double, std::string>> ranked;
    for (size_t r = 0; r < latest->nodes.size(); ++r) {
      if (!latest->nodes.IdentifiedAt(r)) continue;
      const Figures f = latest->nodes.At(r);
      if (f.score) ranked.emplace_back(*f.score, latest->nodes.IdAt(r));
    }
    std::sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (size_t i = 0; i < ranked.size() && i < options.top; ++i)
      sh.nodes.push_back(ranked[i].second);
    sh.top = sh.nodes.size();
    for (const HistoryFlag& f : flags) {
      if (!f.node.empty() &&
          std::find(sh.nodes.begin(), sh.nodes.end(), f.node) == sh.nodes.end()) {
        sh.nodes.push_back(f.node);
      }
    }
  }
}

void AddTrend(const std::vector<Member>& list, const HistoryOptions& options,
              SnapshotHistory& sh) {
  // Pass 2: the trend of the runs shown.
  for (const Member& m : list) {
    if (!Shown(*m.run, options)) continue;
    HistoryEntry e;
    e.run = m.run->id;
    e.file = m.snapshot->summary.file;
    e.error = m.snapshot->summary.error;
    e.complete = m.run->complete();
    const bool judged = m.usable() && m.before != nullptr;
    const int64_t before_run = judged ? m.before->run->id : 0;
    const Figures before_frame = judged ? FrameFigures(m.before->snapshot->summary) : Figures{};
    Compare(judged ? &before_frame : nullptr, before_run, FrameFigures(m.snapshot->summary),
            options.test, e.frame);
    for (const std::string& id : sh.nodes) {
      HistoryPoint& point = e.nodes.emplace_back();
      const bool compared = judged && m.before->nodes.Has(id);
      const Figures before = compared ? m.before->nodes.Of(id) : Figures{};
      Compare(compared ? &before : nullptr, before_run, m.nodes.Of(id), options.test, point);
    }
    sh.entries.push_back(std::move(e));
  }
}

}  // namespace

std::optional<std::string> KinetoSeries(const std::string& file) {
  static const std::regex kKineto(R"(^(.+)\.(\d{10,})\.pt\.trace\.json(\.gz)?$)");
  static const std::regex kHostPid(R"(^.+_\d+$)");
  const std::filesystem::path path(file);
  const std::string base = path.filename().string();
  std::smatch m;
  if (!std::regex_match(base, m, kKineto)) return std::nullopt;
  const std::string worker = m[1].str();
  std::string series = std::regex_match(worker, kHostPid) ? "pt.trace" : worker + ".pt.trace";
  const std::string folder = path.parent_path().filename().string();
  if (!folder.empty() && folder != "." && folder != "..") series = folder + "/" + series;
  return series;
}

Result<History> AnalyseHistory(const std::vector<StoredRun>& runs, const HistoryOptions& options) {
  History h;
  h.options = options;
  h.stored_runs = runs.size();
  auto shown = [&](const StoredRun& r) { return Shown(r, options); };

  // Members by snapshot key, in the order keys first appear.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<Member>> members;
  for (const StoredRun& run : runs) {
    if (shown(run)) {
      h.runs.push_back(
          {run.id, run.started_at, run.finished_at, run.info.label, run.snapshots.size()});
      if (!run.complete()) h.incomplete.push_back(run.id);
    }
    std::map<std::string, size_t> names;
    for (const StoredSnapshot& s : run.snapshots)
      ++names[s.summary.name.empty() ? s.summary.file : s.summary.name];
    for (const StoredSnapshot& s : run.snapshots) {
      std::string key = s.summary.name.empty() ? s.summary.file : s.summary.name;
      if (names[key] > 1) key += " · " + s.summary.file;
      auto [it, added] = members.try_emplace(key);
      if (added) keys.push_back(key);
      it->second.push_back(Member{&run, &s, NodeLookup(s.nodes)});
    }
  }
  if (!options.snapshot.empty()) {
    if (members.count(options.snapshot) == 0) {
      return Error{.where = "--snapshot",
                   .message = fmt::format("no stored run has a snapshot '{}'{}", options.snapshot,
                                          DidYouMean(keys, options.snapshot))};
    }
    keys = {options.snapshot};
  }
  if (!options.node.empty()) {
    std::vector<std::string> kept, known;
    for (const std::string& key : keys) {
      bool has = false;
      for (const Member& m : members[key]) {
        if (m.nodes.Has(options.node)) has = true;
        for (size_t r = 0; r < m.nodes.size() && known.size() < 100000; ++r) {
          if (m.nodes.IdentifiedAt(r)) known.push_back(m.nodes.IdAt(r));
        }
      }
      if (has) kept.push_back(key);
    }
    if (kept.empty()) {
      std::sort(known.begin(), known.end());
      known.erase(std::unique(known.begin(), known.end()), known.end());
      return Error{.where = "--node",
                   .message = fmt::format("no stored run has node '{}'{}", options.node,
                                          DidYouMean(known, options.node))};
    }
    keys = kept;
  }

  for (const std::string& key : keys) {
    std::vector<Member>& list = members[key];
    const Member* previous = nullptr;
    for (Member& m : list) {
      if (!m.usable()) continue;
      m.before = previous;
      previous = &m;
    }
    SnapshotHistory sh;
    sh.key = key;
    const std::vector<HistoryFlag> flags = FlagsOf(list, key, options);
    ChooseSeries(list, flags, options, sh);
    AddTrend(list, options, sh);
    h.flags.insert(h.flags.end(), flags.begin(), flags.end());
    h.snapshots.push_back(std::move(sh));
  }

  // Nothing compared at all: every series has one run (traces stored under
  // their file names, which PyTorch makes new on every run, look like this).
  size_t most_runs = 0;
  for (const auto& [key, list] : members) most_runs = std::max(most_runs, list.size());
  if (runs.size() > 1 && most_runs == 1) {
    h.warnings.push_back(fmt::format(
        "every stored series has a single run ({} series over {} runs), so nothing was compared: "
        "store the runs of one job under one name (score --store DB --name SERIES)",
        members.size(), runs.size()));
  }

  // Flags by run; within a run, snapshots in the order above.
  std::stable_sort(h.flags.begin(), h.flags.end(),
                   [](const HistoryFlag& a, const HistoryFlag& b) { return a.run < b.run; });
  for (auto it = h.runs.rbegin(); it != h.runs.rend(); ++it) {
    if (it->finished_at.empty()) continue;
    const int64_t latest = it->id;
    h.latest_flagged = std::any_of(h.flags.begin(), h.flags.end(),
                                   [&](const HistoryFlag& f) { return f.run == latest; });
    break;
  }
  return h;
}

Status ParseSince(const std::string& text, HistoryOptions& options) {
  const Error bad{.where = "--since",
                  .message = fmt::format("expected a run id (12) or a UTC date or time "
                                         "(2026-11-27, 2026-11-27T09:30), got '{}'",
                                         text.substr(0, 40))};
  if (!text.empty() &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    int64_t id = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || id < 1) return bad;
    options.since_run = id;
    return {};
  }
  // YYYY-MM-DD[THH:MM[:SS[.fff]]][Z], a space allowed for the T.
  std::string t = text;
  if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.pop_back();
  if (t.size() > 10 && t[10] == ' ') t[10] = 'T';
  static constexpr std::string_view kForm = "dddd-dd-ddTdd:dd:dd.ddd";
  const std::vector<size_t> lengths = {10, 16, 19, 21, 22, 23};
  if (std::find(lengths.begin(), lengths.end(), t.size()) == lengths.end()) return bad;
  for (size_t i = 0; i < t.size(); ++i) {
    const bool digit = t[i] >= '0' && t[i] <= '9';
    if (kForm[i] == 'd' ? !digit : t[i] != kForm[i]) return bad;
  }
  auto field = [&](size_t at) { return (t[at] - '0') * 10 + (t[at + 1] - '0'); };
  const int month = field(5), day = field(8);
  if (month < 1 || month > 12 || day < 1 || day > 31) return bad;
  if (t.size() >= 16 && (field(11) > 23 || field(14) > 59)) return bad;
  if (t.size() >= 19 && field(17) > 60) return bad;
  options.since_time = t;
  return {};
}

}  // namespace cookgraph
