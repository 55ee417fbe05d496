#include "adapters/json_text.h"

#include <cstdio>

namespace cookgraph {

void AppendJsonString(std::string& out, std::string_view s, bool yaml_safe) {
  out.push_back('"');
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out.append("\\\""); continue;
      case '\\': out.append("\\\\"); continue;
      case '\n': out.append("\\n"); continue;
      case '\r': out.append("\\r"); continue;
      case '\t': out.append("\\t"); continue;
      default: break;
    }
    unsigned code = 0;
    if (c < 0x20 || (yaml_safe && c == 0x7f)) {
      code = c;
    } else if (yaml_safe && c == 0xC2 && i + 1 < s.size() &&
               static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      code = static_cast<unsigned char>(s[++i]);  // U+0080..U+009F
    } else {
      out.push_back(static_cast<char>(c));
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\u%04x", code);
    out.append(escaped);
  }
  out.push_back('"');
}

}  // namespace cookgraph
