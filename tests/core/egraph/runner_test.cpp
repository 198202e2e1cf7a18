// The runner and the rule compiler together: multi-patterns, guards, attribute variables,
// budgets, back-off, and conflicts reported as unsound rules.
#include "egraph/runner.h"

#include <catch2/catch.hpp>

#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "runner_setup.h"

using namespace scalify;

using Setup = test::RunnerSetup;

TEST_CASE("runner: a multi-pattern joins on shared variables", "[egraph][runner]") {
  // Two terms over the same ?x: only pairs that share it fire.
  Setup s("rule pair: ?p = (f ?x), ?q = (g ?x) => ?p = (h ?x)");
  s.add("(f a)");
  s.add("(g a)");
  s.add("(f b)");
  s.add("(g c)");
  const auto report = s.run();
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(s.same("(f a)", "(h a)"));
  CHECK_FALSE(s.same("(f b)", "(h b)"));
  CHECK(report.iterations[0].rules[0].matches == 1);
}

TEST_CASE("runner: guards filter matches", "[egraph][runner]") {
  Setup s(
      "rewrite cancel: (/ ?a ?a) => 1 if (not-zero ?a)\n"
      "rewrite d-var: (d ?x ?x) => 1 if (is-sym ?x)\n"
      "rewrite keep-distinct: (k ?a ?b) => ?a if (distinct ?a ?b)");
  s.add("(/ x x)");
  s.add("(/ 0 0)");
  s.add("(d y y)");
  s.add("(d 2 2)");
  s.add("(k p p)");
  s.add("(k p q)");
  s.run();
  CHECK(s.same("(/ x x)", "1"));
  CHECK_FALSE(s.same("(/ 0 0)", "1"));  // 0/0 is not 1: the guard refuses
  CHECK(s.same("(d y y)", "1"));
  CHECK_FALSE(s.same("(d 2 2)", "1"));  // 2 is a constant, not a symbol
  CHECK(s.same("(k p q)", "p"));
  CHECK_FALSE(s.same("(k p p)", "p"));
}

TEST_CASE("runner: attribute literals and variables", "[egraph][runner]") {
  Setup s(
      "rewrite tt: (t (t ?x :perm ?p) :perm ?p) => ?x\n"
      "rewrite swap-only: (s ?x :axis 0) => (s2 ?x :axis 0)");
  s.add("(t (t a :perm [1 0]) :perm [1 0])");
  s.add("(t (t b :perm [1 0]) :perm [0 1])");
  s.add("(s c :axis 0)");
  s.add("(s c :axis 1)");
  s.run();
  CHECK(s.same("(t (t a :perm [1 0]) :perm [1 0])", "a"));
  CHECK_FALSE(s.same("(t (t b :perm [1 0]) :perm [0 1])", "b"));  // ?p must agree
  CHECK(s.same("(s c :axis 0)", "(s2 c :axis 0)"));
  CHECK_FALSE(s.same("(s c :axis 1)", "(s2 c :axis 1)"));
}

TEST_CASE("runner: budgets stop the run and say why", "[egraph][runner]") {
  // f(x) = f(g(x)) = f(g(g(x))) … grows forever.
  const char* grow = "rewrite grow: (f ?a) => (f (g ?a))";
  {
    Setup s(grow, false);
    s.add("(f x)");
    egraph::RunOptions options;
    options.limits.iterations = 5;
    const auto report = s.run(options);
    CHECK(report.stop == egraph::StopReason::kIterationLimit);
    CHECK(report.iterations.size() == 5);
    CHECK(report.iterations[1].classes_before > report.iterations[0].classes_before);
  }
  {
    Setup s(grow, false);
    s.add("(f x)");
    egraph::RunOptions options;
    options.limits.nodes = 50;
    const auto report = s.run(options);
    CHECK(report.stop == egraph::StopReason::kNodeLimit);
    CHECK(s.g.node_count() > 50);
    CHECK(s.g.node_count() < 200);  // stopped soon after crossing the limit
  }
  {
    Setup s(grow, false);
    s.add("(f x)");
    egraph::RunOptions options;
    options.limits.seconds = 0;
    CHECK(s.run(options).stop == egraph::StopReason::kTimeLimit);
  }
  {
    Setup s(grow, false);
    s.add("(f x)");
    egraph::RunOptions options;
    options.limits.memory_bytes = 10'000;
    CHECK(s.run(options).stop == egraph::StopReason::kMemoryLimit);
  }
  {
    Setup s(grow, false);
    s.add("(f x)");
    std::atomic<bool> cancel{true};
    egraph::RunOptions options;
    options.cancel = &cancel;
    CHECK(s.run(options).stop == egraph::StopReason::kCancelled);
  }
}

