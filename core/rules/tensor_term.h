// Rule sides as tensor computations, for the numeric rule checker: a side compiled against the
// rule's variables, and its instances typed as HLO would type them (the conventions of
// rules/README.md, "Tensor rules": `:shape` on reshape and broadcast, numbers as scalars that
// elementwise ops broadcast, `:to_apply add` on reduce, …).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "egraph/vocabulary.h"
#include "ir/type.h"
#include "rules/attr_expr.h"
#include "rules/rule_ast.h"
#include "support/expected.h"

namespace scalify::rules::check {

/// The variables of a rewrite: operands (tensors, `?x` in operand position) and attribute
/// values (`:dimensions ?p`), each numbered in order of first appearance.
struct RuleVars {
  std::vector<std::string> operands;
  std::vector<std::string> attrs;
  std::optional<VarRef> resolve(const std::string& name) const;
};

/// One node of a compiled side.
///   ?x                          kOperand (var: its index in RuleVars::operands)
///   2.5, (constant :value ?c)   kNumber  (value: a literal, a variable or a computed value)
///   (transpose ?x :dimensions ?p)  kApply (op, args, attrs in written order)
struct TNode {
  enum class Kind : uint8_t { kOperand, kNumber, kApply };
  Kind kind = Kind::kApply;
  uint32_t var = 0;
  AttrExpr value;
  std::string op;
  std::vector<TNode> args;
  std::vector<std::pair<std::string, AttrExpr>> attrs;
  SourcePos pos;
};

/// Compiles one side, adding its variables to `vars` (call it on the left-hand side first).
/// `ac_ops` are the file's associative-commutative operators, which may take more than two
/// operands. Errors point at the term: a word (nullary operator) or string in operand position,
/// a variable used both as an operand and as an attribute.
Expected<TNode> compile_side(const Term& side, RuleVars& vars,
                             const std::vector<std::string>& ac_ops, std::string_view file);

/// The values a sampled instance gives the rule's variables.
struct Binding {
  std::vector<std::optional<ir::Type>> types;           ///< per operand variable
  std::vector<std::optional<egraph::AttrValue>> attrs;  ///< per attribute variable
  std::vector<bool> splat;  ///< per operand variable: one value everywhere (`is-const`)

  explicit Binding(const RuleVars& vars)
      : types(vars.operands.size()), attrs(vars.attrs.size()), splat(vars.operands.size()) {}
};

/// The scope attribute expressions see in an instance.
class BindingScope final : public AttrScope {
 public:
  explicit BindingScope(const Binding& b) : b_(b) {}
  const egraph::AttrValue* attr(uint32_t var) const override {
    return var < b_.attrs.size() && b_.attrs[var] ? &*b_.attrs[var] : nullptr;
  }
  std::optional<ir::Type> type(uint32_t var) const override {
    return var < b_.types.size() ? b_.types[var] : std::nullopt;
  }

 private:
  const Binding& b_;
};

/// A node of an instance with its HLO type and evaluated attributes.
struct Typed {
  const TNode* node = nullptr;
  ir::Type type;
  egraph::Attrs attrs;  ///< in written order
  double number = 0;    ///< kNumber
  std::vector<Typed> args;
};

/// Why an instance does not type-check.
struct TypeFailure {
  std::string why;
  /// A computed attribute has no value for this instance (the inverse of a non-permutation,
  /// …): the compiled rule would not fire, rather than build an ill-typed term.
  bool undefined = false;
};

/// Types an instance of `side` bottom-up, as HLO's shape inference would; the reason when it
/// does not type-check (an unbound variable, a permutation of the wrong length, operands of
/// different shapes, an operator or attribute the checker does not know, …).
///
///   // side (transpose ?x :dimensions [1 0]), ?x : f32[2,3]
///   std::get<Typed>(type_side(side, b)).type.to_string() == "f32[3,2]"
std::variant<Typed, TypeFailure> type_side(const TNode& side, const Binding& b);

/// The HLO type of `op` applied to operands of the given types (nullopt: a number, a scalar
/// constant that an elementwise op broadcasts) with evaluated attributes: what the e-graph's
/// type oracle gives a node a rule creates.
///
///   type_application("transpose", {f32[2,3]}, {{"dimensions", [1 0]}}) -> f32[3,2]
std::variant<ir::Type, TypeFailure> type_application(std::string_view op,
                                                     std::span<const std::optional<ir::Type>> args,
                                                     const egraph::Attrs& attrs);

/// The HLO operators the checker knows, with their attributes, for messages and the README.
bool known_operator(std::string_view op);

/// An instance written back as rule-language text with concrete attributes: for counterexamples.
///   "(transpose ?x :dimensions [1 0])"
std::string to_string(const Typed& t, const RuleVars& vars);

}  // namespace scalify::rules::check
