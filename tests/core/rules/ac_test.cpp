// Associative-commutative operators in canonical n-ary form: flattening, sorted operands,
// matching in any order, and proofs that show the reorderings.
#include <catch2/catch.hpp>

#include "egraph/explain.h"
#include "egraph/runner.h"
#include "rules/proof.h"
#include "rules/proof_checker.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"

using namespace scalify;

namespace {

struct Ac {
  egraph::Vocabulary vocab;
  egraph::EGraph g{/*explanations=*/true};
  rules::RuleFile file;
  rules::CompiledRules compiled;
  std::function<egraph::TypeId(const egraph::ENode&)> type_of = [](const egraph::ENode&) {
    return egraph::TypeId{0};
  };

  explicit Ac(const char* text) {
    auto parsed = rules::parse_rules(text, "ac.rules");
    if (!parsed) FAIL(parsed.error().format());
    file = std::move(*parsed);
    auto c = rules::compile_rules(file, vocab, type_of);
    if (!c) FAIL(c.error().format());
    compiled = std::move(*c);
    g.set_commutative(vocab.commutative_symbols());
  }
  egraph::ClassId add(const char* text) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(t);
    auto id = rules::add_term(g, vocab, *t, type_of);
    REQUIRE(id);
    return *id;
  }
  json::Value prove(egraph::ClassId a, egraph::ClassId b) {
    REQUIRE(g.find(a) == g.find(b));
    auto why = egraph::explain(g, a, b);
    REQUIRE(why);
    return rules::proof_to_json(*why, vocab, compiled.origins, "ac.rules");
  }
};

}  // namespace

TEST_CASE("ac: nested and reordered applications are one node", "[rules][ac]") {
  Ac s("ac +");
  const auto x = s.add("(+ a (+ b c))");
  const auto y = s.add("(+ (+ c a) b)");
  const auto z = s.add("(+ c b a)");
  s.g.rebuild();
  CHECK(s.g.find(x) == s.g.find(y));
  CHECK(s.g.find(x) == s.g.find(z));
  CHECK(s.g.nodes(x).size() == 1);
  CHECK(s.g.nodes(x)[0].children.size() == 3);                      // n-ary, not nested
  CHECK(s.g.find(s.add("(* a b)")) != s.g.find(s.add("(* b a)")));  // * is not declared ac
}

TEST_CASE("ac: a pattern matches the operands in any order", "[rules][ac]") {
  Ac s("ac +\nrewrite zero: (+ ?a 0) => ?a\nrewrite pair: (+ ?a ?b (neg ?a)) => ?b");
  const auto x = s.add("(+ 0 x)");
  const auto y = s.add("(+ (neg q) p q)");
  egraph::run(s.g, s.compiled.rules);
  CHECK(s.g.find(x) == s.g.find(s.add("x")));
  CHECK(s.g.find(y) == s.g.find(s.add("p")));
}

TEST_CASE("ac: proofs show reorderings and re-check", "[rules][ac][proof]") {
  Ac s("ac +\nrewrite zero: (+ ?a 0) => ?a");
  const auto x = s.add("(+ 0 x)");
  egraph::run(s.g, s.compiled.rules);
  json::Value proof = s.prove(x, s.add("x"));
  INFO(proof.dump(2));
  auto checked = rules::check_proof(proof, s.file);
  INFO((checked ? std::string() : checked.error().message));
  REQUIRE(checked);

  // The same proof against rules where + is not declared ac: the reordering is refused.
  auto plain = rules::parse_rules("rewrite zero: (+ ?a 0) => ?a", "plain.rules");
  REQUIRE(plain);
  bool reorders = false;
  for (json::Value step : proof["steps"].as_array()) reorders |= step["by"].as_string() == "ac";
  if (reorders) {
    auto refused = rules::check_proof(proof, *plain);
    REQUIRE_FALSE(refused);
    CHECK_THAT(refused.error().message, Catch::Contains("not declared 'ac' or 'comm'"));
  }
}

TEST_CASE("comm: operands are sorted but applications stay binary", "[rules][ac]") {
  Ac s("comm +");
  const auto x = s.add("(+ a (+ b c))");
  CHECK(s.g.find(s.add("(+ (+ c b) a)")) == s.g.find(x));  // reordered at both levels
  CHECK(s.g.find(s.add("(+ (+ a b) c)")) != s.g.find(x));  // not reassociated
  CHECK(s.g.nodes(x).size() == 1);
  CHECK(s.g.nodes(x)[0].children.size() == 2);
}

TEST_CASE("comm: associativity as a rule matches in every order, and proofs re-check",
          "[rules][ac][proof]") {
  Ac s(
      "comm +\n"
      "birewrite assoc: (+ (+ ?a ?b) ?c) <=> (+ ?a (+ ?b ?c))\n");
  const auto x = s.add("(+ (+ a b) c)");
  const auto y = s.add("(+ b (+ c a))");
  egraph::run(s.g, s.compiled.rules);
  REQUIRE(s.g.find(x) == s.g.find(y));
  json::Value proof = s.prove(x, y);
  INFO(proof.dump(2));
  auto checked = rules::check_proof(proof, s.file);
  INFO((checked ? std::string() : checked.error().message));
  CHECK(checked);
  // A file that declares + neither way refuses the reorderings.
  auto plain =
      rules::parse_rules("birewrite assoc: (+ (+ ?a ?b) ?c) <=> (+ ?a (+ ?b ?c))", "plain.rules");
  REQUIRE(plain);
  auto refused = rules::check_proof(proof, *plain);
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("not declared 'ac' or 'comm'"));
}

TEST_CASE("comm: an operator is declared once", "[rules][ac]") {
  auto twice = rules::parse_rules("comm add\nac add", "t.rules");
  REQUIRE_FALSE(twice);
  CHECK_THAT(twice.error().format(), Catch::Contains("already declared 'comm' at 1:6"));
}
