// The explorer's gain column and what-if slider (server/explorer.h,
// docs/architecture.md#what-if-predicted-gains): the ranked node table, the
// prediction for one node at one factor, the hard validation of both
// parameters, and the same documents through the HTTP server, asked at once
// from many threads. The page's slider is tested in Chromium
// (tests/browser/explorer_test.mjs).

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "server/explorer.h"
#include "server/http_server.h"
#include "tests/server/views.h"

namespace cookgraph::server {
namespace {

using nlohmann::json;

const std::string kBlur = "/project1/fx/trails/blur_fb";

std::vector<double> Series(const json& a) {
  std::vector<double> out;
  for (const json& x : a) out.push_back(x.is_null() ? NAN : x.get<double>());
  return out;
}

TEST(ExplorerWhatIf, HalvingANodeSavesItsGainAndRemovingItTwiceThatInSerialFrames) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const NodeIndex n = *v.snapshot.network.Find(kBlur);
  const json half = Doc(ex.WhatIfJson(0, kBlur, "0.5"));
  EXPECT_EQ(half["node"], kBlur);
  EXPECT_EQ(half["model"], "serial frames");
  EXPECT_EQ(half["factor"].get<double>(), 0.5);
  EXPECT_EQ(half["budget_ms"].get<double>(), v.analysis.budget_ms);
  EXPECT_NEAR(half["before"]["mean_ms"].get<double>(), v.analysis.frames.mean_ms, 1e-9);
  EXPECT_EQ(half["before"]["over_budget"], v.analysis.frames.over_budget.size());
  // The slider at 0.5 is the gain column.
  EXPECT_NEAR(half["saved_ms"].get<double>(), v.analysis.gain_ms[n], 1e-12);
  // Serial frames lose (1 - factor) x the node's cook in every frame.
  const std::vector<double> before = Series(half["before_ms"]), after = Series(half["after_ms"]);
  const auto cook = v.snapshot.samples.series(n, Metric::kCookMs);
  ASSERT_EQ(before.size(), 300u);
  ASSERT_EQ(after.size(), before.size());
  for (size_t f = 0; f < before.size(); ++f) {
    EXPECT_NEAR(before[f] - after[f], 0.5 * cook[f], 1e-9) << "frame " << f;
  }
  const json removed = Doc(ex.WhatIfJson(0, kBlur, "0"));
  EXPECT_NEAR(removed["saved_ms"].get<double>(), 2 * half["saved_ms"].get<double>(), 1e-9);
  const json measured = Doc(ex.WhatIfJson(0, kBlur, "1"));
  EXPECT_EQ(measured["saved_ms"].get<double>(), 0);
  EXPECT_EQ(measured["after_ms"], measured["before_ms"]);
  const json slower = Doc(ex.WhatIfJson(0, kBlur, "2"));
  EXPECT_NEAR(slower["saved_ms"].get<double>(), -2 * half["saved_ms"].get<double>(), 1e-9);
  EXPECT_GE(slower["after"]["over_budget"].get<size_t>(),
            half["before"]["over_budget"].get<size_t>());
}

TEST(ExplorerWhatIf, RemovingTheSpikingScriptBringsEveryFrameUnderBudget) {
  Explorer ex = Td();
  const json d = Doc(ex.WhatIfJson(0, "/project1/control/script_osc", "0"));
  EXPECT_EQ(d["before"]["over_budget"], 15);
  EXPECT_EQ(d["after"]["over_budget"], 0);
  EXPECT_EQ(d["frames_saved"], 15);
}

TEST(ExplorerWhatIf, AnUnknownNodeOrAContainerIsNotFound) {
  Explorer ex = Td();
  for (const Result<std::string>& r :
       {ex.WhatIfJson(0, "/nope", "0.5"), ex.WhatIfJson(0, "/project1", "0.5"),
        ex.WhatIfJson(3, kBlur, "0.5")}) {
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().where, kNotFound);
  }
  EXPECT_EQ(ex.WhatIfJson(0, "/nope", "0.5").error().message,
            "no node '/nope' in examples/touchdesigner_feedback.json");
  EXPECT_EQ(ex.WhatIfJson(0, "/project1", "0.5").error().message,
            "'/project1' is a container in examples/touchdesigner_feedback.json, not a node: the "
            "what-if changes one node");
  const Result<std::string> none = ex.WhatIfJson(0, "", "0.5");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().where, kNotFound);
  EXPECT_EQ(none.error().message, "node: give a node id (?node=ID)");
}

