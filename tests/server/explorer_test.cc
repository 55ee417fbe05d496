// The explorer's documents (server/explorer.h) on the examples: the
// container view and its roll-up, the layout, the critical edges, search,
// node panels, timelines; and its HTTP server's routes (server/http_server.h)
// through cpp-httplib's client. The page itself is tested in Chromium
// (tests/browser/, docs/testing.md#browser-tests).

#include "server/explorer.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/assets.h"
#include "server/http_server.h"
#include "tests/server/views.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;

TEST(Explorer, TheTopLevelIsOneContainerHoldingTheWholeNetwork) {
  Explorer ex = Td();
  const json g = Doc(ex.GraphJson(0, ""));
  ASSERT_EQ(g["items"]["id"].size(), 1u);
  EXPECT_EQ(g["items"]["id"][0], "/project1");
  EXPECT_TRUE(g["items"]["flags"][0].get<int>() & 16);  // enterable
  // Its per-frame ms is the sum over every node beneath it.
  const View& v = *ex.data()->views[0];
  double sum = 0;
  for (const NodeStats& s : v.analysis.stats) sum += s.per_frame_ms;
  EXPECT_NEAR(g["items"]["per_frame_ms"][0].get<double>(), sum, 1e-9 * sum);
}

TEST(Explorer, AContainerShowsItsChildrenWithEdgesRolledUpAndLayeredLeftToRight) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const json g = Doc(ex.GraphJson(0, "/project1"));
  const auto& ids = g["items"]["id"];
  std::set<std::string> items;
  for (const json& id : ids) items.insert(id.get<std::string>());
  std::set<std::string> want;
  for (const Container& c : v.containers) {
    if (c.parent == "/project1") want.insert(c.id);
  }
  for (const Node& n : v.snapshot.network.nodes()) {
    if (n.parent == "/project1") want.insert(n.id);
  }
  EXPECT_EQ(items, want);
  EXPECT_EQ(g["edges"].size() % 4, 0u);
  // In a container without cycles (its loop is closed by a feedback edge),
  // every other edge goes left to right: the layers are longest paths.
  const json t = Doc(ex.GraphJson(0, "/project1/fx/trails"));
  const auto& e = t["edges"];
  size_t total = 0;
  for (size_t i = 0; i < e.size(); i += 4) {
    if (e[i + 2].get<int>() == static_cast<int>(EdgeKind::kFeedback)) continue;
    ++total;
    EXPECT_LT(t["items"]["x"][e[i].get<size_t>()].get<double>(), t["items"]["x"][e[i + 1].get<size_t>()].get<double>())
        << t["items"]["id"][e[i].get<size_t>()] << " -> " << t["items"]["id"][e[i + 1].get<size_t>()];
  }
  EXPECT_GT(total, 3u);
  // No two items share a place.
  std::set<std::pair<double, double>> places;
  for (size_t i = 0; i < ids.size(); ++i) {
    places.insert({g["items"]["x"][i].get<double>(), g["items"]["y"][i].get<double>()});
  }
  EXPECT_EQ(places.size(), ids.size());
}

TEST(Explorer, TheCriticalPathsEdgesAreMarkedWhereBothEndsAreInTheContainer) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const std::string here = "/project1/fx/trails";
  const json g = Doc(ex.GraphJson(0, here));
  std::set<std::pair<std::string, std::string>> marked, want;
  const auto& e = g["edges"];
  for (size_t i = 0; i < e.size(); i += 4) {
    if (e[i + 3].get<int>()) {
      marked.insert({g["items"]["id"][e[i].get<size_t>()].get<std::string>(),
                     g["items"]["id"][e[i + 1].get<size_t>()].get<std::string>()});
    }
  }
  const auto& route = v.analysis.critical_route.nodes;
  const Network& net = v.snapshot.network;
  for (size_t i = 1; i < route.size(); ++i) {
    if (net.node(route[i - 1]).parent == here && net.node(route[i]).parent == here) {
      want.insert({net.node(route[i - 1]).id, net.node(route[i]).id});
    }
  }
  EXPECT_FALSE(want.empty());
  EXPECT_EQ(marked, want);
}

