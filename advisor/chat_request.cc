#include "advisor/chat_request.h"

#include <nlohmann/json.hpp>

#include "adapters/text.h"

namespace cookgraph {

std::string RequestBody(const ChatRequest& request) {
  // ordered_json keeps insertion order, so the key order is the one written here.
  nlohmann::ordered_json body;
  body["model"] = request.model;
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const ChatMessage& m : request.messages) {
    nlohmann::ordered_json message;
    message["role"] = m.role;
    message["content"] = m.content;
    messages.push_back(std::move(message));
  }
  body["messages"] = std::move(messages);
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.max_output_tokens) {
    const std::string& field =
        request.max_tokens_field.empty() ? "max_completion_tokens" : request.max_tokens_field;
    body[field] = *request.max_output_tokens;
  }
  body["stream"] = request.stream;
  if (request.stream && request.include_usage) {
    body["stream_options"]["include_usage"] = true;
  }
  // nlohmann writes doubles in their shortest round-trip form (Grisu2).
  return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string ChatUrl(const Endpoint& endpoint) {
  std::string path = endpoint.base_url;
  std::string query;
  if (const size_t q = path.find('?'); q != std::string::npos) {
    query = path.substr(q + 1);
    path.resize(q);
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  // A common mistake: the full URL given as the base.
  if (!EndsWith(path, "/chat/completions")) path += "/chat/completions";
  if (endpoint.azure && !endpoint.api_version.empty() &&
      query.find("api-version=") == std::string::npos) {
    if (!query.empty()) query += '&';
    query += "api-version=" + endpoint.api_version;
  }
  return query.empty() ? path : path + '?' + query;
}

std::string UrlForMessages(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t host = scheme + 3;
  const size_t end = url.find_first_of("/?#", host);
  const size_t at = url.rfind('@', end == std::string::npos ? std::string::npos : end);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + "***" + url.substr(at);
}

}  // namespace cookgraph
