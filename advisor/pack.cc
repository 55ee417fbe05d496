#include "advisor/pack.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "advisor/pack_schema.h"
#include "advisor/yaml_fields.h"

#ifndef COOKGRAPH_PACKS_DIR
#define COOKGRAPH_PACKS_DIR "advisor/packs"
#endif

namespace cookgraph {
namespace {

constexpr int kMaxExtendsDepth = 8;

class PackParser : public YamlFields {
 public:
  explicit PackParser(std::string file) : YamlFields(std::move(file)) {}

  Pattern ParsePattern(const YAML::Node& node, const std::string& text,
                       const std::string& where) const {
    Pattern p;
    p.text = text;
    if (text.rfind("re:", 0) == 0) {
      try {
        p.regex.emplace(text.substr(3), std::regex::ECMAScript | std::regex::icase);
      } catch (const std::regex_error& e) {
        Fail(node, where, "bad regex '" + text.substr(3) + "': " + e.what());
      }
    }
    return p;
  }

  std::vector<Pattern> Patterns(const YAML::Node& node, const std::string& where) const {
    std::vector<Pattern> out;
    for (const auto& text : TextList(node, where)) out.push_back(ParsePattern(node, text, where));
    return out;
  }

  NodeMatch ParseMatch(const YAML::Node& node, const std::string& where) const {
    if (!node.IsMap()) Fail(node, where, "expected a map with type, family and/or id");
    static constexpr std::array<std::string_view, 3> kKeys = {"type", "family", "id"};
    CheckKeys(node, kKeys, where);
    NodeMatch m;
    if (node["type"]) m.type = Patterns(node["type"], where + ".type");
    if (node["family"]) m.family = Patterns(node["family"], where + ".family");
    if (node["id"]) m.id = Patterns(node["id"], where + ".id");
    return m;
  }

  size_t FactIndex(const YAML::Node& at, RuleScope scope, const std::string& name,
                   const std::string& where) const {
    const auto facts = ScopeFacts(scope);
    for (size_t i = 0; i < facts.size(); ++i) {
      if (facts[i].name == name) return i;
    }
    std::vector<std::string_view> names;
    for (const auto& f : facts) names.push_back(f.name);
    Fail(at, where,
         "unknown fact '" + name + "' for scope " + std::string(RuleScopeName(scope)) +
             DidYouMean(name, names));
  }

