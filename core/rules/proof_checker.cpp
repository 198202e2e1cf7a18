#include "rules/proof_checker.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "rules/rule_parser.h"

namespace scalify::rules {
namespace {

using Subst = std::map<std::string, Term>;

/// Matches `pattern` against the ground term `t`, extending `s`.
bool match(const Term& pattern, const Term& t, Subst& s) {
  switch (pattern.kind) {
    case Term::Kind::kVar: {
      auto [it, inserted] = s.emplace(pattern.name, t);
      return inserted || same_term(it->second, t);
    }
    case Term::Kind::kApply: {
      if (t.kind != Term::Kind::kApply || t.name != pattern.name ||
          t.args.size() != pattern.args.size() || t.attrs.size() != pattern.attrs.size()) {
        return false;
      }
      for (size_t i = 0; i < t.args.size(); ++i) {
        if (!match(pattern.args[i], t.args[i], s)) return false;
      }
      for (const Term::Attr& pa : pattern.attrs) {
        auto it = std::find_if(t.attrs.begin(), t.attrs.end(),
                               [&](const Term::Attr& ta) { return ta.key == pa.key; });
        if (it == t.attrs.end()) return false;
        // Attribute variables live in their own namespace.
        if (pa.value.kind == Term::Kind::kVar) {
          Term key = pa.value;
          key.name = ":" + key.name;
          if (!match(key, it->value, s)) return false;
        } else if (!same_term(pa.value, it->value)) {
          return false;
        }
      }
      return true;
    }
    default:
      return same_term(pattern, t);
  }
}

/// The value of a term built from numbers with + - * / (a non-zero divisor), if it is one.
std::optional<double> fold(const Term& t) {
  if (t.kind == Term::Kind::kNumber) return t.number;
  if (t.kind != Term::Kind::kApply || t.args.size() != 2 || !t.attrs.empty()) return std::nullopt;
  const auto a = fold(t.args[0]), b = fold(t.args[1]);
  if (!a || !b) return std::nullopt;
  double r;
  if (t.name == "+") {
    r = *a + *b;
  } else if (t.name == "-") {
    r = *a - *b;
  } else if (t.name == "*") {
    r = *a * *b;
  } else if (t.name == "/" && *b != 0) {
    r = *a / *b;
  } else {
    return std::nullopt;
  }
  if (std::isnan(r)) return std::nullopt;
  return r == 0 ? 0.0 : r;
}

std::optional<std::string> check_guard(const Term& guard, const Subst& s) {
  auto arg = [&](size_t i) -> const Term* {
    if (i >= guard.args.size() || guard.args[i].kind != Term::Kind::kVar) return nullptr;
    auto it = s.find(guard.args[i].name);
    return it == s.end() ? nullptr : &it->second;
  };
  const Term* x = arg(0);
  if (!x) return "guard " + guard.name + " has no bound argument";
  auto is_sym = [](const Term& t) { return t.kind == Term::Kind::kWord; };
  bool holds = false;
  if (guard.name == "not-zero") {
    const auto v = fold(*x);
    holds = !v || *v != 0;
  } else if (guard.name == "is-const") {
    holds = fold(*x).has_value();
  } else if (guard.name == "is-sym") {
    holds = is_sym(*x);
  } else if (guard.name == "const-or-distinct-var" || guard.name == "distinct") {
    const Term* y = arg(1);
    if (!y) return "guard " + guard.name + " has no bound second argument";
    holds = !same_term(*x, *y) && (guard.name == "distinct" || fold(*x).has_value() || is_sym(*x));
  } else {
    return "unknown guard '" + guard.name + "'";
  }
  if (holds) return std::nullopt;
  return "its guard (" + guard.name + " …) does not hold";
}

/// `t` with nested applications of a declared `ac` operator spliced into their parent, as the
/// engine compiles rule sides: `(+ a (+ b c))` is `(+ a b c)`.
Term flatten_ac(const Term& t, const RuleFile& rules) {
  Term out = t;
  if (t.kind != Term::Kind::kApply) return out;
  const bool ac = std::any_of(rules.ac.begin(), rules.ac.end(),
                              [&](const AcDecl& d) { return d.op == t.name && d.associative; });
  out.args.clear();
  for (const Term* arg : ac_operands(t, ac)) out.args.push_back(flatten_ac(*arg, rules));
  return out;
}

/// Why `after` is not `before` with the operands of an `ac` or `comm` operator reordered.
std::optional<std::string> check_reorder(const RuleFile& rules, const Term& before,
                                         const Term& after) {
  if (before.kind != Term::Kind::kApply || after.kind != Term::Kind::kApply ||
      before.name != after.name || !same_attrs(before.attrs, after.attrs) ||
      before.args.size() != after.args.size()) {
    return "a reordering keeps the operator and its attributes";
  }
  if (std::none_of(rules.ac.begin(), rules.ac.end(),
                   [&](const AcDecl& d) { return d.op == before.name; })) {
    return "'" + before.name + "' is not declared 'ac' or 'comm' in the rules";
  }
  std::vector<bool> used(after.args.size(), false);
  for (const Term& a : before.args) {
    bool found = false;
    for (size_t j = 0; j < after.args.size() && !found; ++j) {
      if (!used[j] && same_term(a, after.args[j])) used[j] = found = true;
    }
    if (!found) return "the operands after are not a permutation of those before";
  }
  return std::nullopt;
}

/// Why `before` does not become `after` by `rule` (forward: lhs to rhs), or nothing if it does.
std::optional<std::string> check_rewrite(const RuleFile& rules, const Rule& rule, bool backward,
                                         const Term& before, const Term& after) {
  if (rule.kind == Rule::Kind::kRule) return "'" + rule.name + "' is not a rewrite";
  // A one-way rewrite states an equality too: a proof may use it right to left (an explanation
  // walks a union from either end).
  const Term from = flatten_ac(backward ? rule.rhs : rule.lhs, rules);
  const Term to = flatten_ac(backward ? rule.lhs : rule.rhs, rules);
  Subst s;
  if (!match(from, before, s)) return "the term before does not match the rule's side";
  if (!match(to, after, s)) return "the term after is not the rule's other side";
  for (const Term& guard : rule.guards) {
    if (auto why = check_guard(guard, s)) return why;
  }
  return std::nullopt;
}

std::optional<std::string> check_fold(bool backward, const Term& before, const Term& after) {
  const Term& folded = backward ? after : before;
  const Term& leaf = backward ? before : after;
  if (leaf.kind != Term::Kind::kNumber || folded.kind != Term::Kind::kApply) {
    return "a fold turns an operation on numbers into a number";
  }
  for (const Term& a : folded.args) {
    if (a.kind != Term::Kind::kNumber) return "a fold's operands must be numbers";
  }
  const auto value = fold(folded);
  if (!value || *value != leaf.number) return "the arithmetic does not give that number";
  return std::nullopt;
}

/// The subterm of `t` at `position`, or nullptr.
const Term* subterm(const Term& t, const json::Array& position) {
  const Term* at = &t;
  for (const json::Value& i : position) {
    if (!i.is_integer() || i.as_int() < 0 || at->kind != Term::Kind::kApply ||
        static_cast<size_t>(i.as_int()) >= at->args.size()) {
      return nullptr;
    }
    at = &at->args[static_cast<size_t>(i.as_int())];
  }
  return at;
}

/// Whether `a` and `b` are equal everywhere except below `position`.
bool same_outside(const Term& a, const Term& b, const json::Array& position, size_t depth = 0) {
  if (depth == position.size()) return true;
  if (a.kind != Term::Kind::kApply || b.kind != Term::Kind::kApply || a.name != b.name ||
      a.args.size() != b.args.size() || !same_attrs(a.attrs, b.attrs)) {
    return false;
  }
  const auto k = static_cast<size_t>(position[depth].as_int());
  for (size_t i = 0; i < a.args.size(); ++i) {
    if (i == k ? !same_outside(a.args[i], b.args[i], position, depth + 1)
               : !same_term(a.args[i], b.args[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace

Expected<size_t> check_proof(const json::Value& proof, const RuleFile& rules,
                             std::string_view file) {
  auto fail = [&](std::string message) -> Diagnostic {
    return Diagnostic{std::string(file), {}, std::move(message), ""};
  };
  auto text = [&](const json::Value* v) -> const std::string* {
    return v && v->is_string() ? &v->as_string() : nullptr;
  };
  if (!proof.is_object()) return fail("a proof is a JSON object");
  const std::string* format = text(proof.find("format"));
  if (!format || *format != "scalify-proof-1") return fail("not a scalify-proof-1 proof");
  const std::string* from_text = text(proof.find("from"));
  const std::string* to_text = text(proof.find("to"));
  const json::Value* steps = proof.find("steps");
  if (!from_text || !to_text || !steps || !steps->is_array()) {
    return fail("a proof needs \"from\", \"to\" and \"steps\"");
  }
  auto current = parse_term(*from_text, "from");
  if (!current) return fail("\"from\" is not a term: " + current.error().message);
  auto goal = parse_term(*to_text, "to");
  if (!goal) return fail("\"to\" is not a term: " + goal.error().message);

  size_t n = 0;
  for (const json::Value& step : steps->as_array()) {
    ++n;
    const std::string* by = step.is_object() ? text(step.find("by")) : nullptr;
    const std::string* direction = step.is_object() ? text(step.find("direction")) : nullptr;
    const std::string* term_text = step.is_object() ? text(step.find("term")) : nullptr;
    const json::Value* at = step.is_object() ? step.find("at") : nullptr;
    const std::string where = "step " + std::to_string(n) + (by ? " (" + *by + ")" : "");
    if (!by || !direction || !term_text || !at || !at->is_array() ||
        (*direction != "=>" && *direction != "<=")) {
      return fail(where + ": a step needs \"by\", \"direction\" (=> or <=), \"at\" and \"term\"");
    }
    auto next = parse_term(*term_text, "term");
    if (!next) return fail(where + ": not a term: " + next.error().message);
    const Term* before = subterm(*current, at->as_array());
    const Term* after = subterm(*next, at->as_array());
    if (!before || !after) return fail(where + ": no subterm at that position");
    if (!same_outside(*current, *next, at->as_array())) {
      return fail(where + ": the term changes outside the stated position");
    }
    const bool backward = *direction == "<=";
    std::optional<std::string> why;
    if (*by == "constant-folding") {
      why = check_fold(backward, *before, *after);
    } else if (*by == "ac") {
      why = check_reorder(rules, *before, *after);
    } else {
      auto rule = std::find_if(rules.rules.begin(), rules.rules.end(),
                               [&](const Rule& r) { return r.name == *by; });
      const bool reversed_name = rule == rules.rules.end() && by->ends_with("-rev");
      if (reversed_name) {
        const std::string base = by->substr(0, by->size() - 4);
        rule = std::find_if(rules.rules.begin(), rules.rules.end(), [&](const Rule& r) {
          return r.name == base && r.kind == Rule::Kind::kBirewrite;
        });
      }
      if (rule == rules.rules.end()) return fail(where + ": no rule of that name");
      // `name-rev` is the right-to-left half of a birewrite: flip the direction.
      const bool rule_backward = backward != reversed_name;
      why = check_rewrite(rules, *rule, rule_backward, *before, *after);
    }
    if (why) return fail(where + ": " + *why);
    current = std::move(next);
  }
  if (!same_term(*current, *goal)) return fail("the last step does not reach \"to\"");
  return n;
}

}  // namespace scalify::rules
