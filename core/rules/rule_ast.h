// The syntax tree of a rule file (`rules/*.rules`), as the parser produces it. It knows nothing
// of e-graphs: rule_compiler turns it into patterns and actions. The language is documented in
// rules/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/diagnostic.h"

namespace scalify::rules {

/// A term, a guard call or an attribute value, in s-expression syntax:
///
///   ?x                         kVar      (name "x")
///   0  -1  2.5                 kNumber
///   x  add  f32                kWord     (a nullary operator in term position; a word value
///                                         in attribute position)
///   [1 0 2]                    kList     (integers, for dimension lists)
///   "text"                     kString
///   (transpose ?x :dimensions [1 0])
///                              kApply    (name "transpose", args {?x},
///                                         attrs {{"dimensions", [1 0]}})
struct Term {
  enum class Kind { kVar, kNumber, kWord, kList, kString, kApply };
  struct Attr;

  Kind kind = Kind::kWord;
  std::string name;           ///< kVar (without `?`), kWord, kString (unquoted), kApply (op)
  double number = 0;          ///< kNumber
  bool is_integer = false;    ///< kNumber written without `.`/exponent and in int64 range
  int64_t integer = 0;        ///< kNumber when is_integer
  std::vector<int64_t> list;  ///< kList
  std::vector<Term> args;     ///< kApply: operands, in order
  std::vector<Attr> attrs;    ///< kApply: `:key value` pairs, in order written
  SourcePos pos;              ///< where the term starts
};

/// `:key value` inside an application; the value is any term (literal, ?var, or a call such as
/// `(compose ?p ?q)` that a head evaluates).
struct Term::Attr {
  std::string key;
  Term value;
  SourcePos pos;
};

/// `Shard(?x, ?X, 2, tp)`: a relation name and its arguments (kVar, kNumber with is_integer,
/// kWord, or kWord "_" for "any").
struct Atom {
  std::string relation;
  std::vector<Term> args;
  SourcePos pos;
};

/// One item of a rule body (before `=>`) or head (after it).
///   body:  `?r = (all-reduce ?x)`   kBind     match the term; ?r names the class it matched
///          `(exp ?x)`               kTerm     match the term anywhere
///          `Partial(?x, ?X, ?a, sum)` kAtom   a fact that must hold
///   head:  `?r = (add ?a ?b)`       kBind     add the term and union it with ?r
///          `(add ?a ?b)`            kTerm     add the term
///          `Rep(?r, ?X)`            kAtom     assert the fact
struct Item {
  enum class Kind { kBind, kTerm, kAtom };
  Kind kind = Kind::kTerm;
  std::string var;  ///< kBind: the bound variable (without `?`)
  Term term;        ///< kBind, kTerm
  Atom atom;        ///< kAtom
  SourcePos pos;
};

/// `relation Shard(class, class, int, word)`: a relation's name and column kinds.
struct RelationDecl {
  enum class Column { kClass, kInt, kWord };
  std::string name;
  std::vector<Column> columns;
  SourcePos pos;
};

/// One named rule.
///   rewrite NAME: LHS => RHS [if GUARD]…          kRewrite (lhs, rhs, guards)
///   birewrite NAME: LHS <=> RHS [if GUARD]…       kBirewrite (both directions; guards must hold
///                                                  for the variables of both sides)
///   rule NAME: ITEM, ITEM… [if GUARD]… => ITEM, ITEM…
///                                                  kRule (body, guards, head)
/// A guard is a call term such as `(not-zero ?x)` or `(divisible (dim ?x 0) ?n)`.
struct Rule {
  enum class Kind { kRewrite, kBirewrite, kRule };
  Kind kind = Kind::kRewrite;
  std::string name;
  Term lhs, rhs;
  std::vector<Item> body, head;
  std::vector<Term> guards;
  SourcePos pos;  ///< the keyword's position
};

/// `ac add multiply maximum`: operators that are associative and commutative. The e-graph
/// keeps their applications in a canonical n-ary form (nested applications flattened, operands
/// sorted) instead of rewriting with assoc/comm rules. `comm add`: commutative only; operands
/// sorted, applications stay binary (associativity, if wanted, is a rule).
struct AcDecl {
  std::string op;
  SourcePos pos;
  bool associative = true;  ///< `ac`; false for `comm`
};

/// A parsed rule file: its declarations in order.
struct RuleFile {
  std::string path;  ///< as given to the parser, for messages
  std::vector<RelationDecl> relations;
  std::vector<AcDecl> ac;
  std::vector<Rule> rules;
};

/// Whether two terms are written alike: the same kinds, names, numbers and lists, the same
/// operands in order and the same attributes in any order (a payload sorts them); positions
/// are ignored.
///
///   same_term(*parse_term("(f ?x :a 1 :b 2)", ""), *parse_term("(f ?x :b 2 :a 1)", ""));  // true
bool same_term(const Term& a, const Term& b);
/// The attribute half of same_term: the same keys, each with a same_term value.
bool same_attrs(const std::vector<Term::Attr>& a, const std::vector<Term::Attr>& b);

/// The operands of `t`, with nested applications of the same operator and attributes spliced
/// in when `ac` (its operator is associative-commutative): `(+ a (+ b c))` has a, b, c.
std::vector<const Term*> ac_operands(const Term& t, bool ac);

}  // namespace scalify::rules
