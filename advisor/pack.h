#ifndef COOKGRAPH_ADVISOR_PACK_H_
#define COOKGRAPH_ADVISOR_PACK_H_

// Knowledge packs (docs/architecture.md#knowledge-packs-and-findings): YAML
// files of an engine's guidelines, the parameters that matter per node type,
// and the rules that turn an Analysis into findings (advisor/rules.h). The
// format, its comparisons and placeholders: docs/formats.md#knowledge-packs.

#include <cstdint>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "advisor/findings.h"
#include "base/error.h"
#include "graph/network.h"

namespace cookgraph {

/// What a rule looks at: each node, each feedback loop, the critical path
/// once, the frames as a whole once, each rank's GPU time (traces only), or
/// each streaming thread (GStreamer only).
enum class RuleScope : uint8_t { kNode, kLoop, kCriticalPath, kFrames, kGpu, kThread };

/// "node", "loop", "critical_path", "frames", "gpu", "thread".
std::string_view RuleScopeName(RuleScope scope);

/// How a fact's value is written in a template: kMs with 3 decimals, kShare as
/// a percentage, kCount as an integer, kRatio with 2 decimals, kMb with 1
/// decimal, kFlag as "yes"/"no".
enum class FactUnit : uint8_t { kMs, kShare, kCount, kRatio, kMb, kFlag };

struct FactInfo {
  std::string_view name;
  FactUnit unit;
};

/// The facts a rule of `scope` can test, list as evidence and fill in. A
/// rule's Condition and evidence refer to facts by their position here.
std::span<const FactInfo> ScopeFacts(RuleScope scope);

/// A glob (case-insensitive, `*` and `?`) or, written `re:...`, a regex.
struct Pattern {
  std::string text;
  std::optional<std::regex> regex;  // set for `re:` patterns
};

bool PatternMatches(const Pattern& pattern, std::string_view value);

/// One comparison of a fact or parameter with the rule's value(s).
struct Comparison {
  enum class Op : uint8_t { kGt, kGe, kLt, kLe, kEq, kNe, kIn, kMatches, kIs };
  Op op = Op::kGt;
  std::optional<double> number;    // for gt..ne, and is (1 = true, 0 = false)
  std::vector<std::string> texts;  // for in, matches, and eq/ne with text
};

/// A condition tree: all/any/not of comparisons on facts or node parameters.
struct Condition {
  enum class Kind : uint8_t { kAll, kAny, kNot, kFact, kParam };
  Kind kind = Kind::kAll;  // kAll with no children is always true
  std::vector<Condition> children;
  size_t fact = 0;                      // kFact: index into ScopeFacts(scope)
  std::string param;                    // kParam: parameter name
  std::vector<Comparison> comparisons;  // kFact, kParam: all must hold
};

/// Which nodes a node-scope rule considers; an empty list accepts any value.
/// Each list is any-of; the three lists must all match.
struct NodeMatch {
  std::vector<Pattern> type, family, id;
};

struct Rule {
  std::string id;
  Severity severity = Severity::kWarning;
  RuleScope scope = RuleScope::kNode;
  std::string title;       // template
  std::string suggestion;  // template
  NodeMatch match;
  Condition when;
  std::vector<size_t> evidence;  // indices into ScopeFacts(scope)
  size_t order_by = 0;           // index into ScopeFacts(scope); default the first fact
  size_t limit = 5;              // findings per rule at most
  bool enabled = true;
  /// fix.factor: the subject's cook time after the fix, as a factor in
  /// [0, 1) (0: removed or cached); unset = only halving is predicted.
  std::optional<double> fix_factor;
  std::string snippet;  // fix.snippet: template of the fix in the engine's own code; "" = none
  std::string snippet_label;  // fix.label: introduces this rule's snippet; "" = the pack's
  std::string snippet_docs;   // fix.docs: the documentation the snippet relies on (URLs)
  std::string file;  // where the rule was defined, for messages
  int64_t line = 0;
};

/// The parameters that matter for nodes of some type/family.
struct KeyParams {
  NodeMatch match;
  std::vector<std::string> params;
};

struct KnowledgePack {
  std::string engine;
  std::string guidelines;            // prose, in our own words
  std::vector<Pattern> queue_types;  // types/families whose time is waiting (back-pressure)
  std::vector<KeyParams> key_params;
  std::vector<Rule> rules;         // enabled rules, in pack order
  std::string snippet_label;  // how a suggestion introduces a snippet ("Textport"); "" = "Code"
  std::vector<std::string> files;  // the pack file and the files it extends, own first
};

/// Parses a pack from `yaml`; `file` names it in errors and anchors relative
/// `extends` paths. Errors carry the file, line and column.
Result<KnowledgePack> ParsePack(std::string_view yaml, const std::string& file);

/// Reads and parses the pack at `path` (a user's own pack).
Result<KnowledgePack> LoadPack(const std::string& path);

/// The built-in pack name for an engine: touchdesigner, gstreamer, pytorch
/// (also tensorflow, onnxruntime, chrome-trace, perfetto), else generic.
std::string_view PackNameForEngine(std::string_view engine);

/// Where built-in packs live: $COOKGRAPH_PACKS_DIR when set, else the source
/// folder advisor/packs this library was built from.
std::string BuiltinPacksDir();

/// Loads the built-in pack for `engine` (see PackNameForEngine).
Result<KnowledgePack> BuiltinPack(std::string_view engine);

/// The key parameters of `node` under `pack`, in pack order, without repeats.
std::vector<std::string> KeyParamsFor(const KnowledgePack& pack, const Node& node);

/// True when `node`'s type or family matches the pack's queue_types.
bool IsQueue(const KnowledgePack& pack, const Node& node);

/// True when `node` passes `match`.
bool NodeMatches(const NodeMatch& match, const Node& node);

}  // namespace cookgraph

#endif  // COOKGRAPH_ADVISOR_PACK_H_
