// Fact proofs: why a fact holds, as a tree of the rules (or axioms) that derived it from the
// facts and matched terms before it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "egraph/runner.h"
#include "relations/relation.h"
#include "support/expected.h"
#include "support/json.h"

namespace scalify::relations {

/// One derivation: the fact, the rule (or axiom) that asserted it, the variables of the rule's
/// match, and the proofs of the facts its body joined (in the body's order).
struct FactProof {
  uint32_t relation = 0;
  std::vector<uint32_t> row;
  egraph::Reason reason;
  std::string by;               ///< the rule's name, or "axiom:N"
  std::vector<uint32_t> match;  ///< the rule's match row (empty for an axiom)
  std::vector<FactProof> premises;
};

/// The proof tree of fact `fact` of relation `relation`, read from the reasons the runner
/// recorded (`rules` and `matches` are the rules and the match log of the run that derived it).
///
///   auto proof = explain_fact(db, g, rules, report.matches, *db.find("Rep"), i);
///   std::cout << fact_proof_to_text(*proof, db);
Expected<FactProof> explain_fact(const Database& db, const egraph::EGraph& g,
                                 std::span<const egraph::Rule> rules,
                                 const egraph::MatchLog& matches, uint32_t relation, uint32_t fact,
                                 size_t max_depth = 1000);

/// The tree, one fact a line, premises indented under the fact they justify:
///
///   Rep(12, 40) by rep-exp
///     Rep(3, 7) by axiom:0
std::string fact_proof_to_text(const FactProof& proof, const Database& db);
json::Value fact_proof_to_json(const FactProof& proof, const Database& db);

}  // namespace scalify::relations
