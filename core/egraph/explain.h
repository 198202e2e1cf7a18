// Explanations: why two terms of an e-graph are equal, as a flat sequence of rewrites from one
// to the other (egg's explanations), read off the proof forest of recorded unions.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/vocabulary.h"
#include "support/expected.h"

namespace scalify::egraph {

/// Terms as proofs show them: hash-consed nodes whose children are term ids.
class TermTable {
 public:
  uint32_t add(ENode node);
  const ENode& node(uint32_t term) const { return nodes_[term]; }
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<ENode> nodes_;
  std::unordered_map<ENode, uint32_t, ENodeHash> ids_;
};

/// One rewrite of a flat proof: the rule (or constant folding, an axiom, or a reordering of the
/// operands of an associative-commutative operator) applied at `position` (child indices from
/// the root), and the whole term after it.
struct ProofStep {
  enum class Kind : uint8_t { kRule, kConstant, kAxiom, kReorder };
  Kind kind = Kind::kRule;
  uint32_t rule = 0;      ///< kRule: the rule's index; kAxiom: its number
  bool backward = false;  ///< right to left (a rule), or unfolding a constant
  std::vector<uint32_t> position;
  uint32_t term = 0;
};

struct Explanation {
  TermTable terms;
  uint32_t start = 0;  ///< the first term; each step's `term` follows from the one before
  std::vector<ProofStep> steps;
};

/// Explains `a == b` for two node ids of an e-graph built with explanations on. Fails if they
/// are not equal, or if the proof would be deeper than `max_depth` nested congruences.
///
///   EGraph g(/*explanations=*/true);
///   … run rules …
///   auto why = explain(g, x, y);
///   for (const ProofStep& s : why->steps) print(s.rule, s.term);
Expected<Explanation> explain(const EGraph& g, ClassId a, ClassId b, size_t max_depth = 10000);

/// A term as text in the rule language: `(+ x (* 2 y))`; constants print as numbers.
std::string to_sexpr(const TermTable& terms, uint32_t term, const Vocabulary& vocab);

}  // namespace scalify::egraph