TEST_CASE("runner: back-off bans a rule that explodes, and saturation still completes",
          "[egraph][runner]") {
  Setup s(
      "rewrite comm: (+ ?a ?b) => (+ ?b ?a)\nrewrite assoc: (+ ?a (+ ?b ?c)) => (+ (+ ?a ?b) ?c)",
      false);
  s.add("(+ a (+ b (+ c d)))");
  egraph::RunOptions options;
  options.limits.iterations = 100;
  options.scheduling.backoff = true;
  options.scheduling.match_limit = 8;
  options.scheduling.ban_length = 2;
  const auto report = s.run(options);
  bool banned = false;
  for (const auto& it : report.iterations)
    banned = banned || it.rules[0].banned || it.rules[1].banned;
  CHECK(banned);
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(s.same("(+ a (+ b (+ c d)))", "(+ d (+ c (+ b a)))"));
}

TEST_CASE("runner: a rule that equates different constants is reported, not merged",
          "[egraph][runner]") {
  // Each rule alone looks harmless; together they claim 1 = 2.
  Setup s("rewrite first: (h ?a ?b) => ?a\nrewrite wrong: (h ?a ?b) => ?b");
  s.add("(h 1 2)");
  const auto report = s.run();
  REQUIRE(report.stop == egraph::StopReason::kConflict);
  REQUIRE_FALSE(report.conflicts.empty());
  CHECK(report.conflicts[0].rule == "wrong");
  CHECK(report.conflicts[0].conflict.constant_a != report.conflicts[0].conflict.constant_b);
  CHECK_FALSE(s.same("1", "2"));
}

TEST_CASE("rule compiler: errors point at the rule text", "[rules][runner]") {
  egraph::Vocabulary vocab;
  auto compile = [&](const char* text) {
    auto file = rules::parse_rules(text, "t.rules");
    REQUIRE(file);
    return rules::compile_rules(*file, vocab, [](const egraph::ENode&) { return 0u; });
  };
  auto unknown = compile("rewrite r: (f ?x) => ?x if (nonsense ?x)");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().pos.line == 1);
  CHECK(unknown.error().pos.col == 28);
  CHECK_THAT(unknown.error().message, Catch::Contains("unknown guard 'nonsense'"));
  auto list = compile("rewrite r: (f ?x) => (g ?x [1 2])");
  REQUIRE_FALSE(list);
  CHECK_THAT(list.error().message, Catch::Contains("attribute value"));
  auto mixed = compile("rewrite r: (f ?x :d ?x) => ?x");
  REQUIRE_FALSE(mixed);
  CHECK_THAT(mixed.error().message, Catch::Contains("operand variable"));
}

TEST_CASE("runner: an ill-typed instance of a rule is skipped, not reported as unsound",
          "[egraph][runner]") {
  // `wrap` builds a node the oracle cannot type (id 7): with ill_typed = 7 the union is refused
  // and counted, and saturation goes on to apply the other rule.
  egraph::Vocabulary vocab;
  egraph::EGraph g;
  auto file = rules::parse_rules(
      "rewrite wrap: (f ?a) => (bad ?a)\nrewrite swap: (g ?a ?b) => (g ?b ?a)", "t.rules");
  REQUIRE(file);
  const egraph::Symbol bad = vocab.symbol("bad");
  auto oracle = [bad](const egraph::ENode& n) { return egraph::TypeId{n.op == bad ? 7u : 0u}; };
  auto compiled = rules::compile_rules(*file, vocab, oracle);
  REQUIRE(compiled);
  for (const char* text : {"(f x)", "(g x y)"}) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(t);
    REQUIRE(rules::add_term(g, vocab, *t, oracle));
  }
  egraph::RunOptions options;
  options.ill_typed = 7;
  const auto report = egraph::run(g, compiled->rules, options);
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(report.conflicts.empty());
  CHECK(report.ill_typed_instances >= 1);

  // Without it, the same union is an unsound rule.
  egraph::EGraph g2;
  for (const char* text : {"(f x)"}) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(rules::add_term(g2, vocab, *t, oracle));
  }
  CHECK(egraph::run(g2, compiled->rules, {}).stop == egraph::StopReason::kConflict);
}

