#ifndef COOKGRAPH_ADVISOR_TOKENS_TOKEN_SHA1_H_
#define COOKGRAPH_ADVISOR_TOKENS_TOKEN_SHA1_H_

// SHA-1, for the names of tiktoken's cache files. Internal to advisor/.

#include <string>
#include <string_view>

namespace cookgraph {

/// SHA-1 of `data` as 40 lower-case hex digits: how tiktoken names a
/// downloaded file in its cache (the hash of the address). Not for security.
std::string Sha1Hex(std::string_view data);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_TOKENS_TOKEN_SHA1_H_
