// Attribute expressions: what a rule computes from the attributes and operand types of a match.
// A right-hand side's attribute may be a call of a built-in attribute function
// (`:dimensions (compose ?p ?q)`), and a guard may test attribute values
// (`if (identity-permutation ?p)`, `if (equal ?l (shape ?a))`). The rule compiler evaluates them
// on e-graph matches, the numeric rule checker on sampled instances; both use this file, so the
// two always agree on what a function means. The functions are listed in rules/README.md.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "egraph/vocabulary.h"
#include "ir/type.h"
#include "rules/rule_ast.h"
#include "support/expected.h"

namespace scalify::rules {

struct AttrFunction;

/// A compiled attribute expression:
///
///   [1 0]  2  f32                      kLiteral
///   ?p                                 kAttrVar   (an attribute variable, by index)
///   ?x (only as (shape ?x), …)         kClassVar  (an operand variable, whose type is read)
///   (compose ?p ?q)                    kCall
struct AttrExpr {
  enum class Kind : uint8_t { kLiteral, kAttrVar, kClassVar, kCall };
  Kind kind = Kind::kLiteral;
  egraph::AttrValue literal;
  uint32_t var = 0;                  ///< kAttrVar, kClassVar
  const AttrFunction* fn = nullptr;  ///< kCall
  std::vector<AttrExpr> args;        ///< kCall
  SourcePos pos;

  /// True if evaluating it reads an operand's type ((shape ?x), (rank ?x), …).
  bool uses_types() const;
};

/// What an expression reads from one match (or one sampled instance of a rule).
class AttrScope {
 public:
  virtual ~AttrScope() = default;
  /// The value of attribute variable `var`, or nullptr if it has none.
  virtual const egraph::AttrValue* attr(uint32_t var) const = 0;
  /// The type of operand variable `var`, or nullopt if unknown.
  virtual std::optional<ir::Type> type(uint32_t var) const = 0;
};

/// A built-in attribute function or attribute guard.
struct AttrFunction {
  std::string_view name;
  int min_args = 0, max_args = 0;  ///< max_args -1: any number
  bool guard = false;              ///< a guard: yields 1 (holds) or 0
  bool reads_type = false;         ///< the first argument is an operand variable
  std::string_view usage;          ///< "(compose P Q)"
  std::string_view doc;            ///< one line, for rules/README.md and `scalify rules`
  /// The result, or nullopt when the function does not apply to these arguments (an index out
  /// of range, a list that is not a permutation, …): then the rule does not fire. `type` is the
  /// first argument's type when reads_type (and the values are the other arguments).
  std::optional<egraph::AttrValue> (*eval)(const ir::Type* type,
                                           std::span<const egraph::AttrValue> args) = nullptr;
};

/// Every built-in attribute function and guard, in the order rules/README.md lists them.
std::span<const AttrFunction> attr_functions();
/// The function or guard called `name`, or nullptr.
const AttrFunction* find_attr_function(std::string_view name);

/// How a variable name in an expression resolves: an attribute variable or an operand variable
/// (by index), or nullopt if the name is not bound.
struct VarRef {
  enum class Kind : uint8_t { kAttr, kClass };
  Kind kind = Kind::kAttr;
  uint32_t index = 0;
};
using VarResolver = std::function<std::optional<VarRef>(const std::string& name)>;

/// Compiles an attribute value written in a rule: a literal, a bound attribute variable, or a
/// call of an attribute function (not a guard). Errors point at the offending part.
///
///   // resolve: p -> attr 0, q -> attr 1
///   auto e = compile_attr_expr(*parse_term("(compose ?p ?q)", "r"), resolve, "r.rules");
///   // evaluated with p = [1 2 0], q = [1 0 2]: [2 1 0]
Expected<AttrExpr> compile_attr_expr(const Term& t, const VarResolver& resolve,
                                     std::string_view file);

/// Compiles a guard that tests attribute values, such as `(identity-permutation ?p)` or
/// `(equal ?l (shape ?a))`; the result is a kCall of a guard function.
Expected<AttrExpr> compile_attr_guard(const Term& guard, const VarResolver& resolve,
                                      std::string_view file);

/// True if `name` is a built-in attribute guard (not an operand guard such as not-zero).
bool is_attr_guard(std::string_view name);

/// Evaluates `e`; nullopt when a variable has no value, a type is unknown or a function does
/// not apply.
///
///   evaluate(compose_p_q, scope) == AttrValue(std::vector<int64_t>{2, 1, 0})
std::optional<egraph::AttrValue> evaluate(const AttrExpr& e, const AttrScope& scope);

/// True if the guard `g` (from compile_attr_guard) holds.
bool holds(const AttrExpr& g, const AttrScope& scope);

/// Equality of attribute values as guards see it: numbers compare by value (2 equals 2.0),
/// lists element by element, words as text.
bool attr_equal(const egraph::AttrValue& a, const egraph::AttrValue& b);

}  // namespace scalify::rules
