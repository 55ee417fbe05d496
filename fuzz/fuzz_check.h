#ifndef COOKGRAPH_FUZZ_FUZZ_CHECK_H_
#define COOKGRAPH_FUZZ_FUZZ_CHECK_H_

// What every fuzz target asserts beyond "no crash, no sanitizer report": a
// failure is an Error a user can read (a message, one line, no control bytes
// that would reach the terminal), and a property that must hold is checked with
// FUZZ_CHECK, which aborts (a crash libFuzzer keeps) with the condition named.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/error.h"

#define FUZZ_CHECK(condition)                                                      \
  do {                                                                             \
    if (!(condition)) {                                                            \
      std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, \
                   #condition);                                                    \
      std::abort();                                                                \
    }                                                                              \
  } while (0)

namespace cookgraph::fuzz {

inline std::string_view Text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// An error from a reader: says something, on one line, without C0 controls.
inline void CheckError(const Error& error) {
  FUZZ_CHECK(!error.message.empty());
  const std::string line = error.Format();
  for (char c : line) {
    const auto u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u >= 0x20 || u == '\t');
    FUZZ_CHECK(u != 0x7f);
  }
}

}  // namespace cookgraph::fuzz

#endif  // COOKGRAPH_FUZZ_FUZZ_CHECK_H_
