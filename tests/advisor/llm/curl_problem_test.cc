// The words for libcurl failures that the loopback tests cannot cause: a
// resolver that times out, a plain-HTTP server behind an https URL, a CA
// bundle that does not trust the server. The others are checked end to end
// in chat_faults_test.cc.

#include "advisor/llm/curl_problem.h"

#include <gtest/gtest.h>

#include <cerrno>

namespace cookgraph {
namespace {

TEST(CurlProblem, ATimeoutWhileResolvingNamesTheHostAndTheSetting) {
  const Endpoint endpoint{.connect_timeout_s = 2};
  EXPECT_EQ(DescribeCurlFailure({.code = CURLE_OPERATION_TIMEDOUT,
                                 .detail = "Resolving timed out after 2000 milliseconds",
                                 .host = "llm.example"},
                                endpoint),
            "could not resolve the host name llm.example within 2 s (llm.connect_timeout_s; "
            "check the network's DNS)");
  EXPECT_EQ(DescribeCurlFailure({.code = CURLE_OPERATION_TIMEDOUT,
                                 .detail = "Failed to connect to llm.example port 443 after 2001 "
                                           "ms: Timeout was reached",
                                 .host = "llm.example"},
                                endpoint),
            "could not connect within 2 s (llm.connect_timeout_s)");
}

TEST(CurlProblem, TlsFailuresSayWhatToCheck) {
  const CurlFailure plain_http{.code = CURLE_SSL_CONNECT_ERROR,
                               .detail = "error:0A00010B:SSL routines::wrong version number"};
  EXPECT_EQ(DescribeCurlFailure(plain_http, {}),
            "TLS handshake failed (error:0A00010B:SSL routines::wrong version number); the server "
            "may speak plain HTTP: try an http:// base URL");
  const CurlFailure untrusted{.code = CURLE_PEER_FAILED_VERIFICATION,
                              .detail =
                                  "SSL certificate problem: unable to get local issuer "
                                  "certificate"};
  EXPECT_EQ(DescribeCurlFailure(untrusted, {.ca_bundle = "/etc/corp.pem"}),
            "TLS: the server's certificate is not signed by a CA in /etc/corp.pem "
            "(llm.ca_bundle): SSL certificate problem: unable to get local issuer certificate");
}

TEST(CurlProblem, ConnectionErrorsAreToldApartByTheirErrno) {
  EXPECT_EQ(DescribeCurlFailure({.code = CURLE_COULDNT_CONNECT, .os_errno = EHOSTUNREACH}, {}),
            "could not connect: no route to the host (is the network up? is a proxy needed?)");
  EXPECT_EQ(DescribeCurlFailure({.code = CURLE_RECV_ERROR,
                                 .os_errno = ETIMEDOUT,
                                 .detail = "Recv failure: Connection timed out"},
                                {}),
            "the connection failed while receiving (Recv failure: Connection timed out)");
  EXPECT_EQ(DescribeStreamCut({.code = CURLE_OK}, {}),
            ": the server ended the response without it");
}

TEST(CurlProblem, UrlHostTakesTheHostOfAUrl) {
  EXPECT_EQ(UrlHost("https://user:pw@api.example.com:8443/v1/chat/completions?x=1"),
            "api.example.com");
  EXPECT_EQ(UrlHost("http://[::1]:8080/v1"), "[::1]");
  EXPECT_EQ(UrlHost("not a url"), "");
}

}  // namespace
}  // namespace cookgraph
