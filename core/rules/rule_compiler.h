// The rule compiler: rule syntax trees become the runner's rules (queries, guards, actions)
// over a vocabulary of operator symbols and attribute payloads.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "egraph/runner.h"
#include "egraph/vocabulary.h"
#include "ir/type.h"
#include "relations/relation.h"
#include "rules/rule_ast.h"
#include "support/expected.h"

namespace scalify::rules {

/// Where a compiled rule came from, for listings and proofs.
struct RuleOrigin {
  std::string name;  ///< `name-rev` for the reverse direction of a birewrite
  std::string file;
  SourcePos pos;
  const Rule* syntax = nullptr;  ///< into the RuleFile given to compile_rules (must outlive)
  bool reversed = false;         ///< the right-to-left half of a birewrite
};

struct CompiledRules {
  std::vector<egraph::Rule> rules;
  std::vector<RuleOrigin> origins;  ///< parallel to `rules`
};

/// How the compiled rules type the nodes their right-hand sides create.
using TypeOracle = std::function<egraph::TypeId(const egraph::ENode&)>;

/// What a type id of the e-graph means, for the attribute functions and guards that read an
/// operand's type: `(shape ?x)`, `(rank ?x)`, `(dim ?x I)`, `(element-type ?x)`. nullopt for an
/// unknown id (the rule then does not fire on that match).
using TypeLookup = std::function<std::optional<ir::Type>(egraph::TypeId)>;

/// Compiles every rule of `file`. Numbers in terms become `constant` leaves (as does
/// `(constant :value V)`, whose V a pattern may bind and a right-hand side compute), words
/// nullary operators, attributes payloads; a right-hand side's attribute may call an attribute
/// function (`:dimensions (compose ?p ?q)`, computed per match); guards must be built-in (see
/// rules/README.md). Errors (an unknown guard or function, a list in term position, …) point at
/// the rule text.
///
///   auto file = parse_rules(text, "math.rules");
///   egraph::Vocabulary vocab;
///   auto compiled = compile_rules(*file, vocab, [](const egraph::ENode&) { return 0u; });
///   egraph::run(g, compiled->rules, options);
/// Relation declarations go into `db` (required when the file declares any). `types` is needed
/// by rules that read operands' types (`(shape ?x)` …); without it such a rule is an error.
/// A compiled rule remembers what its attributes, attribute guards and computed attributes
/// conclude per combination of matched payloads and operand types (matches share them): use
/// it from one thread at a time, with the vocabulary and type ids it was compiled for.
Expected<CompiledRules> compile_rules(const RuleFile& file, egraph::Vocabulary& vocab,
                                      TypeOracle type_of, relations::Database* db = nullptr,
                                      TypeLookup types = {});

/// The names of the built-in guards: operand guards (not-zero, …) then attribute guards
/// (identity-permutation, equal, …).
std::vector<std::string> builtin_guard_names();

/// The names of the built-in attribute functions (compose, inverse, shape, …).
std::vector<std::string> builtin_attr_function_names();

/// Arithmetic constant folding for `+ - * /` (division by a non-zero constant), the analysis
/// egg's math example uses; a result that is not a number is not folded.
egraph::ConstantFolding arithmetic_folding(egraph::Vocabulary& vocab);

}  // namespace scalify::rules

namespace scalify::rules {

/// Adds a ground term (no variables) such as `(+ x (* 2 y))` to `g`; returns the id of the node
/// that denotes it (g.find() gives its class; with explanations, explain() takes the id).
///
///   ClassId c = *add_term(g, vocab, term, [](const egraph::ENode&) { return 0u; });
Expected<egraph::ClassId> add_term(egraph::EGraph& g, egraph::Vocabulary& vocab, const Term& term,
                                   const TypeOracle& type_of, std::string_view file = "");

}  // namespace scalify::rules
