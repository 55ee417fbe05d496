// Fuzz target: the server-sent-events parser. The first byte picks how the
// rest is cut into reads; the events must be the same whatever the cuts, as
// they are when the network splits a stream anywhere.
#include <vector>

#include "advisor/llm/sse.h"
#include "fuzz/fuzz_check.h"

namespace {

struct Seen {
  std::vector<cookgraph::SseEvent> events;
  int64_t comments = 0;
  bool partial = false;
};

Seen Parse(std::string_view bytes, size_t piece) {
  cookgraph::SseParser parser;
  Seen seen;
  auto keep = [&seen](const cookgraph::SseEvent& e) { seen.events.push_back(e); };
  for (size_t at = 0; at < bytes.size(); at += piece) parser.Feed(bytes.substr(at, piece), keep);
  seen.comments = parser.comments();
  seen.partial = parser.has_partial_event();
  return seen;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view bytes = cookgraph::fuzz::Text(data + 1, size - 1);
  const size_t piece = data[0] % 13 + 1;
  const Seen whole = Parse(bytes, bytes.size() + 1);
  const Seen cut = Parse(bytes, piece);
  FUZZ_CHECK(whole.events.size() == cut.events.size());
  for (size_t i = 0; i < whole.events.size(); ++i) {
    FUZZ_CHECK(whole.events[i].event == cut.events[i].event);
    FUZZ_CHECK(whole.events[i].data == cut.events[i].data);
    FUZZ_CHECK(whole.events[i].id == cut.events[i].id);
  }
  FUZZ_CHECK(whole.comments == cut.comments);
  FUZZ_CHECK(whole.partial == cut.partial);
  return 0;
}
