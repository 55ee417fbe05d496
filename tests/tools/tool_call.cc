// tool_call [--budget-ms MS] [--ranks FILE] INPUT NAME ARGS_JSON [MAX_TOKENS]
// tool_call [--budget-ms MS] [--ranks FILE] INPUT --batch [MAX_TOKENS]
// runs the tools the model can call (advisor/tools.h,
// docs/architecture.md#tools-the-model-can-call) on INPUT read and judged as
// `cookgraph ask` does (any input format, the built-in pack, with the what-if
// gains) and prints the result's content on stdout, one line. MAX_TOKENS
// (default 1000000) is the result's budget, counted by the estimator, or
// exactly with the o200k_base rank file FILE.
//
// With --batch, each line of standard input is one call, "NAME ARGS_JSON"
// (the name, one space, the arguments to the end of the line), and each
// result's content is printed on a line of its own, in order.
//
// Exit 0 when every call succeeded, 1 when one gave an error result (its
// content is printed all the same), 2 when the input cannot be read or the
// usage is wrong (the reason on stderr). The nodes a call looked at go to
// stderr, one line per call: "nodes: ID, ID".
//
// For tests/tools/tools_check.py; not installed.

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "advisor/judge.h"
#include "advisor/tokens/token_counter.h"
#include "advisor/tools.h"
#include "pipeline/pipeline.h"

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: tool_call [--budget-ms MS] [--ranks FILE] INPUT NAME ARGS_JSON [MAX_TOKENS]\n"
               "       tool_call [--budget-ms MS] [--ranks FILE] INPUT --batch [MAX_TOKENS]\n");
  return 2;
}

bool Call(const cookgraph::AnalysisTools& tools, const std::string& name, const std::string& args,
          const cookgraph::TokenCounter& counter, size_t max_tokens) {
  const cookgraph::ToolResult r = tools.Run(name, args, counter, max_tokens);
  std::cout << r.content << '\n';
  std::string nodes;
  for (const std::string& id : r.nodes) nodes += (nodes.empty() ? "" : ", ") + id;
  std::cerr << "nodes: " << nodes << '\n';
  return !r.error;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::optional<double> budget_ms;
  std::string ranks;
  while (!args.empty() && args.front().starts_with("--") && args.front() != "--batch") {
    if (args.size() < 2) return Usage();
    if (args[0] == "--budget-ms") {
      budget_ms = std::strtod(args[1].c_str(), nullptr);
    } else if (args[0] == "--ranks") {
      ranks = args[1];
    } else {
      return Usage();
    }
    args.erase(args.begin(), args.begin() + 2);
  }
  const bool batch = args.size() >= 2 && args[1] == "--batch";
  if (batch ? (args.size() > 3) : (args.size() < 3 || args.size() > 4)) return Usage();
  const std::string& max_text = batch ? (args.size() == 3 ? args[2] : "") : (args.size() == 4 ? args[3] : "");
  const size_t max_tokens = max_text.empty() ? 1000000 : std::strtoull(max_text.c_str(), nullptr, 10);

  std::unique_ptr<cookgraph::TokenCounter> counter;
  if (ranks.empty()) {
    counter = cookgraph::MakeEstimator();
  } else {
    auto loaded = cookgraph::LoadTiktoken(ranks, cookgraph::Encoding::kO200k);
    if (!loaded) {
      std::fprintf(stderr, "tool_call: %s\n", loaded.error().Format().c_str());
      return 2;
    }
    counter = std::move(*loaded);
  }

  auto judged = std::make_unique<cookgraph::Judged>();
  const cookgraph::pipeline::Outcome judging = cookgraph::pipeline::ReadAndJudge(
      cookgraph::Input{{args[0]}}, {},
      cookgraph::AnalysisOptions{.budget_ms = budget_ms, .gains = true}, "", *judged);
  if (!judging) {
    std::fprintf(stderr, "tool_call: %s\n", judging.failure().error.Format().c_str());
    return 2;
  }
  const cookgraph::AnalysisTools tools(*judged, args[0]);

  if (!batch) return Call(tools, args[1], args[2], *counter, max_tokens) ? 0 : 1;
  bool ok = true;
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t space = line.find(' ');
    const std::string name = line.substr(0, space);
    const std::string arguments = space == std::string::npos ? "" : line.substr(space + 1);
    ok = Call(tools, name, arguments, *counter, max_tokens) && ok;
  }
  return ok ? 0 : 1;
}
