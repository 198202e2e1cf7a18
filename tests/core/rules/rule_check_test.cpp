// The numeric rule checker: sound rules pass, wrong ones fail with a counterexample, rules it
// cannot instantiate say why, and it is deterministic. Datalog rules: datalog_check_test.cpp.
#include "rules/rule_check.h"

#include <catch2/catch.hpp>

#include "rules/rule_parser.h"

using namespace scalify;
using rules::Verdict;

namespace {

struct Checked {
  rules::RuleFile file;
  std::vector<rules::RuleCheck> checks;
};

Checked check(const std::string& text, rules::CheckOptions options = {}) {
  auto parsed = rules::parse_rules(text, "t.rules");
  if (!parsed) FAIL(parsed.error().format());
  Checked c{std::move(*parsed), {}};
  c.checks = rules::check_rules(c.file, options);
  return c;
}

/// The verdict of the only rule of `text`.
rules::RuleCheck one(const std::string& text) {
  Checked c = check(text);
  REQUIRE(c.checks.size() == 1);
  return c.checks[0];
}

const rules::Counterexample& counterexample(const rules::RuleCheck& r) {
  for (const rules::DirectionCheck& d : r.directions) {
    if (d.counterexample) return *d.counterexample;
  }
  FAIL("no counterexample");
  throw;
}

}  // namespace

TEST_CASE("rule check: sound rules pass in every direction", "[rules]") {
  const Checked c = check(
      "rewrite tt: (transpose (transpose ?x :dimensions ?p) :dimensions ?q)\n"
      "  => (transpose ?x :dimensions (compose ?p ?q))\n"
      "birewrite t-add: (transpose (add ?a ?b) :dimensions ?p)\n"
      "  <=> (add (transpose ?a :dimensions ?p) (transpose ?b :dimensions ?p))\n"
      "rewrite dot-t: (dot (transpose ?a :dimensions [1 0]) ?b :lhs_contracting_dims [1]\n"
      "                    :rhs_contracting_dims [0])\n"
      "  => (dot ?a ?b :lhs_contracting_dims [0] :rhs_contracting_dims [0])\n"
      "rewrite mul-one: (multiply ?x 1) => ?x\n");
  REQUIRE(c.checks.size() == 4);
  for (const rules::RuleCheck& r : c.checks) {
    INFO(r.rule.name);
    CHECK(r.verdict == Verdict::kPassed);
    for (const rules::DirectionCheck& d : r.directions) CHECK(d.trials == 50);
  }
  CHECK(c.checks[1].directions.size() == 2);
  CHECK(c.checks[1].directions[1].name == "t-add-rev");
}

TEST_CASE("rule check: a dropped transpose fails with a counterexample", "[rules]") {
  const rules::RuleCheck r = one("rewrite drop: (transpose ?x :dimensions [1 0]) => ?x");
  REQUIRE(r.verdict == Verdict::kFailed);
  const rules::Counterexample& c = counterexample(r);
  REQUIRE(c.operands.size() == 1);
  CHECK(c.operands[0].name == "?x");
  CHECK(c.lhs == "(transpose ?x :dimensions [1 0])");
  CHECK(c.rhs == "?x");
  CHECK_FALSE(c.lhs_value.empty());
  CHECK_THAT(c.lhs_hlo, Catch::Contains("transpose(%x), dimensions={1,0}"));
  // Either the shapes differ, or (for a square ?x) an element does.
  CHECK_THAT(c.mismatch, Catch::Contains("different types") || Catch::Contains("element ["));
}

TEST_CASE(
    "rule check: swapped dot operands, a wrong reduce dimension, the wrong part of a "
    "concatenation and a wrong constant fold all fail",
    "[rules]") {
  const char* wrong[] = {
      "rewrite swapped: (dot ?a ?b :lhs_contracting_dims [1] :rhs_contracting_dims [0])\n"
      "  => (dot ?b ?a :lhs_contracting_dims [0] :rhs_contracting_dims [1])",
      "rewrite wrong-dim: (reduce (transpose ?x :dimensions [1 0]) 0 :dimensions [0]\n"
      "                           :to_apply add)\n"
      "  => (reduce ?x 0 :dimensions [0] :to_apply add)",
      "rewrite wrong-part:\n"
      "  (slice (concatenate ?a ?b :dimensions ?d) :start_indices ?s :limit_indices ?l\n"
      "         :strides ?t)\n"
      "  => (slice ?b :start_indices ?s :limit_indices ?l :strides ?t)\n"
      "  if (less-equal ?l (shape ?a))",
      "rewrite wrong-fold: (add (constant :value ?a) (constant :value ?b))\n"
      "  => (constant :value (* ?a ?b))",
      "rewrite two-and-two: (add 2 2) => 5",
  };
  for (const char* text : wrong) {
    INFO(text);
    const rules::RuleCheck r = one(text);
    CHECK(r.verdict == Verdict::kFailed);
    CHECK_FALSE(counterexample(r).mismatch.empty());
  }
  CHECK(counterexample(one(wrong[4])).mismatch == "element []: 4 vs 5 (difference 1)");
}

TEST_CASE("rule check: a right side that does not type-check is a failure", "[rules]") {
  // Without the guard (equal (shape ?a) (shape ?b)), the reverse direction can meet operands
  // of one element count and different shapes.
  const rules::RuleCheck r =
      one("birewrite r-add: (reshape (add ?a ?b) :shape ?s)\n"
          "  <=> (add (reshape ?a :shape ?s) (reshape ?b :shape ?s))");
  CHECK(r.verdict == Verdict::kFailed);
  REQUIRE(r.directions.size() == 2);
  CHECK(r.directions[0].verdict == Verdict::kPassed);
  CHECK(r.directions[1].verdict == Verdict::kFailed);
  CHECK_THAT(counterexample(r).mismatch, Catch::StartsWith("the right side does not type-check"));
}

