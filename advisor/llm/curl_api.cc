#include "advisor/llm/curl_api.h"

#include "base/lazy_library.h"

namespace cookgraph {

const CurlApi& Curl() {
  // A static's initialisation runs once, also with threads; one that threw
  // (the library missing) is tried again at the next call.
  static const CurlApi api = [] {
    static const LazyLibrary library("libcurl.so.4", "libcurl4");
    CurlApi a{};
    library.Load(a.global_init, "curl_global_init");
    library.Load(a.easy_init, "curl_easy_init");
    library.Load(a.easy_setopt, "curl_easy_setopt");
    library.Load(a.easy_getinfo, "curl_easy_getinfo");
    library.Load(a.easy_cleanup, "curl_easy_cleanup");
    library.Load(a.easy_strerror, "curl_easy_strerror");
    library.Load(a.multi_init, "curl_multi_init");
    library.Load(a.multi_add_handle, "curl_multi_add_handle");
    library.Load(a.multi_perform, "curl_multi_perform");
    library.Load(a.multi_poll, "curl_multi_poll");
    library.Load(a.multi_info_read, "curl_multi_info_read");
    library.Load(a.multi_remove_handle, "curl_multi_remove_handle");
    library.Load(a.multi_cleanup, "curl_multi_cleanup");
    library.Load(a.slist_append, "curl_slist_append");
    library.Load(a.slist_free_all, "curl_slist_free_all");
    library.Load(a.url, "curl_url");
    library.Load(a.url_set, "curl_url_set");
    library.Load(a.url_get, "curl_url_get");
    library.Load(a.url_cleanup, "curl_url_cleanup");
    library.Load(a.free, "curl_free");
    library.Load(a.getdate, "curl_getdate");
    a.global_init(CURL_GLOBAL_DEFAULT);
    return a;
  }();
  return api;
}

}  // namespace cookgraph
