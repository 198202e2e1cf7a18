// The numeric check of Datalog rules over Rep, Shard and Partial on a simulated mesh: the layout
// rules of DESIGN.md pass; wrong ones (a gather along the wrong dim, a non-linear op on a
// partial sum, a max reduced as a sum, a shard left on a transposed dim, a contraction over a
// shard called replicated, a product of partials) fail with a counterexample naming the
// conclusion; rules it cannot give a meaning say why.
#include "rules/datalog_check.h"

#include <catch2/catch.hpp>

#include "rules/rule_parser.h"

using namespace scalify;
using rules::Verdict;

namespace {

const char* kRelations =
    "relation Rep(class, class)\n"
    "relation Shard(class, class, int, word)\n"
    "relation Partial(class, class, word, word)\n";

/// The check of the only rule of `rule` (after the three relations).
rules::DirectionCheck check_one(const std::string& rule, rules::CheckOptions options = {}) {
  auto parsed = rules::parse_rules(kRelations + rule, "layout.rules");
  if (!parsed) FAIL(parsed.error().format());
  REQUIRE(parsed->rules.size() == 1);
  return rules::check_datalog_rule(*parsed, parsed->rules[0], options);
}

}  // namespace

TEST_CASE("datalog check: the collectives' layout rules pass", "[rules]") {
  const char* sound[] = {
      "rule all-reduce-sum: ?r = (all-reduce ?x), Partial(?x, ?X, tp, sum) => Rep(?r, ?X)",
      "rule all-reduce-max: ?r = (all-reduce ?x :to_apply maximum), Partial(?x, ?X, tp, max)"
      " => Rep(?r, ?X)",
      "rule all-gather: ?r = (all-gather ?x :dimensions [0]), Shard(?x, ?X, 0, tp)"
      " => Rep(?r, ?X)",
      "rule reduce-scatter: ?r = (reduce-scatter ?x :dimensions [1]), Partial(?x, ?X, tp, sum)"
      " => Shard(?r, ?X, 1, tp)",
      "rule all-to-all: ?r = (all-to-all ?x :split_dimension 0 :concat_dimension 1),"
      " Shard(?x, ?X, 1, tp) => Shard(?r, ?X, 0, tp)",
      // The head may also name a collective: gathering a shard again gives the whole value.
      "rule gather-again: Shard(?x, ?X, 0, tp) => ?r = (all-gather ?x :dimensions [0]),"
      " Rep(?r, ?X)",
  };
  for (const char* rule : sound) {
    INFO(rule);
    const rules::DirectionCheck d = check_one(rule);
    CHECK(d.verdict == Verdict::kPassed);
    CHECK(d.trials >= 10);
    CHECK_FALSE(d.counterexample);
  }
}

TEST_CASE("datalog check: propagation through local ops passes", "[rules]") {
  const char* sound[] = {
      "rule rep-exp: ?d = (exponential ?x), Rep(?x, ?X) => ?D = (exponential ?X), Rep(?d, ?D)",
      "rule shard-add: ?d = (add ?a ?b), Shard(?a, ?A, ?k, tp), Shard(?b, ?B, ?k, tp)"
      " => ?D = (add ?A ?B), Shard(?d, ?D, ?k, tp)",
      "rule partial-add: ?d = (add ?a ?b), Partial(?a, ?A, tp, sum), Partial(?b, ?B, tp, sum)"
      " => ?D = (add ?A ?B), Partial(?d, ?D, tp, sum)",
      "rule partial-times-rep: ?d = (multiply ?a ?b), Partial(?a, ?A, tp, sum), Rep(?b, ?B)"
      " => ?D = (multiply ?A ?B), Partial(?d, ?D, tp, sum)",
      "rule dot-contracts-shard: ?d = (dot ?a ?b :lhs_contracting_dims [1]"
      " :rhs_contracting_dims [0]), Shard(?a, ?A, 1, tp), Shard(?b, ?B, 0, tp)"
      " => ?D = (dot ?A ?B :lhs_contracting_dims [1] :rhs_contracting_dims [0]),"
      " Partial(?d, ?D, tp, sum)",
      "rule transpose-moves-shard: ?d = (transpose ?x :dimensions [1 0]), Shard(?x, ?X, 0, tp)"
      " => ?D = (transpose ?X :dimensions [1 0]), Shard(?d, ?D, 1, tp)",
      "rule max-of-partial-max: ?d = (maximum ?a ?b), Partial(?a, ?A, tp, max), Rep(?b, ?B)"
      " => ?D = (maximum ?A ?B), Partial(?d, ?D, tp, max)",
  };
  for (const char* rule : sound) {
    INFO(rule);
    const rules::DirectionCheck d = check_one(rule);
    CHECK(d.verdict == Verdict::kPassed);
    CHECK(d.trials >= 10);
  }
}

