// Proofs: explanations read off the e-graph, exported, and re-checked independently; tampered
// proofs are rejected.
#include "rules/proof.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "egraph/explain.h"
#include "egraph/runner.h"
#include "rules/proof_checker.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "test_support.h"

using namespace scalify;

namespace {

constexpr const char* kArithmetic = R"(
rewrite comm-add: (+ ?a ?b) => (+ ?b ?a)
rewrite comm-mul: (* ?a ?b) => (* ?b ?a)
birewrite assoc-add: (+ ?a (+ ?b ?c)) <=> (+ (+ ?a ?b) ?c)
rewrite zero-add: (+ ?a 0) => ?a
rewrite one-mul: (* ?a 1) => ?a
rewrite double: (+ ?a ?a) => (* 2 ?a)
rewrite cancel-div: (/ ?a ?a) => 1 if (not-zero ?a)
)";

egraph::TypeId any_type(const egraph::ENode&) { return 0; }

/// An e-graph with explanations and arithmetic folding, saturated with `rules` after adding
/// the terms; returns the proof that the first term equals the second as JSON.
struct Prover {
  rules::RuleFile file;
  egraph::Vocabulary vocab;
  egraph::EGraph g{/*explanations=*/true};
  rules::CompiledRules compiled;

  explicit Prover(const char* text) {
    auto parsed = rules::parse_rules(text, "t.rules");
    REQUIRE(parsed);
    file = std::move(*parsed);
    g.set_constant_folding(rules::arithmetic_folding(vocab));
    auto c = rules::compile_rules(file, vocab, any_type);
    REQUIRE(c);
    compiled = std::move(*c);
  }

  egraph::ClassId add(const char* term) {
    auto t = rules::parse_term(term, "<term>");
    REQUIRE(t);
    auto id = rules::add_term(g, vocab, *t, any_type);
    REQUIRE(id);
    return *id;
  }

  json::Value prove(const char* a, const char* b, size_t iterations = 8) {
    const egraph::ClassId x = add(a), y = add(b);
    egraph::RunOptions options;
    options.limits.iterations = iterations;
    egraph::run(g, compiled.rules, options);
    REQUIRE(g.find(x) == g.find(y));
    auto why = egraph::explain(g, x, y);
    REQUIRE(why);
    INFO(rules::proof_to_text(*why, vocab, compiled.origins));
    return rules::proof_to_json(*why, vocab, compiled.origins, "t.rules");
  }
};

}  // namespace

TEST_CASE("proofs: a rewrite proof is exported and re-checked", "[rules][proof]") {
  Prover p(kArithmetic);
  json::Value proof = p.prove("(+ 0 (+ x y))", "(+ y x)");
  INFO(proof.dump(2));
  CHECK(proof["from"].as_string() == "(+ 0 (+ x y))");
  CHECK(proof["to"].as_string() == "(+ y x)");
  CHECK_FALSE(proof["steps"].as_array().empty());
  auto checked = rules::check_proof(proof, p.file);
  REQUIRE(checked);
  CHECK(*checked == proof["steps"].as_array().size());
}

TEST_CASE("proofs: constant folding and congruence need no rule", "[rules][proof]") {
  Prover p("");
  json::Value proof = p.prove("(* x (+ 1 (* 2 3)))", "(* x 7)");
  INFO(proof.dump(2));
  REQUIRE(rules::check_proof(proof, p.file));
  REQUIRE_FALSE(proof["steps"].as_array().empty());
  for (json::Value step : proof["steps"].as_array()) {
    CHECK(step["by"].as_string() == "constant-folding");
    CHECK(step["at"].as_array().size() >= 1);  // inside the product, by congruence
  }
}

TEST_CASE("proofs: tampered proofs are rejected", "[rules][proof]") {
  Prover p(kArithmetic);
  json::Value good = p.prove("(+ (+ a b) (+ a b))", "(* 2 (+ b a))");
  INFO(good.dump(2));
  REQUIRE(rules::check_proof(good, p.file));
  const size_t n = good["steps"].as_array().size();
  REQUIRE(n >= 2);

  auto rejected = [&](json::Value bad, const std::string& why) {
    auto result = rules::check_proof(bad, p.file);
    REQUIRE_FALSE(result);
    CHECK_THAT(result.error().message, Catch::Contains(why));
  };
  {
    json::Value bad = good;  // a step cites another rule
    bad["steps"][0]["by"] =
        bad["steps"][0]["by"].as_string() == "comm-add" ? "comm-mul" : "comm-add";
    rejected(bad, "step 1");
  }
  {
    json::Value bad = good;  // a term changed to something the rule does not give
    bad["steps"][n - 1]["term"] = "(* 3 (+ b a))";
    bad["to"] = "(* 3 (+ b a))";
    rejected(bad, "step " + std::to_string(n));
  }
  {
    json::Value bad = good;  // a step dropped
    bad["steps"].as_array().erase(bad["steps"].as_array().begin());
    rejected(bad, "step 1");
  }
  {
    json::Value bad = good;  // the claimed conclusion differs from where the steps lead
    bad["to"] = "(* 2 (+ a b))";
    rejected(bad, "does not reach");
  }
  {
    json::Value bad = good;  // a rule that is not in the rule file
    bad["steps"][0]["by"] = "made-up";
    rejected(bad, "no rule of that name");
  }
  {
    json::Value bad = good;  // a rewrite at another position
    bad["steps"][0]["at"] = json::Array{7};
    rejected(bad, "position");
  }
  rejected(json::Value(json::Object{{"format", "other"}}), "scalify-proof-1");
}

TEST_CASE("proofs: a wrong arithmetic fold is rejected", "[rules][proof]") {
  Prover p("");
  json::Value proof = p.prove("(+ x (+ 1 2))", "(+ x 3)");
  INFO(proof.dump(2));
  REQUIRE(rules::check_proof(proof, p.file));
  REQUIRE(proof["steps"].as_array().size() == 1);
  proof["steps"][0]["term"] = "(+ x 4)";
  proof["to"] = "(+ x 4)";
  auto result = rules::check_proof(proof, p.file);
  REQUIRE_FALSE(result);
  CHECK_THAT(result.error().message, Catch::Contains("arithmetic"));
}

TEST_CASE("proofs: egg's math rules prove and the checker accepts", "[rules][proof]") {
  const std::string text =
      scalify::test::read_file(SCALIFY_SOURCE_DIR "/tests/bench/egg_math.rules");
  Prover p(text.c_str());
  // From egg's tests/math.rs: math_simplify_add and math_diff_same.
  for (auto [a, b] : {std::pair{"(+ x (+ x (+ x x)))", "(* 4 x)"}, std::pair{"(d x x)", "1"},
                      std::pair{"(* x (+ 1 -1))", "0"}}) {
    json::Value proof = p.prove(a, b, 6);
    INFO(proof.dump(2));
    auto checked = rules::check_proof(proof, p.file);
    INFO((checked ? std::string() : checked.error().message));
    CHECK(checked);
  }
}

TEST_CASE("explanations: unequal terms and plain e-graphs give errors", "[egraph][proof]") {
  Prover p(kArithmetic);
  const egraph::ClassId x = p.add("x"), y = p.add("y");
  CHECK_FALSE(egraph::explain(p.g, x, y));
  egraph::EGraph plain;
  const egraph::ClassId a = plain.add({1, 0, {}}, 0);
  CHECK_FALSE(egraph::explain(plain, a, a));
}
