// The independent proof checker: replays an exported proof (rules/proof.h) against the text of
// the rules it cites, on plain terms, without the e-graph that produced it.
#pragma once

#include <string_view>

#include "rules/rule_ast.h"
#include "support/expected.h"
#include "support/json.h"

namespace scalify::rules {

/// Checks every step of `proof`: the term after a step must be the term before it with one
/// subterm, at the stated position, rewritten by the stated rule (its two sides matched under
/// one substitution, in the stated direction, its guards re-evaluated on the terms) or folded
/// as arithmetic on constants (`constant-folding`); the first term must be `from` and the last
/// `to`. Returns the number of steps checked, or the first failure ("step 3 (comm-add): …").
///
///   auto rules = parse_rules(text, "math.rules");
///   auto ok = check_proof(*json::parse(proof_text, "p.json"), *rules);
///   if (!ok) std::cerr << ok.error().message;
///
/// Guards are judged on the terms alone: `not-zero` holds unless the term folds to 0,
/// `is-const` if it folds to a number, `is-sym` if it is a word (a nullary operator). The
/// engine judges them on e-classes, so a proof whose guard held only through an equality the
/// proof does not show is rejected (never accepted wrongly).
Expected<size_t> check_proof(const json::Value& proof, const RuleFile& rules,
                             std::string_view file = "<proof>");

}  // namespace scalify::rules
