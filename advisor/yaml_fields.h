#ifndef COOKGRAPH_ADVISOR_YAML_FIELDS_H_
#define COOKGRAPH_ADVISOR_YAML_FIELDS_H_

// Internal to advisor/: typed reading of the small YAML files cookgraph is
// configured with (knowledge packs, the config file) through yaml-cpp. A wrong
// value throws YamlFailure holding one Error with the file, line and column;
// the public entry points catch it and return the Error, so nothing throws
// past them.

#include <yaml-cpp/yaml.h>

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"

namespace cookgraph {

struct YamlFailure {
  Error error;
};

class YamlFields {
 public:
  explicit YamlFields(std::string file) : file_(std::move(file)) {}

  /// Parses `yaml`; a syntax error fails with its line and column.
  YAML::Node Load(std::string_view yaml) const;

  [[noreturn]] void Fail(const YAML::Node& at, const std::string& where,
                         const std::string& message) const;

  std::string Text(const YAML::Node& node, const std::string& where) const;
  /// A text or a list of texts.
  std::vector<std::string> TextList(const YAML::Node& node, const std::string& where) const;
  double Number(const YAML::Node& node, const std::string& where) const;
  /// true/yes/on or false/no/off, any case.
  bool Flag(const YAML::Node& node, const std::string& where) const;
  /// Refuses keys outside `known`, suggesting the closest one.
  void CheckKeys(const YAML::Node& map, std::span<const std::string_view> known,
                 const std::string& where) const;

  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

/// The Error of a yaml-cpp exception thrown while reading `file`.
Error YamlExceptionError(const YAML::Exception& e, const std::string& file);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_YAML_FIELDS_H_