TEST(ExplorerWhatIf, AFactorIsADecimalFromZeroToTen) {
  for (const auto& [text, want] : std::vector<std::pair<std::string, double>>{{"0", 0},
                                                                              {"0.5", 0.5},
                                                                              {".5", 0.5},
                                                                              {"1", 1},
                                                                              {"2", 2},
                                                                              {"10", 10},
                                                                              {"2e-1", 0.2},
                                                                              {"0.000", 0}}) {
    const Result<double> f = ParseWhatIfFactor(text);
    ASSERT_TRUE(f) << text << ": " << f.error().message;
    EXPECT_EQ(*f, want) << text;
  }
  const std::string range = "give a factor from 0 (the node removed) to 10";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"",
       "factor: give how many times as long the node cooks, from 0 (the node removed) to 10 "
       "(?factor=0.5)"},
      {"-1", "factor: '-1' is negative: a node cannot cook in less than no time; " + range},
      {"-0", "factor: '-0' is negative: a node cannot cook in less than no time; " + range},
      {"nan", "factor: 'nan' is not a number; " + range},
      {"inf", "factor: 'inf' is not a number; " + range},
      {"infinity", "factor: 'infinity' is not a number; " + range},
      {"+1", "factor: '+1' is not a number; " + range},
      {" 0.5", "factor: ' 0.5' is not a number; " + range},
      {"0.5 ", "factor: '0.5 ' is not a number; " + range},
      {"0x1", "factor: '0x1' is not a number; " + range},
      {"1e", "factor: '1e' is not a number; " + range},
      {"0.5.1", "factor: '0.5.1' is not a number; " + range},
      {"half", "factor: 'half' is not a number; " + range},
      {"10.001", "factor: '10.001' is out of range; " + range},
      {"1e999", "factor: '1e999' is out of range; " + range},
      {"1e-999", "factor: '1e-999' is out of range; " + range},
      {std::string("1\0", 2), "factor: '1?' is not a number; " + range},
      {"\x1b[2J", "factor: '?[2J' is not a number; " + range},
  };
  Explorer ex = Td();
  for (const auto& [text, message] : bad) {
    const Result<double> f = ParseWhatIfFactor(text);
    ASSERT_FALSE(f) << text;
    EXPECT_EQ(f.error().message, message);
    const Result<std::string> doc = ex.WhatIfJson(0, kBlur, text);
    ASSERT_FALSE(doc) << text;
    EXPECT_NE(doc.error().where, kNotFound);  // 400, not 404
    EXPECT_EQ(doc.error().message, message);
  }
  // A long text is shown cut.
  EXPECT_EQ(ParseWhatIfFactor(std::string(100, 'x')).error().message,
            "factor: '" + std::string(32, 'x') + "' is not a number; " + range);
}

TEST(ExplorerWhatIf, TheNodeTableRanksEveryNodeByTheKeyAsked) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const json d = Doc(ex.NodesJson(0, "gain", 10));
  EXPECT_EQ(d["sort"], "gain");
  EXPECT_TRUE(d["gains"].get<bool>());
  EXPECT_EQ(d["cooked"], CookedCount(v.analysis));
  ASSERT_EQ(d["rows"].size(), 10u);
  const std::vector<NodeIndex> want = Rank(v.analysis, SortKey::kGain);
  for (size_t i = 0; i < 10; ++i) {
    const json& row = d["rows"][i];
    EXPECT_EQ(row["id"], v.snapshot.network.node(want[i]).id);
    EXPECT_EQ(row["gain_ms"].get<double>(), v.analysis.gain_ms[want[i]]);
    if (i > 0) {
      EXPECT_GE(d["rows"][i - 1]["gain_ms"].get<double>(), row["gain_ms"].get<double>());
    }
  }
  EXPECT_EQ(d["rows"][0]["id"], kBlur);
  EXPECT_EQ(d["rows"][0]["rank"], 2);  // by score, as `score` ranks
  EXPECT_EQ(d["rows"][0]["parent"], "/project1/fx/trails");
  // The default is the score; every cooked node fits.
  const json all = Doc(ex.NodesJson(0, "", kMaxNodeRows));
  EXPECT_EQ(all["sort"], "score");
  EXPECT_EQ(all["rows"].size(), CookedCount(v.analysis));
  EXPECT_EQ(all["rows"][0]["id"], "/project1/control/script_osc");
  EXPECT_EQ(ex.NodesJson(0, "speed", 10).error().message,
            "sort: unknown key 'speed'; give one of score, avg, p95, max, per-frame, gpu, "
            "upstream, gain");
  EXPECT_EQ(ex.NodesJson(0, "score", 0).error().message, "top: give 1 to 5000 rows");
  EXPECT_EQ(ex.NodesJson(0, "score", kMaxNodeRows + 1).error().message, "top: give 1 to 5000 rows");
  EXPECT_EQ(ex.NodesJson(4, "score", 10).error().where, kNotFound);
}

