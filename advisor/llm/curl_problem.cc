#include "advisor/llm/curl_problem.h"

#include <fmt/format.h>

#include <cerrno>
#include <memory>

#include "advisor/llm/curl_api.h"

namespace cookgraph {
namespace {

/// libcurl's text for the failure: its error buffer, else the code's name.
std::string Detail(const CurlFailure& f) {
  return f.detail.empty() ? Curl().easy_strerror(f.code) : f.detail;
}

std::string ConnectFailure(const CurlFailure& f) {
  switch (f.os_errno) {
    case ECONNREFUSED:
      return "could not connect: connection refused (is the server running, and on this port?)";
    case ENETUNREACH:
    case EHOSTUNREACH:
      return "could not connect: no route to the host (is the network up? is a proxy needed?)";
    default:
      return fmt::format("could not connect ({})", Detail(f));
  }
}

std::string TlsFailure(const CurlFailure& f, const Endpoint& endpoint) {
  if (f.code == CURLE_PEER_FAILED_VERIFICATION) {
    if (endpoint.ca_bundle) {
      return fmt::format(
          "TLS: the server's certificate is not signed by a CA in {} (llm.ca_bundle): {}",
          *endpoint.ca_bundle, Detail(f));
    }
    return fmt::format(
        "TLS: the server's certificate is not trusted ({}); if a private CA signed it, set "
        "llm.ca_bundle to that CA's PEM file",
        Detail(f));
  }
  if (f.code == CURLE_SSL_CACERT_BADFILE) {
    return fmt::format("TLS: cannot use the CA file {} (llm.ca_bundle): {}",
                       endpoint.ca_bundle.value_or("?"), Detail(f));
  }
  // "wrong version number": what OpenSSL says when the server answers in plain HTTP.
  const bool plain_http = f.detail.find("wrong version number") != std::string::npos;
  return fmt::format(
      "TLS handshake failed ({}){}", Detail(f),
      plain_http ? "; the server may speak plain HTTP: try an http:// base URL" : "");
}

}  // namespace

bool TransientCurlError(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

std::string DescribeCurlFailure(const CurlFailure& f, const Endpoint& endpoint) {
  switch (f.code) {
    case CURLE_COULDNT_RESOLVE_HOST:
      return fmt::format(
          "could not resolve the host name {} (check the host in the base URL, and the "
          "network's DNS)",
          f.host);
    case CURLE_COULDNT_RESOLVE_PROXY:
      return fmt::format(
          "could not resolve the proxy's host name (check https_proxy, "
          "http_proxy and all_proxy): {}",
          Detail(f));
    case CURLE_COULDNT_CONNECT:
      return ConnectFailure(f);
    case CURLE_OPERATION_TIMEDOUT:
      // The idle timeout is told apart by the caller: this one is the connect
      // timeout, which covers name resolution too (libcurl's threaded resolver).
      if (f.detail.starts_with("Resolving timed out")) {
        return fmt::format(
            "could not resolve the host name {} within {} (llm.connect_timeout_s; check the "
            "network's DNS)",
            f.host, Seconds(endpoint.connect_timeout_s));
      }
      return fmt::format("could not connect within {} (llm.connect_timeout_s)",
                         Seconds(endpoint.connect_timeout_s));
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CACERT_BADFILE:
      return TlsFailure(f, endpoint);
    case CURLE_GOT_NOTHING:
      return "the server closed the connection without answering";
    case CURLE_PARTIAL_FILE:
      return "the server closed the connection before the response was complete";
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      if (f.os_errno == ECONNRESET) return "the server reset the connection";
      return fmt::format("the connection failed while {} ({})",
                         f.code == CURLE_RECV_ERROR ? "receiving" : "sending", Detail(f));
    default:
      return Detail(f);
  }
}

std::string DescribeStreamCut(const CurlFailure& f, const Endpoint& endpoint) {
  if (f.code == CURLE_OK) return ": the server ended the response without it";
  if (f.code == CURLE_PARTIAL_FILE) return ": the server closed the connection";
  if (f.code == CURLE_RECV_ERROR && f.os_errno == ECONNRESET) {
    return ": " + DescribeCurlFailure(f, endpoint);  // "the server reset the connection"
  }
  return " (" + DescribeCurlFailure(f, endpoint) + ")";
}

std::string Seconds(double s) { return fmt::format("{:g} s", s); }

std::string UrlHost(const std::string& url) {
  struct Deleter {
    void operator()(CURLU* u) const { Curl().url_cleanup(u); }
  };
  std::unique_ptr<CURLU, Deleter> handle(Curl().url());
  char* host = nullptr;
  if (!handle || Curl().url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK ||
      Curl().url_get(handle.get(), CURLUPART_HOST, &host, 0) != CURLUE_OK) {
    return "";
  }
  std::string result(host);
  Curl().free(host);
  return result;
}

}  // namespace cookgraph