TEST(Explorer, AnUnknownContainerViewNodeOrFrameIsNotFound) {
  Explorer ex = Td();
  for (const Result<std::string>& r :
       {ex.GraphJson(0, "/nope"), ex.GraphJson(1, ""), ex.NodeJson(0, "/nope"), ex.TimelineJson(0, 300),
        ex.SummaryJson(7), ex.DiffJson()}) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().where, kNotFound);
  }
}

TEST(Explorer, SearchPutsTheExactNameFirstAndSearchesEveryContainer) {
  Explorer ex = Td();
  const json r = Doc(ex.SearchJson(0, "COMP_FB"));
  ASSERT_FALSE(r["results"].empty());
  EXPECT_EQ(r["results"][0]["id"], "/project1/fx/trails/comp_fb");
  EXPECT_EQ(r["results"][0]["parent"], "/project1/fx/trails");
  const json all = Doc(ex.SearchJson(0, "/"));
  EXPECT_EQ(all["total"], 364);
  EXPECT_EQ(all["results"].size(), 50u);
  EXPECT_EQ(Doc(ex.SearchJson(0, ""))["total"], 0);
}

TEST(Explorer, TheNodePanelHasTheScoreColumnsSeriesAndNeighbours) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const json d = Doc(ex.NodeJson(0, "/project1/control/script_osc"));
  const NodeIndex n = *v.snapshot.network.Find("/project1/control/script_osc");
  EXPECT_EQ(d["stats"]["rank"], 1);
  EXPECT_EQ(d["stats"]["score"].get<double>(), v.analysis.stats[n].score);
  EXPECT_EQ(d["stats"]["p99_ms"].get<double>(), v.analysis.stats[n].p99_ms);
  EXPECT_EQ(d["series"]["cook_ms"].size(), 300u);
  EXPECT_EQ(d["over_budget"].size(), 15u);
  EXPECT_EQ(d["inputs"][0]["id"], "/project1/control/oscin1");
  EXPECT_EQ(d["parent"], "/project1/control");
  EXPECT_FALSE(d["findings"].empty());
}

TEST(Explorer, ATouchDesignerFrameIsLaidOutInDependencyOrderOnTheMainThread) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const json t = Doc(ex.TimelineJson(0, 7));
  EXPECT_EQ(t["layout"], "dependency");
  ASSERT_EQ(t["lanes"].size(), 1u);
  const json& lane = t["lanes"][0];
  EXPECT_EQ(lane["label"], "main thread");
  // Cooks follow one another; their sum is the frame's summed cook time.
  double at = 0, sum = 0;
  for (size_t i = 0; i < lane["start"].size(); ++i) {
    EXPECT_NEAR(lane["start"][i].get<double>(), at, 1e-9);
    at += lane["dur"][i].get<double>();
  }
  for (NodeIndex n = 0; n < v.snapshot.network.size(); ++n) {
    const auto s = v.snapshot.samples.series(n, Metric::kCookMs);
    if (!s.empty() && std::isfinite(s[7])) sum += s[7];
  }
  EXPECT_NEAR(at, sum, 1e-9);
}

// A GStreamer buffer index k is frame k of the threads at the bottleneck's
// rate only: a thread at another rate (audio beside video) is left out of the
// frame's timeline, in both layouts, and counted (issue 34).
TEST(Explorer, AGstreamerFrameLeavesOutThreadsAtAnotherRate) {
  auto v = std::make_shared<View>();
  Result<Snapshot> s = ReadInput({std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/gstreamer/tee_bin.dot",
                                  std::string(COOKGRAPH_SOURCE_DIR) + "/tests/data/gstreamer/tee_bin.log"},
                                 {});
  ASSERT_TRUE(s) << s.error().Format();
  v->snapshot = std::move(*s);
  ASSERT_TRUE(v->snapshot.streaming);
  Streaming& st = *v->snapshot.streaming;
  ASSERT_GE(st.threads.size(), 2u);
  const size_t other = st.bottleneck == 0 ? 1 : 0;
  st.threads[other].sets_frame = false;
  std::set<std::string> hidden;
  const std::vector<bool> off = OffFrameNodes(st, v->snapshot.network.size());
  for (NodeIndex n = 0; n < off.size(); ++n) {
    if (off[n]) hidden.insert(v->snapshot.network.node(n).id);
  }
  ASSERT_FALSE(hidden.empty());
  const bool recorded = !st.cook_start_ms.empty();
  v->analysis = Analyse(v->snapshot, AnalysisOptions{.gains = true});
  v->pack = *BuiltinPack(v->snapshot.info.engine);
  Prepare(*v);
  Dataset d;
  d.views.push_back(v);
  Explorer ex(std::move(d));
  const json t = Doc(ex.TimelineJson(0, 0));
  EXPECT_EQ(t["layout"], recorded ? "recorded" : "dependency");
  size_t shown = 0;
  for (const json& lane : t["lanes"]) {
    for (const json& node : lane["node"]) {
      ++shown;
      if (node.is_string()) {
        EXPECT_EQ(hidden.count(node.get<std::string>()), 0u) << node;
      }
    }
  }
  EXPECT_GT(shown, 0u);
  EXPECT_GE(t["other_streams"].get<size_t>(), 1u);
}

