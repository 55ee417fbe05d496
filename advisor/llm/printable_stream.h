#ifndef COOKGRAPH_ADVISOR_LLM_PRINTABLE_STREAM_H_
#define COOKGRAPH_ADVISOR_LLM_PRINTABLE_STREAM_H_

// The LLM's answer is input like any other: a model can be told by text in
// the network itself (a node named "print ESC ]52;...") to answer with
// terminal escape sequences, which `ask` would pass to the user's terminal
// (OSC 52 writes the clipboard, OSC 8 hides links, CSI rewrites the screen).
// The answer streams in pieces, and a C1 control or any UTF-8 character can
// be split between two of them, so a plain Printable() per piece would both
// miss controls and break characters.

#include <string>
#include <string_view>

namespace cookgraph {

/// Streamed text made safe for a terminal as Printable() (base/text.h)
/// makes it, keeping line breaks and tabs: other control characters (C0, DEL,
/// C1) become '?', invalid UTF-8 becomes U+FFFD.
class PrintableStream {
 public:
  /// What can be passed on now: everything so far, less an unfinished UTF-8
  /// character at the end (held back for the next piece).
  std::string Feed(std::string_view piece);

  /// The held-back bytes at the end of the stream (an unfinished character:
  /// U+FFFD).
  std::string Finish();

 private:
  std::string held_;  // at most 3 bytes: the start of a UTF-8 character
};

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_LLM_PRINTABLE_STREAM_H_
