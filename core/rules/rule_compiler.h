// The rule compiler: rule syntax trees become the runner's rules (queries, guards, actions)
// over a vocabulary of operator symbols and attribute payloads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "egraph/runner.h"
#include "egraph/vocabulary.h"
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

/// Compiles every rule of `file`. Numbers in terms become `constant` leaves, words nullary
/// operators, attributes payloads; guards must be built-in (see rules/README.md). Errors
/// (an unknown guard, a list in term position, …) point at the rule text.
///
///   auto file = parse_rules(text, "math.rules");
///   egraph::Vocabulary vocab;
///   auto compiled = compile_rules(*file, vocab, [](const egraph::ENode&) { return 0u; });
///   egraph::run(g, compiled->rules, options);
/// Relation declarations go into `db` (required when the file declares any).
Expected<CompiledRules> compile_rules(const RuleFile& file, egraph::Vocabulary& vocab,
                                      TypeOracle type_of, relations::Database* db = nullptr);

/// The names of the built-in guards.
std::vector<std::string> builtin_guard_names();

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