TEST_CASE("rule check: guards are satisfied, not ignored", "[rules]") {
  // Sound only under the guard; the sampler makes ?q the inverse of ?p.
  const rules::RuleCheck inverse =
      one("rewrite t-inv: (transpose (transpose ?x :dimensions ?p) :dimensions ?q) => ?x\n"
          "  if (equal ?q (inverse ?p))");
  CHECK(inverse.verdict == Verdict::kPassed);
  // is-const operands hold one value everywhere: sound only then.
  const rules::RuleCheck splat = one(
      "rewrite splat: (transpose ?c :dimensions [1 0]) => (reshape ?c :shape (compose (shape ?c) "
      "[1 0])) if (is-const ?c)");
  CHECK(splat.verdict == Verdict::kPassed);
  const rules::RuleCheck not_splat =
      one("rewrite no: (transpose ?c :dimensions [1 0]) => (reshape ?c :shape (compose (shape ?c) "
          "[1 0]))");
  CHECK(not_splat.verdict == Verdict::kFailed);
}

TEST_CASE("rule check: what cannot be instantiated says why", "[rules]") {
  const Checked c = check(
      "rewrite unknown: (frobnicate ?x) => ?x\n"
      "rewrite symbol: (add a 0) => a\n"
      "rewrite other-call: (custom-call ?x :custom_call_target MyKernel) => ?x\n");
  REQUIRE(c.checks.size() == 3);
  CHECK(c.checks[0].verdict == Verdict::kNotInstantiated);
  CHECK_THAT(c.checks[0].directions[0].note,
             Catch::Contains("'frobnicate' is not an HLO operator"));
  CHECK(c.checks[0].directions[0].attempts == 3000);
  CHECK(c.checks[1].verdict == Verdict::kNotInstantiated);
  CHECK_THAT(c.checks[1].directions[0].note, Catch::Contains("nullary operator"));
  CHECK(c.checks[2].verdict == Verdict::kNotInstantiated);
  CHECK_THAT(c.checks[2].directions[0].note, Catch::Contains("MyKernel"));
}

TEST_CASE("rule check: the same seed gives the same instances", "[rules]") {
  const char* text = "rewrite drop: (transpose ?x :dimensions ?p) => ?x";
  rules::CheckOptions options;
  options.seed = 7;
  const auto a = check(text, options).checks[0];
  const auto b = check(text, options).checks[0];
  REQUIRE(a.verdict == Verdict::kFailed);
  CHECK(counterexample(a).lhs_hlo == counterexample(b).lhs_hlo);
  CHECK(counterexample(a).operands[0].value == counterexample(b).operands[0].value);
  CHECK(a.directions[0].trials == b.directions[0].trials);
}

TEST_CASE("rule check: associative-commutative operators may take more operands", "[rules]") {
  const Checked c = check(
      "ac add\n"
      "rewrite sum3: (add ?a ?b ?c) => (add ?c (add ?b ?a))\n");
  // The rule, then what the declaration states: add commutes and associates.
  REQUIRE(c.checks.size() == 3);
  CHECK(c.checks[1].rule.name == "add-commutes");
  CHECK(c.checks[2].rule.name == "add-associates");
  for (const rules::RuleCheck& r : c.checks) CHECK(r.verdict == Verdict::kPassed);
}

TEST_CASE("rule check: a commutative or associative declaration is checked like a rule",
          "[rules]") {
  // Subtraction neither commutes nor associates; maximum does both.
  const Checked c = check(
      "comm subtract\n"
      "ac divide maximum\n");
  REQUIRE(c.checks.size() == 5);
  CHECK(c.checks[0].rule.name == "subtract-commutes");
  CHECK(c.checks[0].verdict == Verdict::kFailed);
  CHECK(c.checks[0].rule.pos.line == 1);
  CHECK(c.checks[1].rule.name == "divide-commutes");
  CHECK(c.checks[1].verdict == Verdict::kFailed);
  CHECK(c.checks[2].rule.name == "divide-associates");
  CHECK(c.checks[2].verdict == Verdict::kFailed);
  CHECK(c.checks[2].rule.pos.line == 2);
  CHECK(c.checks[3].verdict == Verdict::kPassed);
  CHECK(c.checks[4].verdict == Verdict::kPassed);
  CHECK(counterexample(c.checks[0]).lhs.find("subtract") != std::string::npos);
}

TEST_CASE("rule check: an identity of real arithmetic fails on integers unless guarded",
          "[rules]") {
  // (x / 2) * 2 is x for floats, x rounded toward zero to even for s32.
  const rules::RuleCheck bad = one("rewrite halve-double: (multiply (divide ?x 2) 2) => ?x");
  REQUIRE(bad.verdict == Verdict::kFailed);
  const rules::Counterexample& c = counterexample(bad);
  REQUIRE(c.operands.size() == 1);
  CHECK_THAT(c.operands[0].type, Catch::StartsWith("s32"));
  // Guarded, it holds (and is checked on floats).
  CHECK(one("rewrite halve-double: (multiply (divide ?x 2) 2) => ?x if (floating ?x)").verdict ==
        Verdict::kPassed);
  // A fractional number never stands for an integer: x / 2 as x * 0.5 is not built for s32, so
  // the rule passes on the instances where it applies (floats) without a guard.
  CHECK(one("rewrite half: (divide ?x 2) => (multiply ?x 0.5)").verdict == Verdict::kPassed);
}
