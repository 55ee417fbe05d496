#ifndef COOKGRAPH_WEB_CALL_H_
#define COOKGRAPH_WEB_CALL_H_

// What every method of the page's module (web/cookgraph_web.cc) answers
// with: the CLI's exit code, its standard output and its error and warning
// lines, as JSON; and the checks of a request's options.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"

namespace cookgraph::web {

using json = nlohmann::json;

// The CLI's exit codes (cli/command.h).
constexpr int kExitOk = 0;
constexpr int kExitInput = 2;  // usage or input error
constexpr int kExitInternal = 1;

// An option the request got wrong: the page shows it as the CLI shows a bad flag.
struct BadOption {
  std::string message;
};

struct Reply {
  int exit = kExitOk;
  std::string text;
  std::vector<std::string> errors;    // Error::Format() lines
  std::vector<std::string> warnings;  // "FILE: message"

  void Fail(const Error& e, int code) {
    errors.push_back(e.Format());
    if (exit == kExitOk || code == kExitInternal) exit = code;
  }
  void Warn(const std::string& file, const std::string& message) {
    warnings.push_back(file.empty() ? message : file + ": " + message);
  }
  std::string Json() const {
    return json{{"exit", exit}, {"text", text}, {"errors", errors}, {"warnings", warnings}}
        .dump(-1, ' ', false, json::error_handler_t::replace);
  }
};

/// options[key] as T; nullopt when absent or null; BadOption when of another type.
template <typename T>
std::optional<T> Option(const json& options, const char* key) {
  const auto it = options.find(key);
  if (it == options.end() || it->is_null()) return std::nullopt;
  try {
    return it->get<T>();
  } catch (const json::exception&) {
    throw BadOption{std::string(key) + ": not the expected type"};
  }
}

}  // namespace cookgraph::web

#endif  // COOKGRAPH_WEB_CALL_H_