TEST(ExplorerWhatIf, TheGainIsAMetricOfTheNetworkAndOfTheNodePanel) {
  Explorer ex = Td();
  const View& v = *ex.data()->views[0];
  const json s = Doc(ex.SummaryJson(0));
  EXPECT_EQ(s["metrics"].back(), "gain_ms");
  const json g = Doc(ex.GraphJson(0, "/project1/fx/trails"));
  const auto& ids = g["items"]["id"];
  double largest = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const NodeIndex n = *v.snapshot.network.Find(ids[i].get<std::string>());
    EXPECT_EQ(g["items"]["gain_ms"][i].get<double>(), v.analysis.gain_ms[n]);
    largest = std::max(largest, v.analysis.gain_ms[n]);
  }
  // A container's gain is the largest beneath it: gains do not add up.
  const json fx = Doc(ex.GraphJson(0, "/project1"));
  for (size_t i = 0; i < fx["items"]["id"].size(); ++i) {
    if (fx["items"]["id"][i] == "/project1/fx") {
      EXPECT_GE(fx["items"]["gain_ms"][i].get<double>(), largest);
    }
  }
  const json node = Doc(ex.NodeJson(0, kBlur));
  EXPECT_EQ(node["gain_ms"].get<double>(), v.analysis.gain_ms[*v.snapshot.network.Find(kBlur)]);
}

TEST(ExplorerWhatIf, AViewAnalysedWithoutGainsHasNoGainColumnButStillPredicts) {
  auto v = std::make_shared<View>();
  v->file = "plain";
  Result<Snapshot> s = ReadInput({std::string(COOKGRAPH_SOURCE_DIR) + "/" + kTd}, {});
  ASSERT_TRUE(s);
  v->snapshot = std::move(*s);
  v->analysis = Analyse(v->snapshot);
  Prepare(*v);
  Dataset d;
  d.views.push_back(v);
  Explorer ex(std::move(d));
  EXPECT_EQ(Doc(ex.SummaryJson(0))["metrics"].back(), "upstream_ms");
  EXPECT_TRUE(Doc(ex.GraphJson(0, "/project1/fx/trails"))["items"]["gain_ms"][0].is_null());
  EXPECT_EQ(ex.NodesJson(0, "gain", 10).error().message,
            "sort: gain: plain was analysed without gains");
  EXPECT_GT(Doc(ex.WhatIfJson(0, kBlur, "0"))["saved_ms"].get<double>(), 0);
}