  Condition ParseCondition(const YAML::Node& node, RuleScope scope,
                           const std::string& where) const {
    Condition c;
    if (node.IsSequence()) {
      c.kind = Condition::Kind::kAll;
      size_t i = 0;
      for (const auto& item : node) {
        c.children.push_back(ParseCondition(item, scope, where + "[" + std::to_string(i++) + "]"));
      }
      return c;
    }
    if (!node.IsMap()) Fail(node, where, "expected a condition: all, any, not, fact or param");
    if (node["all"] || node["any"]) {
      const bool all = static_cast<bool>(node["all"]);
      const YAML::Node list = node[all ? "all" : "any"];
      if (node.size() != 1) Fail(node, where, "all/any stands alone in its map");
      if (!list.IsSequence()) Fail(list, where, "all/any takes a list of conditions");
      c = ParseCondition(list, scope, where + (all ? ".all" : ".any"));
      c.kind = all ? Condition::Kind::kAll : Condition::Kind::kAny;
      return c;
    }
    if (node["not"]) {
      if (node.size() != 1) Fail(node, where, "not stands alone in its map");
      c.kind = Condition::Kind::kNot;
      c.children.push_back(ParseCondition(node["not"], scope, where + ".not"));
      return c;
    }
    static constexpr std::array<std::string_view, 11> kKeys = {
        "fact", "param", "gt", "ge", "lt", "le", "eq", "ne", "in", "matches", "is"};
    CheckKeys(node, kKeys, where);
    if (node["fact"] && node["param"])
      Fail(node, where, "a comparison has a fact or a param, not both");
    if (node["fact"]) {
      c.kind = Condition::Kind::kFact;
      c.fact = FactIndex(node["fact"], scope, Text(node["fact"], where), where);
    } else if (node["param"]) {
      if (scope != RuleScope::kNode) Fail(node, where, "param conditions need scope node");
      c.kind = Condition::Kind::kParam;
      c.param = Text(node["param"], where);
    } else {
      Fail(node, where, "expected all, any, not, fact or param");
    }
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      if (key == "fact" || key == "param") continue;
      Comparison cmp;
      const YAML::Node& v = kv.second;
      const std::string w = where + "." + key;
      if (key == "in") {
        cmp.op = Comparison::Op::kIn;
        if (!v.IsSequence()) Fail(v, w, "in takes a list");
        cmp.texts = TextList(v, w);
      } else if (key == "matches") {
        cmp.op = Comparison::Op::kMatches;
        cmp.texts = {Text(v, w)};
      } else if (key == "is") {
        cmp.op = Comparison::Op::kIs;
        cmp.number = Flag(v, w) ? 1.0 : 0.0;
      } else {
        static constexpr std::array<std::pair<std::string_view, Comparison::Op>, 6> kOps = {
            {{"gt", Comparison::Op::kGt},
             {"ge", Comparison::Op::kGe},
             {"lt", Comparison::Op::kLt},
             {"le", Comparison::Op::kLe},
             {"eq", Comparison::Op::kEq},
             {"ne", Comparison::Op::kNe}}};
        for (const auto& [name, op] : kOps) {
          if (name == key) cmp.op = op;
        }
        const bool text_ok = c.kind == Condition::Kind::kParam &&
                             (cmp.op == Comparison::Op::kEq || cmp.op == Comparison::Op::kNe);
        if (text_ok) {
          cmp.texts = {Text(v, w)};
          char* end = nullptr;
          const double d = std::strtod(cmp.texts[0].c_str(), &end);
          if (!cmp.texts[0].empty() && end == cmp.texts[0].c_str() + cmp.texts[0].size()) {
            cmp.number = d;
          }
        } else {
          cmp.number = Number(v, w);
        }
      }
      c.comparisons.push_back(std::move(cmp));
    }
    if (c.comparisons.empty())
      Fail(node, where, "no comparison (gt, ge, lt, le, eq, ne, in, matches, is)");
    return c;
  }

  void CheckTemplate(const YAML::Node& at, RuleScope scope, const std::string& text,
                     const std::string& where) const {
    for (size_t pos = text.find('{'); pos != std::string::npos; pos = text.find('{', pos + 1)) {
      const size_t close = text.find('}', pos);
      if (close == std::string::npos) Fail(at, where, "unclosed '{' in template");
      const std::string inner = text.substr(pos + 1, close - pos - 1);
      if (!TemplatePlaceholderKnown(scope, inner)) {
        std::vector<std::string> known = TemplatePlaceholders(scope);
        std::vector<std::string_view> views(known.begin(), known.end());
        const std::string name = inner.substr(0, inner.find(':'));
        Fail(at, where, "unknown placeholder '{" + inner + "}'" + DidYouMean(name, views));
      }
    }
  }