TEST(Explorer, ATraceStepHasOneLanePerThreadAndStreamWithLaunchLinks) {
  Dataset d;
  d.views.push_back(LoadView("tests/data/fixtures/traces/kineto_nccl_rank0_5steps.json.gz"));
  Explorer ex(std::move(d));
  const json t = Doc(ex.TimelineJson(0, 1));
  EXPECT_EQ(t["layout"], "recorded");
  bool gpu = false, cpu = false;
  size_t links = 0, events = 0;
  for (const json& lane : t["lanes"]) {
    (lane["gpu"].get<bool>() ? gpu : cpu) = true;
    events += lane["start"].size();
    for (size_t i = 0; i < lane["link"].size(); ++i) {
      if (lane["link"][i].is_null()) continue;
      ++links;
      const size_t to = lane["link"][i][0], at = lane["link"][i][1];
      ASSERT_LT(to, t["lanes"].size());
      ASSERT_LT(at, t["lanes"][to]["start"].size());
    }
  }
  EXPECT_TRUE(gpu && cpu);
  EXPECT_GT(links, 0u);
  EXPECT_EQ(events, t["kept"].get<size_t>());
  EXPECT_EQ(t["events"], t["kept"]);
}

// A trace has no containers: the explorer shows its call tree, each node
// inside a node that calls or launches it, with no cycle.
TEST(Explorer, ATraceIsShownAsItsCallTree) {
  Dataset d;
  d.views.push_back(LoadView("tests/data/fixtures/traces/kineto_nccl_rank0_5steps.json.gz"));
  Explorer ex(std::move(d));
  const View& v = *ex.data()->views[0];
  const Network& net = v.snapshot.network;
  ASSERT_EQ(v.parents.size(), net.size());
  std::set<std::pair<std::string, std::string>> callers;
  for (const Edge& e : net.edges()) {
    if (e.kind == EdgeKind::kCall || e.kind == EdgeKind::kLaunch) {
      callers.insert({net.node(e.from).id, net.node(e.to).id});
    }
  }
  size_t nested = 0;
  for (NodeIndex n = 0; n < net.size(); ++n) {
    if (v.parents[n].empty()) continue;
    ++nested;
    EXPECT_TRUE(callers.contains({v.parents[n], net.node(n).id})) << net.node(n).id;
    // Up the chain: it ends at the top level.
    std::string at = v.parents[n];
    size_t steps = 0;
    while (!at.empty() && steps++ <= net.size()) at = v.parents[*net.Find(at)];
    EXPECT_TRUE(at.empty()) << net.node(n).id << " is in a cycle of parents";
  }
  EXPECT_GT(nested, net.size() / 2);
  // The top level holds containers to enter, and a launch call holds kernels.
  const json top = Doc(ex.GraphJson(0, ""));
  size_t enterable = 0;
  for (const json& f : top["items"]["flags"]) enterable += (f.get<int>() & 16) != 0;
  EXPECT_GT(enterable, 0u);
  const json launch = Doc(ex.GraphJson(0, "cudaLaunchKernel"));
  bool kernel = false;
  for (const json& family : launch["items"]["family"]) kernel |= family == "kernel";
  EXPECT_TRUE(kernel);
}

