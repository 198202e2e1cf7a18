#include "rules/check_guards.h"

#include <algorithm>

namespace scalify::rules::check {

Expected<Guards> Guards::compile(const std::vector<Term>& guards, const RuleVars& vars,
                                 std::string_view file) {
  Guards out;
  const VarResolver resolve = [&vars](const std::string& name) { return vars.resolve(name); };
  for (const Term& g : guards) {
    if (is_attr_guard(g.name)) {
      auto e = compile_attr_guard(g, resolve, file);
      if (!e) return e.error();
      out.attr_guards_.push_back(std::move(*e));
      continue;
    }
    OperandGuard og{g.name, {}};
    for (const Term& a : g.args) {
      const auto ref = a.kind == Term::Kind::kVar ? vars.resolve(a.name) : std::nullopt;
      if (!ref || ref->kind != VarRef::Kind::kClass) {
        return Diagnostic{std::string(file), a.pos,
                          "guard '" + g.name + "' takes operand variables", ""};
      }
      og.vars.push_back(ref->index);
    }
    out.operand_guards_.push_back(std::move(og));
  }
  return out;
}

void Guards::mark_constants(Binding& b) const {
  for (const OperandGuard& g : operand_guards_) {
    if (g.name == "is-const") b.splat[g.vars[0]] = true;
  }
}

std::optional<std::string> Guards::operands_hold(const Binding& b) const {
  for (const OperandGuard& g : operand_guards_) {
    const bool two = g.vars.size() == 2;
    bool holds = true;
    if (g.name == "is-sym") {
      holds = !b.splat[g.vars[0]];
    } else if (g.name == "distinct" || g.name == "const-or-distinct-var") {
      holds = two && g.vars[0] != g.vars[1];
    }  // not-zero: random values are never 0; is-const: made so by sampling
    if (!holds) return "guard " + g.name + " does not hold";
  }
  return std::nullopt;
}

std::optional<std::string> Guards::attrs_hold(
    Binding& b, const std::function<std::optional<std::string>()>& retype) const {
  for (int round = 0; round < 3; ++round) {
    bool all = true, repaired = false;
    for (const AttrExpr& g : attr_guards_) {
      if (holds(g, BindingScope(b))) continue;
      all = false;
      repaired = repair(g, b) || repaired;
    }
    if (all) return std::nullopt;
    if (!repaired) break;
    if (auto why = retype()) return why;
  }
  for (const AttrExpr& g : attr_guards_) {
    if (!holds(g, BindingScope(b))) return "guard " + std::string(g.fn->usage) + " does not hold";
  }
  return std::nullopt;
}

bool Guards::repair(const AttrExpr& g, Binding& b) {
  auto var = [](const AttrExpr& e) {
    return e.kind == AttrExpr::Kind::kAttrVar ? std::optional(e.var) : std::nullopt;
  };
  const std::string_view name = g.fn->name;
  if (name == "equal") {
    for (int side = 0; side < 2; ++side) {
      const auto v = var(g.args[static_cast<size_t>(side)]);
      if (!v) continue;
      auto value = evaluate(g.args[static_cast<size_t>(1 - side)], BindingScope(b));
      if (!value) continue;
      b.attrs[*v] = std::move(*value);
      return true;
    }
    return false;
  }
  const auto v = var(g.args[0]);
  const auto* list = v && b.attrs[*v] ? std::get_if<std::vector<int64_t>>(&*b.attrs[*v]) : nullptr;
  if (!list) return false;
  std::vector<int64_t> fixed = *list;
  if (name == "identity-permutation") {
    for (size_t i = 0; i < fixed.size(); ++i) fixed[i] = static_cast<int64_t>(i);
  } else if (name == "ascending") {
    std::sort(fixed.begin(), fixed.end());
  } else {
    return false;
  }
  b.attrs[*v] = egraph::AttrValue(std::move(fixed));
  return true;
}

}  // namespace scalify::rules::check
