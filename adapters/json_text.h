#ifndef COOKGRAPH_ADAPTERS_JSON_TEXT_H_
#define COOKGRAPH_ADAPTERS_JSON_TEXT_H_

#include <string>
#include <string_view>

namespace cookgraph {

/// Appends `s` as a double-quoted JSON string. With `yaml_safe` the characters
/// YAML refuses unescaped (DEL, C1 controls) are escaped too, so the same text
/// is a valid YAML double-quoted scalar. `s` must be valid UTF-8.
void AppendJsonString(std::string& out, std::string_view s, bool yaml_safe = false);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADAPTERS_JSON_TEXT_H_
