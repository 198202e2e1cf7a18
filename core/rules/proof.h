// Proofs as people and other tools read them: an explanation of the e-graph, with rule names,
// as flat text (one step a line) and as JSON (the format `scalify proof verify` re-checks).
#pragma once

#include <span>
#include <string>

#include "egraph/explain.h"
#include "egraph/vocabulary.h"
#include "rules/rule_compiler.h"
#include "support/json.h"

namespace scalify::rules {

/// The name a proof step gives its justification: the rule's name, `constant-folding`, or
/// `axiom:N`.
std::string step_name(const egraph::ProofStep& step, std::span<const RuleOrigin> origins);

/// One line for the first term, then one per step, egg-style:
///
///   (+ a 0)
///   => zero-add at []: a
std::string proof_to_text(const egraph::Explanation& proof, const egraph::Vocabulary& vocab,
                          std::span<const RuleOrigin> origins);

/// The proof as JSON:
///   {"format": "scalify-proof-1", "rules": RULES, "from": TERM, "to": TERM,
///    "steps": [{"by": "comm-add", "direction": "=>", "at": [0, 1], "term": TERM}, …]}
/// Terms are rule-language text; `rules` names the rule set the steps cite.
json::Value proof_to_json(const egraph::Explanation& proof, const egraph::Vocabulary& vocab,
                          std::span<const RuleOrigin> origins, std::string_view rules);

}  // namespace scalify::rules