  Rule ParseRule(const YAML::Node& node, const std::string& where0) const {
    if (!node.IsMap()) Fail(node, where0, "a rule is a map");
    if (!node["id"]) Fail(node, where0, "rule has no id");
    Rule r;
    r.id = Text(node["id"], where0 + ".id");
    r.file = file();
    r.line = node.Mark().line + 1;
    const std::string where = "rule '" + r.id + "'";
    static constexpr std::array<std::string_view, 13> kKeys = {
        "id",       "severity", "scope", "title",   "suggestion",  "match", "when",
        "evidence", "order_by", "limit", "enabled", "description", "fix"};
    CheckKeys(node, kKeys, where);
    if (node["enabled"]) r.enabled = Flag(node["enabled"], where + ".enabled");
    if (!r.enabled) return r;  // a disabled rule needs nothing else
    for (const char* key : {"severity", "scope", "title", "suggestion"}) {
      if (!node[key]) Fail(node, where, std::string("rule has no ") + key);
    }
    const std::string severity = Text(node["severity"], where + ".severity");
    if (severity == "info") {
      r.severity = Severity::kInfo;
    } else if (severity == "warning") {
      r.severity = Severity::kWarning;
    } else if (severity == "critical") {
      r.severity = Severity::kCritical;
    } else {
      Fail(node["severity"], where,
           "bad severity '" + severity + "' (expected info, warning or critical)");
    }
    const std::string scope = Text(node["scope"], where + ".scope");
    bool found = false;
    for (RuleScope s :
         {RuleScope::kNode, RuleScope::kLoop, RuleScope::kCriticalPath, RuleScope::kFrames,
          RuleScope::kGpu, RuleScope::kThread}) {
      if (RuleScopeName(s) == scope) {
        r.scope = s;
        found = true;
      }
    }
    if (!found) {
      Fail(node["scope"], where,
           "bad scope '" + scope + "' (expected node, loop, critical_path, frames, gpu or thread)");
    }
    r.title = Text(node["title"], where + ".title");
    r.suggestion = Text(node["suggestion"], where + ".suggestion");
    CheckTemplate(node["title"], r.scope, r.title, where + ".title");
    CheckTemplate(node["suggestion"], r.scope, r.suggestion, where + ".suggestion");
    if (node["match"]) {
      if (r.scope != RuleScope::kNode) Fail(node["match"], where, "match needs scope node");
      r.match = ParseMatch(node["match"], where + ".match");
    }
    if (node["when"]) r.when = ParseCondition(node["when"], r.scope, where + ".when");
    if (node["evidence"]) {
      for (const auto& name : TextList(node["evidence"], where + ".evidence")) {
        r.evidence.push_back(FactIndex(node["evidence"], r.scope, name, where + ".evidence"));
      }
    }
    // Default: the scope's first fact (per_frame_ms; overrun_ms for frames).
    if (node["order_by"]) {
      r.order_by = FactIndex(node["order_by"], r.scope, Text(node["order_by"], where + ".order_by"),
                             where + ".order_by");
    }
    if (node["limit"]) {
      const double limit = Number(node["limit"], where + ".limit");
      // Bounded before the cast: a double past size_t's range (32 bits in the
      // WebAssembly build) does not convert.
      if (!(limit >= 1 && limit <= 1e9) || limit != std::floor(limit)) {
        Fail(node["limit"], where, "limit must be a whole number from 1 to 1000000000");
      }
      r.limit = static_cast<size_t>(limit);
    }
    if (node["fix"]) ParseFix(node["fix"], r, where + ".fix");
    return r;
  }

  // A rule's `fix` (docs/architecture.md#advice-ordered-by-impact): the
  // predicted factor of its subject's cook time, and the snippet.
  void ParseFix(const YAML::Node& node, Rule& r, const std::string& where) const {
    if (!node.IsMap()) Fail(node, where, "expected a map with factor and/or snippet");
    static constexpr std::array<std::string_view, 4> kKeys = {"factor", "snippet", "label",
                                                              "docs"};
    CheckKeys(node, kKeys, where);
    if (node["factor"]) {
      const double factor = Number(node["factor"], where + ".factor");
      if (!(factor >= 0 && factor < 1)) {
        Fail(node["factor"], where,
             "factor must be at least 0 (removed or cached) and below 1 (as measured)");
      }
      r.fix_factor = factor;
    }
    if (node["snippet"]) {
      r.snippet = Text(node["snippet"], where + ".snippet");
      CheckTemplate(node["snippet"], r.scope, r.snippet, where + ".snippet");
    }
    if (node["label"]) r.snippet_label = Text(node["label"], where + ".label");
    // The engine's documentation the snippet relies on (every built-in
    // snippet names its page: tests/advisor/pack_test.cc).
    if (node["docs"]) r.snippet_docs = Text(node["docs"], where + ".docs");
  }

