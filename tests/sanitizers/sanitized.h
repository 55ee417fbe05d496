#ifndef COOKGRAPH_TESTS_SANITIZERS_SANITIZED_H_
#define COOKGRAPH_TESTS_SANITIZERS_SANITIZED_H_

// Whether the test binary runs under a sanitizer (scripts/test-sanitizers.sh),
// for the few tests that repeat one check thousands of times: there a
// sanitizer needs only some of the rounds to see what it looks for, and every
// round costs it 3 (AddressSanitizer) to 30 (ThreadSanitizer, per thread
// started) times more. The normal build runs them all.

namespace cookgraph::testing {

#if defined(__SANITIZE_THREAD__)
inline constexpr bool kThreadSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
#else
inline constexpr bool kThreadSanitizer = false;
#endif

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace cookgraph::testing

#endif  // COOKGRAPH_TESTS_SANITIZERS_SANITIZED_H_