TEST_CASE("datalog check: wrong layout rules fail with a counterexample", "[rules]") {
  struct Wrong {
    const char* rule;
    const char* why;  ///< a part of the mismatch
  };
  const Wrong wrong[] = {
      // all-gather along dim 0 of a value sharded along dim 1.
      {"rule gather-wrong-dim: ?r = (all-gather ?x :dimensions [0]), Shard(?x, ?X, 1, tp)"
       " => Rep(?r, ?X)",
       ""},
      // exp is not linear: exp of a partial sum is not the sum of the exps.
      {"rule exp-partial: ?d = (exponential ?x), Partial(?x, ?X, tp, sum)"
       " => ?D = (exponential ?X), Partial(?d, ?D, tp, sum)",
       "combination"},
      // partial maxima summed.
      {"rule max-as-sum: ?r = (all-reduce ?x), Partial(?x, ?X, tp, max) => Rep(?r, ?X)", "rank"},
      // all-reduce of a replicated value multiplies it by the number of ranks.
      {"rule reduce-rep: ?r = (all-reduce ?x), Rep(?x, ?X) => Rep(?r, ?X)", "rank"},
      // the transpose moves the shard to dim 1; the rule keeps it on dim 0.
      {"rule transpose-keeps-shard: ?d = (transpose ?x :dimensions [1 0]),"
       " Shard(?x, ?X, 0, tp) => ?D = (transpose ?X :dimensions [1 0]), Shard(?d, ?D, 0, tp)",
       ""},
      // contracting a sharded dim gives partial sums, not the product.
      {"rule dot-shard-rep: ?d = (dot ?a ?b :lhs_contracting_dims [1] :rhs_contracting_dims [0]),"
       " Shard(?a, ?A, 1, tp), Shard(?b, ?B, 0, tp)"
       " => ?D = (dot ?A ?B :lhs_contracting_dims [1] :rhs_contracting_dims [0]), Rep(?d, ?D)",
       "rank"},
      // (a0 + a1)(b0 + b1) is not a0 b0 + a1 b1.
      {"rule multiply-partials: ?d = (multiply ?a ?b), Partial(?a, ?A, tp, sum),"
       " Partial(?b, ?B, tp, sum) => ?D = (multiply ?A ?B), Partial(?d, ?D, tp, sum)",
       "combination"},
      // a union that does not hold: x0 + x1 is not 2 x0.
      {"rule wrong-union: ?r = (all-reduce ?x), Partial(?x, ?X, tp, sum) => ?r = (add ?x ?x)",
       "differ"},
  };
  for (const Wrong& w : wrong) {
    INFO(w.rule);
    const rules::DirectionCheck d = check_one(w.rule);
    REQUIRE(d.verdict == Verdict::kFailed);
    REQUIRE(d.counterexample);
    const rules::Counterexample& c = *d.counterexample;
    CHECK_FALSE(c.lhs.empty());
    CHECK_FALSE(c.rhs.empty());
    CHECK_THAT(c.mismatch, Catch::Contains(w.why));
    CHECK_FALSE(c.operands.empty());
    CHECK(c.attributes.front().first == "ranks");
  }
}

TEST_CASE("datalog check: the counterexample shows every rank's values", "[rules]") {
  const rules::DirectionCheck d =
      check_one("rule reduce-rep: ?r = (all-reduce ?x), Rep(?x, ?X) => Rep(?r, ?X)");
  REQUIRE(d.counterexample);
  const rules::Counterexample& c = *d.counterexample;
  CHECK(c.rhs == "Rep(?r, ?X)");
  CHECK(c.lhs == "?r = (all-reduce ?x), Rep(?x, ?X)");
  bool x_per_rank = false;
  for (const auto& o : c.operands) {
    if (o.name == "?x") {
      x_per_rank =
          o.type.ends_with("on each rank") && o.value.find("rank 1: ") != std::string::npos;
    }
  }
  CHECK(x_per_rank);
}

TEST_CASE("datalog check: rules without a numeric meaning are not instantiated, with why",
          "[rules]") {
  auto check_text = [](const std::string& text) {
    auto parsed = rules::parse_rules(text, "odd.rules");
    if (!parsed) FAIL(parsed.error().format());
    return rules::check_datalog_rule(*parsed, parsed->rules.back());
  };
  rules::DirectionCheck d = check_text(
      "relation Owns(class, class)\nrule own: ?r = (exponential ?x), Owns(?x, ?X) => Owns(?r, ?X)");
  CHECK(d.verdict == Verdict::kNotInstantiated);
  CHECK_THAT(d.note, Catch::Contains("'Owns' has no numeric meaning"));

  d = check_text(std::string(kRelations) +
                 "rule two-axes: Shard(?x, ?X, 0, tp), Shard(?y, ?X, 0, dp) => Rep(?x, ?X)");
  CHECK(d.verdict == Verdict::kNotInstantiated);
  CHECK_THAT(d.note, Catch::Contains("two mesh axes"));

  d = check_text(std::string(kRelations) +
                 "rule both: ?r = (exponential ?x), Rep(?x, ?r) => Rep(?r, ?x)");
  CHECK(d.verdict == Verdict::kNotInstantiated);
  CHECK_THAT(d.note, Catch::Contains("both a distributed and a reference value"));
}

TEST_CASE("datalog check: the same seed gives the same instances", "[rules]") {
  const std::string rule =
      "rule multiply-partials: ?d = (multiply ?a ?b), Partial(?a, ?A, tp, sum),"
      " Partial(?b, ?B, tp, sum) => ?D = (multiply ?A ?B), Partial(?d, ?D, tp, sum)";
  rules::CheckOptions options;
  options.seed = 11;
  const rules::DirectionCheck a = check_one(rule, options), b = check_one(rule, options);
  REQUIRE(a.counterexample);
  REQUIRE(b.counterexample);
  CHECK(a.counterexample->mismatch == b.counterexample->mismatch);
  CHECK(a.attempts == b.attempts);
}
