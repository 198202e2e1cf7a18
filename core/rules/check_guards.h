// The guards of a rule, as the numeric rule checker judges them on a sampled instance: operand
// guards (not-zero, is-const, …) on the instance's values, attribute guards on its attribute
// values, with a failing `(equal ?v EXPR)` (or `identity-permutation`, `ascending`) repaired by
// giving ?v the value that makes it hold. Shared by the rewrite and the Datalog checks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rules/attr_expr.h"
#include "rules/rule_ast.h"
#include "rules/tensor_term.h"
#include "support/expected.h"

namespace scalify::rules::check {

class Guards {
 public:
  /// Compiles `guards` against the rule's variables (operand guards take operand variables).
  ///
  ///   auto g = Guards::compile(rule.guards, vars, "r.rules");
  ///   g->mark_constants(binding);              // before sampling: is-const operands
  ///   if (auto why = g->operands_hold(binding)) reject(*why);
  static Expected<Guards> compile(const std::vector<Term>& guards, const RuleVars& vars,
                                  std::string_view file);

  /// Marks the operands of `(is-const ?x)` as holding one value everywhere.
  void mark_constants(Binding& b) const;

  /// Why an operand guard fails on the instance, or nullopt when all hold. Random values are
  /// never 0 (not-zero holds) and different variables hold independent values (distinct holds
  /// for different variables).
  std::optional<std::string> operands_hold(const Binding& b) const;

  /// Why an attribute guard fails, or nullopt when all hold. Failing guards are repaired where
  /// a variable can be given the value that makes them hold, then `retype` is called (it returns
  /// why the instance no longer types, or nullopt); up to three rounds.
  std::optional<std::string> attrs_hold(
      Binding& b, const std::function<std::optional<std::string>()>& retype) const;

 private:
  struct OperandGuard {
    std::string name;
    std::vector<uint32_t> vars;
  };
  static bool repair(const AttrExpr& g, Binding& b);

  std::vector<OperandGuard> operand_guards_;
  std::vector<AttrExpr> attr_guards_;
};

}  // namespace scalify::rules::check
