// The numeric soundness check of Datalog rules over layout relations (`scalify rules --check`).
// A rule such as
//
//   rule all-gather-rep:
//     ?r = (all-gather ?x :dimensions [0]), Shard(?x, ?X, 0, tp) => Rep(?r, ?X)
//
// is instantiated on a simulated mesh axis of 2 to 4 ranks: random types and attribute values
// that make its body type-check, random reference values for the reference side of its facts,
// per-rank values that hold them in the facts' layouts (eval/mesh.h: Rep copies, Shard blocks,
// Partial random parts), the body's terms evaluated on every rank (collectives between the
// ranks) and the head's conclusions tested against the values: every fact must hold, every
// `?v = TERM` must equal ?v on every rank. A conclusion that does not hold is a counterexample.
//
// What the relations mean (DESIGN.md): Rep(x, X): x[r] = X on every rank; Shard(x, X, dim,
// axis): X is the concatenation of x[r] along dim; Partial(x, X, axis, op): X combines x[r] by
// op (sum, mean, max, min, product). A variable in the first column of a fact is a value of the
// distributed program (one value per rank); in the second, a reference value (one value). Terms
// compute within one side; the collectives (all-reduce, all-gather, reduce-scatter, all-to-all)
// on the distributed side.
#pragma once

#include "rules/rule_check.h"

namespace scalify::rules {

/// Checks one Datalog rule (`rule.kind == Rule::Kind::kRule`) of `file`. The verdict is
/// kPassed after `options.trials` distinct agreeing instances, kFailed with a counterexample,
/// or kNotInstantiated with the reason (a relation without a numeric meaning, a variable used
/// on both sides, a body never satisfied, …).
///
///   auto file = parse_rules(
///       "relation Shard(class, class, int, word)\nrelation Rep(class, class)\n"
///       "rule wrong: ?r = (all-gather ?x :dimensions [0]), Shard(?x, ?X, 1, tp)"
///       " => Rep(?r, ?X)", "w.rules");
///   check_datalog_rule(*file, file->rules[0]).verdict == Verdict::kFailed;
DirectionCheck check_datalog_rule(const RuleFile& file, const Rule& rule,
                                  const CheckOptions& options = {});

}  // namespace scalify::rules
