#ifndef COOKGRAPH_ADVISOR_PACK_SCHEMA_H_
#define COOKGRAPH_ADVISOR_PACK_SCHEMA_H_

// What a knowledge pack may name: facts per scope, template placeholders, and
// the "did you mean" hint for a misspelt name. Shared by the pack parser and
// the rule evaluator; not part of the public interface.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/pack.h"

namespace cookgraph {

/// " (did you mean 'x'?)" for the closest of `known` when it is a plausible
/// typo of `name`, else "".
std::string DidYouMean(std::string_view name, std::span<const std::string_view> known);

/// The text placeholders of `scope` (not counting facts and {param:NAME}).
std::span<const std::string_view> TextPlaceholders(RuleScope scope);

/// Every placeholder name usable in `scope`: text placeholders, then facts.
std::vector<std::string> TemplatePlaceholders(RuleScope scope);

/// True when `{inner}` is a valid placeholder in `scope`: a text placeholder,
/// a fact (optionally `fact:%`), or `param:NAME`, `half:NAME`, `double:NAME`
/// (node scope).
bool TemplatePlaceholderKnown(RuleScope scope, std::string_view inner);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_PACK_SCHEMA_H_
