#ifndef COOKGRAPH_TESTS_SERVER_VIEWS_H_
#define COOKGRAPH_TESTS_SERVER_VIEWS_H_

// The explorer tests' views: an example read, analysed with the gains (as
// `cookgraph serve` analyses), judged by its built-in pack and prepared; the
// TouchDesigner example as an explorer; a document parsed.

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/input_reader.h"
#include "advisor/pack.h"
#include "advisor/rules.h"
#include "server/explorer.h"

namespace cookgraph::server {

inline std::shared_ptr<const View> LoadView(const std::string& file) {
  auto v = std::make_shared<View>();
  Result<Snapshot> s = ReadInput({std::string(COOKGRAPH_SOURCE_DIR) + "/" + file}, {});
  EXPECT_TRUE(s) << (s ? "" : s.error().Format());
  v->file = file;
  v->snapshot = std::move(*s);
  v->analysis = Analyse(v->snapshot, AnalysisOptions{.gains = true});
  v->pack = *BuiltinPack(v->snapshot.info.engine);
  v->findings = Evaluate(v->pack, v->snapshot, v->analysis);
  Prepare(*v);
  return v;
}

inline const std::string kTd = "examples/touchdesigner_feedback.json";

inline Explorer Td() {
  Dataset d;
  d.views.push_back(LoadView(kTd));
  return Explorer(std::move(d));
}

inline nlohmann::json Doc(const Result<std::string>& r) {
  EXPECT_TRUE(r) << (r ? "" : r.error().Format());
  return r ? nlohmann::json::parse(*r) : nlohmann::json();
}

}  // namespace cookgraph::server

#endif  // COOKGRAPH_TESTS_SERVER_VIEWS_H_