  KnowledgePack Parse(std::string_view yaml, int depth) const {
    YAML::Node root = Load(yaml);
    if (!root.IsMap()) Fail(root, "", "a knowledge pack is a YAML map (engine, guidelines, rules)");
    static constexpr std::array<std::string_view, 8> kKeys = {
        "engine",     "extends", "guidelines",  "queue_types",
        "key_params", "rules",   "description", "snippet_label"};
    CheckKeys(root, kKeys, "");

    KnowledgePack base;
    if (root["extends"]) {
      base = LoadBase(root["extends"], depth);
    }
    KnowledgePack own;
    own.files.push_back(file());
    if (root["engine"]) own.engine = Text(root["engine"], "engine");
    if (root["guidelines"]) own.guidelines = Text(root["guidelines"], "guidelines");
    if (root["queue_types"]) own.queue_types = Patterns(root["queue_types"], "queue_types");
    if (root["snippet_label"]) own.snippet_label = Text(root["snippet_label"], "snippet_label");
    if (const YAML::Node kp = root["key_params"]) {
      if (!kp.IsSequence()) Fail(kp, "key_params", "expected a list");
      size_t i = 0;
      for (const auto& item : kp) {
        const std::string where = "key_params[" + std::to_string(i++) + "]";
        if (!item.IsMap() || !item["params"])
          Fail(item, where, "expected {type/family/id, params}");
        KeyParams k;
        YAML::Node match_part = YAML::Clone(item);
        match_part.remove("params");
        k.match = ParseMatch(match_part, where);
        k.params = TextList(item["params"], where + ".params");
        own.key_params.push_back(std::move(k));
      }
    }
    std::vector<Rule> rules;
    if (const YAML::Node list = root["rules"]) {
      if (!list.IsSequence()) Fail(list, "rules", "expected a list of rules");
      size_t i = 0;
      for (const auto& item : list) {
        Rule r = ParseRule(item, "rules[" + std::to_string(i++) + "]");
        for (const auto& other : rules) {
          if (other.id == r.id) {
            Fail(item, "rule '" + r.id + "'",
                 "duplicate rule id (first at line " + std::to_string(other.line) + ")");
          }
        }
        rules.push_back(std::move(r));
      }
    }
    return Merge(std::move(base), std::move(own), std::move(rules));
  }

 private:
  KnowledgePack LoadBase(const YAML::Node& node, int depth) const {
    if (depth >= kMaxExtendsDepth) Fail(node, "extends", "extends nests too deep (a cycle?)");
    const std::string name = Text(node, "extends");
    std::filesystem::path path;
    if (name.find('/') == std::string::npos && name.find(".yaml") == std::string::npos &&
        name.find(".yml") == std::string::npos) {
      path = std::filesystem::path(BuiltinPacksDir()) / (name + ".yaml");
    } else {
      path = std::filesystem::path(file()).parent_path() / name;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) Fail(node, "extends", "cannot read pack '" + path.string() + "'");
    std::stringstream buffer;
    buffer << in.rdbuf();
    return PackParser(path.string()).Parse(buffer.str(), depth + 1);
  }