// Through the server: the status codes, repeated and missing parameters, and
// many pages moving their sliders at once (one shared model per view, read by
// every thread; run under ThreadSanitizer by scripts/test-sanitizers.sh).
TEST(ExplorerWhatIfServer, AnswersEachRequestWithItsOwnPredictionFromManyThreads) {
  Explorer ex = Td();
  ExplorerServer server(ex, ServeOptions{.port = 0});
  ASSERT_TRUE(server.Start());
  httplib::Client client("127.0.0.1", server.port());
  const std::string path = "/api/v/0/whatif?node=%2Fproject1%2Ffx%2Ftrails%2Fblur_fb";
  auto get = [&](const std::string& query) {
    auto r = client.Get(query);
    EXPECT_TRUE(r) << query;
    return r ? std::make_pair(r->status, json::parse(r->body)) : std::make_pair(0, json());
  };
  EXPECT_EQ(get(path + "&factor=0.5").first, 200);
  for (const auto& [query, status, error] : std::vector<std::tuple<std::string, int, std::string>>{
           {"/api/v/0/whatif?node=%2Fnope&factor=0.5", 404,
            "no node '/nope' in examples/touchdesigner_feedback.json"},
           {"/api/v/9/whatif?node=%2Fnope&factor=0.5", 404, "no view 9"},
           {path + "&factor=-0.5", 400,
            "factor: '-0.5' is negative: a node cannot cook in less than no time; give a factor "
            "from 0 (the node removed) to 10"},
           {path + "&factor=NaN", 400,
            "factor: 'NaN' is not a number; give a factor from 0 (the node removed) to 10"},
           // Refused before the route, as every parameter that is not UTF-8.
           {path + "&factor=%FF", 400, "factor: not UTF-8 text"},
           {path, 400,
            "factor: give how many times as long the node cooks, from 0 (the node removed) to 10 "
            "(?factor=0.5)"},
           {path + "&factor=", 400,
            "factor: give how many times as long the node cooks, from 0 (the node removed) to 10 "
            "(?factor=0.5)"},
           {"/api/v/0/whatif?factor=0.5", 400, "node: give a node id (?node=ID)"},
           {path + "&factor=0.5&factor=1", 400, "factor: given 2 times; give it once"},
           {path + "&node=%2Fproject1%2Fpost%2Fblur_preview&factor=0.5", 400,
            "node: given 2 times; give it once"},
           {"/api/v/0/nodes?sort=gain&sort=avg", 400, "sort: given 2 times; give it once"},
           {"/api/v/0/nodes?top=-1", 400, "top: give a number of rows, 1 to 5000"},
       }) {
    const auto [got, body] = get(query);
    EXPECT_EQ(got, status) << query;
    EXPECT_EQ(body["error"], error) << query;
  }
  EXPECT_EQ(get("/api/v/0/nodes?sort=gain&top=3").second["rows"][0]["id"], kBlur);

  // Each thread asks for its own factors; every answer must be the one a
  // single thread gets for that factor.
  const std::vector<std::string> factors = {"0", "0.25", "0.5", "0.75", "1", "1.5", "2"};
  std::vector<double> want;
  for (const std::string& f : factors)
    want.push_back(Doc(ex.WhatIfJson(0, kBlur, f))["saved_ms"].get<double>());
  std::atomic<size_t> answered{0}, wrong{0};
  std::vector<std::thread> pages;
  for (size_t t = 0; t < 6; ++t) {
    pages.emplace_back([&, t] {
      httplib::Client own("127.0.0.1", server.port());
      for (size_t i = 0; i < 14; ++i) {
        const size_t k = (t + i) % factors.size();
        auto r = own.Get(path + "&factor=" + factors[k]);
        if (!r || r->status != 200 || json::parse(r->body)["saved_ms"].get<double>() != want[k])
          ++wrong;
        ++answered;
      }
    });
  }
  for (std::thread& t : pages) t.join();
  EXPECT_EQ(answered.load(), 84u);
  EXPECT_EQ(wrong.load(), 0u);
  server.Stop();
}

// watch --serve replaces the data while a page moves its slider: a request
// keeps the dataset it started with, whose model points into its own view,
// freed with the last dataset that holds it.
TEST(ExplorerWhatIfServer, PredictionsStayWholeWhileLiveDataIsReplaced) {
  const std::shared_ptr<const View> td = LoadView(kTd);
  Explorer ex(Dataset{.live = true});
  std::atomic<bool> stop{false};
  std::atomic<size_t> reads{0}, torn{0};
  const double want =
      Doc(Explorer(Dataset{.views = {td}}).WhatIfJson(0, kBlur, "0"))["saved_ms"].get<double>();
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        const Result<std::string> d = ex.WhatIfJson(0, kBlur, "0");
        // No view (404) or the whole prediction, never a part.
        if (d ? json::parse(*d)["saved_ms"].get<double>() != want : d.error().where != kNotFound)
          ++torn;
        ++reads;
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    Dataset d{.live = true};
    if (i % 2) d.views.push_back(LoadView(kTd));
    ex.Replace(std::move(d));
  }
  while (reads.load() < 50) std::this_thread::yield();
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_EQ(torn.load(), 0u);
}

}  // namespace
}  // namespace cookgraph::server