TEST(Explorer, LiveDataIsReplacedWholeAndTheVersionGrows) {
  Explorer ex(Dataset{.live = true});
  EXPECT_EQ(ex.version(), 0u);
  EXPECT_EQ(json::parse(ex.IndexJson())["views"].size(), 0u);
  Dataset next{.live = true, .status = "3 frames"};
  next.views.push_back(LoadView(kTd));
  ex.Replace(std::move(next));
  EXPECT_EQ(ex.version(), 1u);
  const json index = json::parse(ex.IndexJson());
  EXPECT_EQ(index["views"].size(), 1u);
  EXPECT_EQ(index["status"], "3 frames");
  EXPECT_TRUE(index["live"].get<bool>());
}

// Pages read while watch --serve replaces the data: every reader sees one
// whole dataset (run under ThreadSanitizer by scripts/test-sanitizers.sh).
TEST(Explorer, ReadersSeeWholeDatasetsWhileTheyAreReplaced) {
  const std::shared_ptr<const View> td = LoadView(kTd);
  Explorer ex(Dataset{.live = true});
  std::atomic<bool> stop{false};
  std::atomic<size_t> reads{0}, torn{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        const uint64_t version = ex.version();
        const json index = json::parse(ex.IndexJson());
        const size_t views = index["views"].size();
        // A dataset is built with its status; never one without the other.
        if (views > 0 && index["status"] != "with a view") ++torn;
        if (views > 0) {
          // Two calls may see two datasets (a page's next request sees the
          // next one): only where nothing replaced it in between must the
          // view the index listed be there.
          const Result<std::string> g = ex.GraphJson(0, "/project1/control");
          if (!g && ex.version() == version) ++torn;
        }
        ++reads;
      }
    });
  }
  for (int i = 0; i < 200; ++i) {
    Dataset d{.live = true};
    if (i % 2) {
      d.views.push_back(td);
      d.status = "with a view";
    }
    ex.Replace(std::move(d));
  }
  while (reads.load() < 50) std::this_thread::yield();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0u);
  EXPECT_EQ(ex.version(), 200u);
}

TEST(Explorer, AssetsAreFoundByExactNameOnly) {
  EXPECT_NE(FindAsset("index.html"), nullptr);
  EXPECT_NE(FindAsset("app.js"), nullptr);
  EXPECT_NE(FindAsset("vendor-markdown-it.min.js"), nullptr);
  for (const char* name : {"", "..", "../app.js", "vendor/markdown-it.min.js", "APP.JS", "app.js "}) {
    EXPECT_EQ(FindAsset(name), nullptr) << name;
  }
}

TEST(ExplorerServer, ServesThePageAndTheApiAndRefusesAForeignHost) {
  Explorer ex = Td();
  ExplorerServer server(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(server.Start());
  httplib::Client client("127.0.0.1", server.port());
  auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("script-src 'self'"), std::string::npos);
  auto index = client.Get("/api/index");
  ASSERT_TRUE(index);
  EXPECT_EQ(json::parse(index->body)["views"][0]["nodes"], 364);
  auto foreign = client.Get("/api/index", {{"Host", "evil.example"}});
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  auto origin = client.Get("/api/index", {{"Origin", "http://evil.example"}});
  ASSERT_TRUE(origin);
  EXPECT_EQ(origin->status, 403);
  auto missing = client.Get("/api/v/0/node?id=%2Fnope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  server.Stop();
  EXPECT_FALSE(server.running());
}

TEST(ExplorerServer, HostChecksFollowTheBoundAddress) {
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("127.3.2.1"));
  EXPECT_TRUE(IsLoopback("localhost"));
  EXPECT_TRUE(IsLoopback("::1"));
  EXPECT_FALSE(IsLoopback("0.0.0.0"));
  EXPECT_FALSE(IsLoopback("192.168.1.2"));
  EXPECT_FALSE(IsLoopback("127.example.com"));  // a name that only starts like one
  EXPECT_EQ(RandomToken().size(), 32u);
  EXPECT_NE(RandomToken(), RandomToken());
}

}  // namespace
}  // namespace cookgraph::server