  static KnowledgePack Merge(KnowledgePack base, KnowledgePack own, std::vector<Rule> rules) {
    KnowledgePack out;
    out.engine = own.engine.empty() ? base.engine : own.engine;
    out.guidelines = own.guidelines;
    if (!base.guidelines.empty()) {
      if (!out.guidelines.empty() && out.guidelines.back() != '\n') out.guidelines += '\n';
      if (!out.guidelines.empty()) out.guidelines += '\n';
      out.guidelines += base.guidelines;
    }
    out.queue_types = own.queue_types.empty() ? base.queue_types : own.queue_types;
    out.snippet_label = own.snippet_label.empty() ? base.snippet_label : own.snippet_label;
    out.key_params = std::move(own.key_params);
    for (auto& k : base.key_params) out.key_params.push_back(std::move(k));
    out.files = std::move(own.files);
    for (auto& f : base.files) out.files.push_back(std::move(f));
    out.rules = std::move(base.rules);
    for (auto& r : rules) {
      auto it = std::find_if(out.rules.begin(), out.rules.end(),
                             [&](const Rule& b) { return b.id == r.id; });
      if (it != out.rules.end()) {
        *it = std::move(r);
      } else {
        out.rules.push_back(std::move(r));
      }
    }
    std::erase_if(out.rules, [](const Rule& r) { return !r.enabled; });
    return out;
  }
};

bool GlobMatch(std::string_view glob, std::string_view text) {
  // Iterative glob with backtracking to the last '*'.
  size_t g = 0, t = 0, star = std::string_view::npos, mark = 0;
  auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  };
  while (t < text.size()) {
    if (g < glob.size() && (glob[g] == '?' || eq(glob[g], text[t]))) {
      ++g;
      ++t;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = t;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

bool AnyMatches(const std::vector<Pattern>& patterns, std::string_view value) {
  if (patterns.empty()) return true;
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const Pattern& p) { return PatternMatches(p, value); });
}

}  // namespace

bool PatternMatches(const Pattern& pattern, std::string_view value) {
  if (pattern.regex) return std::regex_search(value.begin(), value.end(), *pattern.regex);
  return GlobMatch(pattern.text, value);
}

bool NodeMatches(const NodeMatch& match, const Node& node) {
  return AnyMatches(match.type, node.type) && AnyMatches(match.family, node.family) &&
         AnyMatches(match.id, node.id);
}

bool IsQueue(const KnowledgePack& pack, const Node& node) {
  return std::any_of(pack.queue_types.begin(), pack.queue_types.end(), [&](const Pattern& p) {
    return PatternMatches(p, node.type) || PatternMatches(p, node.family);
  });
}

std::vector<std::string> KeyParamsFor(const KnowledgePack& pack, const Node& node) {
  std::vector<std::string> out;
  for (const auto& k : pack.key_params) {
    if (!NodeMatches(k.match, node)) continue;
    for (const auto& p : k.params) {
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
  }
  return out;
}

Result<KnowledgePack> ParsePack(std::string_view yaml, const std::string& file) {
  try {
    return PackParser(file).Parse(yaml, 0);
  } catch (const YamlFailure& failure) {
    return failure.error;
  } catch (const YAML::Exception& e) {
    return YamlExceptionError(e, file);
  }
}

Result<KnowledgePack> LoadPack(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    Error error;
    error.file = path;
    error.message = "cannot read knowledge pack (check the path)";
    return error;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParsePack(buffer.str(), path);
}

std::string_view PackNameForEngine(std::string_view engine) {
  std::string e(engine);
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
  if (e == "touchdesigner") return "touchdesigner";
  if (e == "gstreamer") return "gstreamer";
  if (e == "pytorch" || e == "tensorflow" || e == "onnxruntime" || e == "chrome-trace" ||
      e == "perfetto") {
    return "pytorch";
  }
  return "generic";
}

std::string BuiltinPacksDir() {
  if (const char* dir = std::getenv("COOKGRAPH_PACKS_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return COOKGRAPH_PACKS_DIR;
}

Result<KnowledgePack> BuiltinPack(std::string_view engine) {
  const std::string name(PackNameForEngine(engine));
  return LoadPack((std::filesystem::path(BuiltinPacksDir()) / (name + ".yaml")).string());
}

}  // namespace cookgraph
