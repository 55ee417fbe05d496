#ifndef COOKGRAPH_WEB_CHARCONV_COMPAT_H_
#define COOKGRAPH_WEB_CHARCONV_COMPAT_H_

// The WebAssembly build (COOKGRAPH_WEB in CMakeLists.txt) includes this file
// before every source file: Debian 12's emscripten (3.1.6) comes with libc++
// 13, whose <charconv> has std::to_chars and std::from_chars for integers
// only. cookgraph writes its shortest numbers with std::to_chars(double)
// (writers/score_columns.cc) and parses some with std::from_chars(double)
// (adapters/json_tokenizer.cc, adapters/gstreamer/build.cc,
// advisor/pack_schema.cc); here they are, for double, with the results of
// libstdc++'s (the native build's) to the byte: web/charconv_compat.cc.
// Other standard libraries get nothing from this file.

#include <charconv>

namespace cookgraph::web_internal {

/// std::to_chars(first, last, value): the shortest text that reads back as
/// `value`, fixed or scientific, whichever is shorter (fixed on a tie).
std::to_chars_result ShortestToChars(char* first, char* last, double value);

/// std::from_chars(first, last, value) (chars_format::general): no leading
/// blank or '+', no hexadecimal; inf, infinity, nan, nan(...) in any case.
std::from_chars_result GeneralFromChars(const char* first, const char* last, double& value);

}  // namespace cookgraph::web_internal

#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 14000
namespace std {
inline to_chars_result to_chars(char* first, char* last, double value) {
  return cookgraph::web_internal::ShortestToChars(first, last, value);
}
}  // namespace std
#endif

// libc++ has the floating-point from_chars from LLVM 20 on.
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 200000
namespace std {
inline from_chars_result from_chars(const char* first, const char* last, double& value) {
  return cookgraph::web_internal::GeneralFromChars(first, last, value);
}
}  // namespace std
#endif

#endif  // COOKGRAPH_WEB_CHARCONV_COMPAT_H_
