// The numeric soundness check of rewrite rules (`scalify rules --check`): every rewrite, in each
// direction, is instantiated many times on random small tensors and random attribute values
// that satisfy its guards; both sides are written as HLO modules, read back (the HLO reader
// type-checks them) and evaluated by the reference interpreter on the same inputs; any
// difference is a counterexample. Datalog rules are checked on a simulated mesh
// (datalog_check.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rules/rule_ast.h"

namespace scalify::rules {

/// How hard and how strictly to check.
struct CheckOptions {
  uint64_t seed = 1;        ///< every rule direction draws from its own stream of this seed
  int trials = 50;          ///< distinct instances that must agree, per direction
  int max_attempts = 3000;  ///< sampled instances per direction, at most
  /// Agreement: |lhs - rhs| <= atol + rtol * |rhs| elementwise (eval::all_close). Both sides are
  /// evaluated in double precision, so a sound rule differs by double rounding (~1e-15) only;
  /// these are f32-sized margins (about 80 ulps at 1) for rules that hold in real arithmetic
  /// (reassociation), far below what a wrong rule gives on inputs in [-2, 2].
  double rtol = 1e-5;
  double atol = 1e-5;
};

enum class Verdict {
  kPassed,           ///< every trial agreed
  kFailed,           ///< a counterexample
  kNotInstantiated,  ///< no instance type-checked and evaluated (the reason says why)
};
const char* to_string(Verdict v);

/// One instance on which the two sides differ. For a Datalog rule: the operands are every
/// class variable with its value (one per rank on the distributed side), `lhs` the body, `rhs`
/// the conclusion that does not hold and `mismatch` why; types, values and HLO stay empty.
struct Counterexample {
  struct Operand {
    std::string name;   ///< "?x"
    std::string type;   ///< "f32[2,3]"
    std::string value;  ///< "{{1.25, -0.5, …}}"
  };
  std::vector<Operand> operands;
  std::vector<std::pair<std::string, std::string>> attributes;  ///< {"?p", "[1 0]"}
  std::string lhs, rhs;  ///< the sides with their attributes filled in
  std::string lhs_type, rhs_type;
  std::string lhs_value, rhs_value;  ///< empty when the types already differ
  std::string mismatch;  ///< "element [1,0]: 2 vs 3 (difference 1)", or the types that differ
  std::string lhs_hlo, rhs_hlo;  ///< the modules that were evaluated
};

/// The check of one direction of a rewrite.
struct DirectionCheck {
  std::string name;  ///< the rule's name, `NAME-rev` for a birewrite's right-to-left half
  Verdict verdict = Verdict::kNotInstantiated;
  int trials = 0;    ///< distinct instances on which both sides agreed
  int attempts = 0;  ///< instances sampled
  int rejected = 0;  ///< instances discarded: guard false, a side not type-checking, …
  std::string note;  ///< why not instantiated (the last reason an instance was discarded)
  std::optional<Counterexample> counterexample;
};

/// The check of one rule, or of an identity a declaration states: `comm add` is checked as
/// `rewrite add-commutes: (add ?a ?b) => (add ?b ?a)`, `ac add` as that and
/// `birewrite add-associates: (add (add ?a ?b) ?c) <=> (add ?a (add ?b ?c))` (both at the
/// declaration's position).
struct RuleCheck {
  Rule rule;
  std::vector<DirectionCheck> directions;  ///< one for a Datalog rule (named as the rule)
  Verdict verdict = Verdict::kPassed;      ///< the worst of the directions
};

/// The identities a `comm` or `ac` declaration of an operator states, as the rules
/// check_rules() checks: `OP-commutes`, and for `ac` `OP-associates` too.
std::vector<Rule> declared_identities(const AcDecl& d);

/// Checks every rule of `file` (already parsed and, for its operator and guard names,
/// compiled), then the identities its `comm` and `ac` declarations state. Deterministic: the
/// same options give the same instances.
///
///   auto file = parse_rules("rewrite drop: (transpose ?x :dimensions [1 0]) => ?x", "w.rules");
///   std::vector<RuleCheck> r = check_rules(*file);
///   r[0].verdict == Verdict::kFailed;
///   r[0].directions[0].counterexample->mismatch;
///   // "the sides have different types: f32[3,2] vs f32[2,3]" (or, for a square ?x, the first
///   // element that differs)
std::vector<RuleCheck> check_rules(const RuleFile& file, const CheckOptions& options = {});

}  // namespace scalify::rules
