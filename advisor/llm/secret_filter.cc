#include "advisor/llm/secret_filter.h"

#include <algorithm>

#include "advisor/llm/chat_response.h"

namespace cookgraph {

std::string SecretFilter::Feed(std::string_view piece) {
  std::string text = std::move(held_);
  held_.clear();
  text += piece;
  if (secret_.empty()) return text;
  text = Redact(std::move(text), secret_);
  // The longest tail of `text` that the secret starts with: it may be
  // completed by the next piece.
  const std::string_view view(text);
  for (size_t k = std::min(view.size(), secret_.size() - 1); k > 0; --k) {
    if (view.ends_with(std::string_view(secret_).substr(0, k))) {
      held_.assign(view.substr(view.size() - k));
      text.resize(text.size() - k);
      break;
    }
  }
  return text;
}

std::string SecretFilter::Finish() {
  std::string rest = std::move(held_);
  held_.clear();
  return rest;
}

}  // namespace cookgraph
