#ifndef COOKGRAPH_ADVISOR_PACK_H_
#define COOKGRAPH_ADVISOR_PACK_H_

// Knowledge packs (docs/architecture.md#knowledge-packs-and-findings): YAML files holding an
// engine's optimisation guidelines, the parameters that matter per node type, and the rules that
// turn an Analysis into findings (advisor/rules.h). Packs are data: a new rule
// needs no C++ change, and a user can load a pack of their own.
//
// The format, in short (advisor/packs/generic.yaml is the worked example):
//
//   engine: touchdesigner
//   extends: generic            # a built-in pack name, or a path relative to this file
//   guidelines: |               # prose, shown to the LLM and in reports
//     ...
//   queue_types: ["*queue*"]    # node types/families whose time is waiting, not work
//   key_params:
//     - {family: TOP, params: [resolutionw, resolutionh, format]}
//   rules:
//     - id: heavy-top           # unique; a rule with a base pack's id replaces it
//       severity: warning       # info | warning | critical
//       scope: node             # node | loop | critical_path | frames | gpu | thread
//       match: {family: TOP, type: ["*TOP"], id: "/project1/*"}   # node scope only
//       when:                   # a list means all:
//         all:
//           - {fact: per_frame_ms, ge: 0.25}
//           - any: [{param: resolutionw, ge: 3840}, {param: format, in: [rgba32float]}]
//           - not: {fact: dead, is: true}
//       evidence: [per_frame_ms, share]   # the numbers a finding lists
//       order_by: per_frame_ms  # which candidates win when more than `limit` match
//       limit: 5
//       enabled: true           # `enabled: false` (with only an id) drops a base rule
//       title: "{node} costs {per_frame_ms} ms per frame ({share:%})"
//       suggestion: "..."
//       fix:                    # optional: the fix's predicted gain and its code
//         factor: 0.25          # the subject's cook time after the fix (0: removed or cached)
//         snippet: "op('{node}').par.cookalways = False"
//         docs: https://derivative.ca/UserGuide/Script_CHOP   # the page the snippet relies on
//   snippet_label: Textport     # how a suggestion introduces a snippet
//
// Comparisons: gt, ge, lt, le, eq, ne (numbers; eq/ne also compare text for
// params), in (a list; text, case-insensitive), matches (a glob), is (true or
// false, for flags). A fact or param without a value (a node without GPU
// samples, a missing param) makes its comparison false. Patterns are
// case-insensitive globs (`*`, `?`), or ECMAScript regexes when written `re:...`.
//
// Placeholders in title and suggestion: any fact of the rule's scope ({share}
// and {x:%} as percent, *_ms with 3 decimals), {param:NAME} and
// {param:NAME|TEXT} (TEXT where the snapshot does not give NAME: GStreamer's
// dumps give only properties set away from their defaults), {param:A;B} (the
// first of A, B the node has: PyTorch's input_dims, ONNX Runtime's
// input_type_shape), and per scope:
// node: {node} {type} {family} {downstream}; loop: {loop_nodes} {loop_kind}
// {costliest}; critical_path: {path_nodes} {first} {last} {costliest}
// {path_window} ("per frame", or a trace's "in step 8") {path_of} ("of the
// mean frame", "of the step's 161.000 ms": what {share} is a share of);
// frames: {worst_nodes}; thread: {thread} ("theoraenc0 thread (queue0 → … →
// oggmux0)"), {thread_name} ("theoraenc0 thread"), {element} {elements}; every scope:
// {engine} {budget_ms}, and {frame} / {frames}: the engine's word for a frame
// and its plural ("step" for a trace, "buffer" for GStreamer; SnapshotInfo::
// frame_word). Node scope also has {caps_in} and {caps_out} (the
// GStreamer caps into and out of the node, or "n/a"), {name} (the id's last
// path segment), {factory} (the type without a "Gst" prefix, lower case: the
// gst-launch-1.0 element name), and {half:NAME} and {double:NAME}: a numeric
// parameter halved or doubled (an integer stays one).
//
// Predicted gains (docs/architecture.md#advice-ordered-by-impact): evaluated
// with a what-if model (metrics/whatif.h), each finding states what halving
// its subject saves (node scope: the node, or for a queue the node it waits
// for; loop: the loop's nodes; critical_path: its costliest node; frames:
// the nodes that spike; thread: its costliest element) and, with
// `fix.factor`, what the fix saves. A snippet names only parameters the
// snapshot gives: one that needs a missing parameter is left out, and the
// suggestion says which.
//
// Merging (`extends`): the base's rules come first; a rule whose id the pack
// also defines is replaced in place; new rules are appended; disabled rules are
// then removed. Guidelines and key_params are the pack's own followed by the
// base's. Every built-in engine pack extends `generic`, so the generic rules
// apply to every engine unless an engine pack overrides or disables them.

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