TEST_CASE(
    "runner: a congruence between a number-typed and an array-typed node is refused, "
    "not reported as unsound",
    "[egraph][runner]") {
  // `(f (h x))` is typed as an array (1) and `(f x)` as a number (0, shapeless), as a bridge
  // may type one splat at its use's shape and the oracle another. `unwrap` joins h x with x,
  // which makes the two congruent: the e-graph refuses, and saturation goes on.
  Setup s("rewrite unwrap: (h ?a) => ?a", false);
  const egraph::Symbol f = s.vocab.symbol("f"), x = s.vocab.symbol("x");
  s.type_of = [f, x, &s](const egraph::ENode& n) {
    const bool over_x = n.op == f && s.g.nodes(n.children[0]).front().op == x;
    return egraph::TypeId{n.op == f && !over_x ? 1u : 0u};
  };
  const egraph::ClassId array = s.add("(f (h x))"), number = s.add("(f x)");
  REQUIRE(s.g.type_of(array) == 1);
  REQUIRE(s.g.type_of(number) == 0);

  egraph::RunOptions options;
  options.shapeless = 0;
  const auto report = s.run(options);
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(report.conflicts.empty());
  CHECK(report.ill_typed_instances >= 1);
  CHECK(s.g.find(array) != s.g.find(number));

  // Without a shapeless type, the same congruence stops the run as unsound.
  Setup strict("rewrite unwrap: (h ?a) => ?a", false);
  strict.type_of = [f, x, &strict](const egraph::ENode& n) {
    const bool over_x = n.op == f && strict.g.nodes(n.children[0]).front().op == x;
    return egraph::TypeId{n.op == f && !over_x ? 1u : 0u};
  };
  strict.add("(f (h x))");
  strict.add("(f x)");
  const auto stopped = strict.run();
  CHECK(stopped.stop == egraph::StopReason::kConflict);
  REQUIRE_FALSE(stopped.conflicts.empty());
  CHECK(stopped.conflicts.front().rule == "congruence");
}

TEST_CASE(
    "runner: a goal unproven at the iteration limit after a ban gets iterations free of "
    "back-off",
    "[egraph][runner]") {
  // 30 matches of `rename` exceed the match limit of 10: the rule is banned past the limit of
  // 3 iterations, and the goal (a x0) = (b x0) needs it.
  auto run = [](size_t rescue) {
    Setup s("rewrite rename: (a ?x) => (b ?x)", false);
    egraph::ClassId a0 = 0;
    for (int i = 0; i < 30; ++i) {
      const egraph::ClassId c = s.add(("(a x" + std::to_string(i) + ")").c_str());
      if (i == 0) a0 = c;
    }
    const egraph::ClassId b0 = s.add("(b x0)");
    egraph::RunOptions options;
    options.limits.iterations = 3;
    options.scheduling.backoff = true;
    options.scheduling.match_limit = 10;
    options.scheduling.ban_length = 100;
    options.scheduling.rescue_iterations = rescue;
    options.goal = [a0, b0](const egraph::EGraph& g) { return g.find(a0) == g.find(b0); };
    return s.run(options);
  };
  const auto stuck = run(0);
  CHECK(stuck.stop == egraph::StopReason::kIterationLimit);
  CHECK_FALSE(stuck.rescued);
  const auto rescued = run(1);
  CHECK(rescued.stop == egraph::StopReason::kGoal);
  CHECK(rescued.rescued);
  CHECK(rescued.iterations.size() == 4);  // the limit's three, and one free of back-off
}
