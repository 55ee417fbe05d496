#ifndef COOKGRAPH_ADVISOR_LLM_CURL_PROBLEM_H_
#define COOKGRAPH_ADVISOR_LLM_CURL_PROBLEM_H_

// What a failed libcurl transfer means, in words a user can act on: the cause
// and what to check first, libcurl's own text only where it adds a detail.
// Internal to the advisor library.

#include <curl/curl.h>

#include <string>

#include "advisor/llm/chat_request.h"

namespace cookgraph {

/// The facts about a failed transfer that explain it.
struct CurlFailure {
  CURLcode code = CURLE_OK;
  long os_errno = 0;   // CURLINFO_OS_ERRNO; 0 = none
  std::string detail;  // libcurl's error buffer; "" = none
  std::string host;    // the URL's host name, for messages
};

/// Failures worth another attempt: the network, not the request.
bool TransientCurlError(CURLcode code);

/// Why the exchange failed, without the URL: "could not connect: connection
/// refused (is the server running, and on this port?)", "could not resolve
/// the host name x.invalid (...)", "TLS: the server's certificate is not
/// trusted (...)", ... `endpoint` gives the settings a message points to.
std::string DescribeCurlFailure(const CurlFailure& failure, const Endpoint& endpoint);

/// Why a stream ended before "[DONE]", to follow "stream ended before
/// [DONE]": ": the server ended the response without it" (CURLE_OK), ": the
/// server closed the connection", ": the server reset the connection", or
/// " (" + DescribeCurlFailure + ")".
std::string DescribeStreamCut(const CurlFailure& failure, const Endpoint& endpoint);

/// A setting in seconds as messages show it: "2.5 s".
std::string Seconds(double s);

/// The host of `url` ("" when it has none).
std::string UrlHost(const std::string& url);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CURL_PROBLEM_H_
