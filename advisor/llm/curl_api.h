#ifndef COOKGRAPH_ADVISOR_LLM_CURL_API_H_
#define COOKGRAPH_ADVISOR_LLM_CURL_API_H_

// The libcurl functions the client calls, from libcurl.so.4 opened on first
// use (base/lazy_library.h): only `ask` and the explorer's questions pay for
// loading libcurl and the TLS, Kerberos and LDAP libraries it brings.

#include <curl/curl.h>

namespace cookgraph {

struct CurlApi {
  decltype(&curl_global_init) global_init;
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_multi_init) multi_init;
  decltype(&curl_multi_add_handle) multi_add_handle;
  decltype(&curl_multi_perform) multi_perform;
  decltype(&curl_multi_poll) multi_poll;
  decltype(&curl_multi_info_read) multi_info_read;
  decltype(&curl_multi_remove_handle) multi_remove_handle;
  decltype(&curl_multi_cleanup) multi_cleanup;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
  decltype(&curl_url) url;
  decltype(&curl_url_set) url_set;
  decltype(&curl_url_get) url_get;
  decltype(&curl_url_cleanup) url_cleanup;
  decltype(&curl_free) free;
  decltype(&curl_getdate) getdate;
};

/// libcurl's functions; the first call loads the library and runs
/// curl_global_init once. Throws LibraryMissing when libcurl.so.4 is missing.
const CurlApi& Curl();

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_CURL_API_H_
