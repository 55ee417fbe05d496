// The conditions of a knowledge pack's rules (advisor/rule_subjects.h): a
// subject's facts and its node's params compared with a rule's `when`.

#include <algorithm>
#include <cstdlib>

#include "advisor/pack_schema.h"
#include "advisor/rule_subjects.h"
#include "base/text.h"

namespace cookgraph::rules_internal {

std::optional<double> ParseNumber(std::string_view s) {
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

namespace {

bool CompareNumber(Comparison::Op op, double a, double b) {
  switch (op) {
    case Comparison::Op::kGt:
      return a > b;
    case Comparison::Op::kGe:
      return a >= b;
    case Comparison::Op::kLt:
      return a < b;
    case Comparison::Op::kLe:
      return a <= b;
    case Comparison::Op::kEq:
      return a == b;
    case Comparison::Op::kNe:
      return a != b;
    default:
      return false;
  }
}

bool CompareFact(const Comparison& cmp, double value) {
  switch (cmp.op) {
    case Comparison::Op::kIs:
      return (value != 0) == (*cmp.number != 0);
    case Comparison::Op::kIn:
      return std::any_of(cmp.texts.begin(), cmp.texts.end(), [&](const std::string& t) {
        const auto n = ParseNumber(t);
        return n && *n == value;
      });
    case Comparison::Op::kMatches:
      return false;
    default:
      return CompareNumber(cmp.op, value, *cmp.number);
  }
}

bool CompareParam(const Comparison& cmp, const std::string& value) {
  const auto number = ParseNumber(value);
  switch (cmp.op) {
    case Comparison::Op::kIn:
      return std::any_of(cmp.texts.begin(), cmp.texts.end(),
                         [&](const std::string& t) { return AsciiLower(t) == AsciiLower(value); });
    case Comparison::Op::kMatches:
      return PatternMatches(Pattern{cmp.texts[0], std::nullopt}, value);
    case Comparison::Op::kIs: {
      const std::string v = AsciiLower(value);
      const bool on = v == "on" || v == "true" || v == "1" || v == "yes";
      return on == (*cmp.number != 0);
    }
    case Comparison::Op::kEq:
    case Comparison::Op::kNe:
      if (!cmp.texts.empty() && !(cmp.number && number)) {
        return (AsciiLower(cmp.texts[0]) == AsciiLower(value)) == (cmp.op == Comparison::Op::kEq);
      }
      [[fallthrough]];
    default:
      return number && cmp.number && CompareNumber(cmp.op, *number, *cmp.number);
  }
}

}  // namespace

bool Holds(const Condition& c, const Subject& s) {
  switch (c.kind) {
    case Condition::Kind::kAll:
      return std::all_of(c.children.begin(), c.children.end(),
                         [&](const Condition& k) { return Holds(k, s); });
    case Condition::Kind::kAny:
      return std::any_of(c.children.begin(), c.children.end(),
                         [&](const Condition& k) { return Holds(k, s); });
    case Condition::Kind::kNot:
      return !Holds(c.children[0], s);
    case Condition::Kind::kFact: {
      const auto& v = s.facts[c.fact];
      if (!v) return false;
      return std::all_of(c.comparisons.begin(), c.comparisons.end(),
                         [&](const Comparison& cmp) { return CompareFact(cmp, *v); });
    }
    case Condition::Kind::kParam: {
      const std::string* v = s.node ? FindParam(*s.node, c.param) : nullptr;
      if (v == nullptr) return false;
      return std::all_of(c.comparisons.begin(), c.comparisons.end(),
                         [&](const Comparison& cmp) { return CompareParam(cmp, *v); });
    }
  }
  return false;
}

}  // namespace cookgraph::rules_internal
