// The lines of `ask`'s prompt (advisor/prompt.cc) that summarise a trace's
// timeline and a GStreamer recording's streaming threads. Not a public header.

#pragma once

#include <fmt/format.h>

#include <functional>
#include <string>
#include <string_view>

#include "advisor/prompt.h"

namespace cookgraph::prompt_internal {

// "a, b, c, +4 more" for at most `listed` names.
template <typename Range, typename NameOf>
std::string ListNames(const Range& items, size_t listed, std::string_view separator,
                      NameOf name_of) {
  std::string out;
  size_t i = 0;
  for (const auto& item : items) {
    if (i == listed) {
      out += fmt::format("{}+{} more", separator, items.size() - listed);
      break;
    }
    if (i > 0) out += separator;
    out += name_of(item);
    ++i;
  }
  return out;
}

// A node's id as the prompt writes it.
using IdOf = std::function<std::string(NodeIndex)>;

// A GStreamer recording's streaming threads and latency (model/gstreamer_threads.h):
// frame time there is the slowest thread's work per buffer.
std::string StreamingLines(const Streaming& st, const IdOf& id);

// A trace's timeline in compact form: the slowest step, the GPU breakdown,
// launch statistics, communication, memory and ranks (metrics/trace_summary.h).
std::string TraceLines(const TraceSummary& t, const IdOf& id);

}  // namespace cookgraph::prompt_internal
