#ifndef COOKGRAPH_ADVISOR_LLM_SECRET_FILTER_H_
#define COOKGRAPH_ADVISOR_LLM_SECRET_FILTER_H_

// The API key must reach no output (docs/architecture.md#settings), also when an endpoint
// echoes it inside the answer itself (a proxy that reflects headers, a server
// that quotes the request). Answers stream in pieces, and a key can arrive
// split across two of them, so the filter holds back a tail that could be the
// start of the key until the next piece shows whether it is.

#include <string>
#include <string_view>

namespace cookgraph {

/// Passes streamed text on with every occurrence of a secret replaced by
/// "[redacted]" (as Redact() in chat_response.h does to whole texts).
class SecretFilter {
 public:
  /// An empty `secret` passes everything on unchanged.
  explicit SecretFilter(std::string secret) : secret_(std::move(secret)) {}

  /// The text that can be passed on now: everything so far, redacted, less a
  /// tail that is a proper prefix of the secret (held back).
  std::string Feed(std::string_view piece);

  /// The held-back tail, at the end of a complete stream (it was not the
  /// secret). A stream cut inside it may have been cut inside the secret:
  /// drop the tail then.
  std::string Finish();

 private:
  std::string secret_;
  std::string held_;  // at most secret_.size() - 1 bytes
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_SECRET_FILTER_H_
