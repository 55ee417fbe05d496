#include "advisor/llm/sse.h"

namespace cookgraph {

void SseParser::Feed(std::string_view bytes, const Callback& on_event) {
  for (char c : bytes) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      skip_lf_ = c == '\r';
      Line(on_event);
      line_.clear();
      continue;
    }
    line_ += c;
    // The byte-order mark can only be recognised once its three bytes are in.
    if (!bom_checked_ && line_.size() == 3) {
      bom_checked_ = true;
      if (line_ == "\xEF\xBB\xBF") line_.clear();
    }
  }
}

void SseParser::Line(const Callback& on_event) {
  bom_checked_ = true;
  if (line_.empty()) {  // a blank line ends the event
    if (has_data_) {
      event_.data.pop_back();  // the '\n' after the last data line
      on_event(event_);
    }
    event_ = SseEvent{.id = event_.id};  // the last event id persists, as in browsers
    has_data_ = false;
    return;
  }
  if (line_[0] == ':') {
    ++comments_;
    return;
  }
  const size_t colon = line_.find(':');
  const std::string_view line(line_);
  const std::string_view field = line.substr(0, colon);
  std::string_view value;
  if (colon != std::string_view::npos) {
    value = line.substr(colon + 1);
    if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    event_.data.append(value);
    event_.data += '\n';
    has_data_ = true;
  } else if (field == "event") {
    event_.event = value;
  } else if (field == "id") {
    if (value.find('\0') == std::string_view::npos) event_.id = value;
  }
}

}  // namespace cookgraph
