// Semi-naive matching: after its first search, a rule of one pattern searches only near the
// classes changed since. It must find every match a full search would, and so build the same
// e-graph, iteration by iteration.
#include <catch2/catch.hpp>
#include <memory>
#include <utility>

#include "egraph/change_log.h"
#include "egraph/runner.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "runner_setup.h"
#include "test_support.h"

using namespace scalify;

namespace {

/// The runner's fixture; `semi_naive` false makes the runner search every rule in full every
/// time (as it does for a guard that may read anything).
struct Setup : test::RunnerSetup {
  explicit Setup(const std::string& text, bool semi_naive = true) : RunnerSetup(text) {
    if (!semi_naive) {
      for (egraph::Rule& r : compiled.rules) r.local_guard = false;
    }
  }
  egraph::RunReport run_for(size_t iterations = 30) {
    egraph::RunOptions options;
    options.limits.iterations = iterations;
    return run(options);
  }
};

size_t total_matches(const egraph::RunReport& report, size_t from_iteration) {
  size_t n = 0;
  for (size_t i = from_iteration; i < report.iterations.size(); ++i) {
    for (const egraph::RuleIteration& r : report.iterations[i].rules) n += r.matches;
  }
  return n;
}

// a = b is learned in the second iteration, so (g a) = (g b) by congruence; only then does
// (f ?x ?x) match (f (g a) (g b)), whose own class nothing touched: the match is two levels
// below the classes that changed.
constexpr const char* kLateMerge =
    "rewrite m-n: (m ?x) => (n ?x)\n"
    "rewrite n-b: (n a) => b\n"
    "rewrite n-self: (n ?x) => ?x\n"
    "rewrite same: (f ?x ?x) => done\n";

}  // namespace

TEST_CASE("semi-naive: a match made possible by a merge below its root is found",
          "[egraph][runner]") {
  size_t matches[2] = {0, 0};
  for (const bool semi_naive : {true, false}) {
    Setup s(kLateMerge, semi_naive);
    s.add("(f (g a) (g b))");
    s.add("(m a)");
    const egraph::RunReport report = s.run_for();
    CHECK(report.stop == egraph::StopReason::kSaturated);
    CHECK(s.same("a", "b"));
    CHECK(s.same("(f (g a) (g b))", "done"));
    matches[semi_naive] = total_matches(report, 0);
  }
  // A full search finds (m a) and (n a) again in every iteration.
  CHECK(matches[true] < matches[false]);
}

TEST_CASE("semi-naive: a guard that holds once a constant is learned below it is tried again",
          "[egraph][runner]") {
  // c = 2 in the first iteration; folding then makes (+ c 1) the constant 3, and only then
  // does the guard of `h-const` hold for (h (+ c 1)).
  Setup s(
      "rewrite c-two: c => 2\n"
      "rewrite h-const: (h ?x) => ?x if (is-const ?x)\n");
  s.add("(h (+ c 1))");
  s.add("(h y)");
  const egraph::RunReport report = s.run_for();
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(s.same("(h (+ c 1))", "3"));
  CHECK_FALSE(s.same("(h y)", "y"));
}

TEST_CASE("semi-naive: egg's math rules build the same e-graph as full searches",
          "[egraph][runner]") {
  const std::string text = test::read_file(SCALIFY_SOURCE_DIR "/tests/bench/egg_math.rules");
  for (const char* expr :
       {"(+ (* y (+ x y)) (- (+ x 2) (+ x x)))", "(i (+ x (cos x)) x)", "(d x (pow x 3))"}) {
    INFO(expr);
    Setup near(text, true), full(text, false);
    near.add(expr);
    full.add(expr);
    const egraph::RunReport a = near.run_for(7), b = full.run_for(7);
    test::check_same_iterations(a, b);
    // (Here nearly every class is within reach of a change each iteration, so semi-naive
    // matching saves little; the checker's e-graphs settle part by part.)
    CHECK(total_matches(a, 0) <= total_matches(b, 0));
  }
}

TEST_CASE("runner: congruence restored within a large iteration still builds egg's e-graph",
          "[egraph][runner]") {
  // Iteration 10 of egg's first workload makes about 64 k unions in the order found and about
  // 20 k with held-first: either way the runner restores congruence every few thousand of them
  // (EGraph::restore_congruence()) while applying.
  const std::string text = test::read_file(SCALIFY_SOURCE_DIR "/tests/bench/egg_math.rules");
  for (const bool held_first : {false, true}) {
    INFO("held_first " << held_first);
    Setup s(text);
    s.add("(+ (* y (+ x y)) (- (+ x 2) (+ x x)))");
    egraph::RunOptions options;
    options.limits.iterations = 10;
    options.scheduling.held_first = held_first;
    const egraph::RunReport report = s.run(options);
    REQUIRE(report.iterations.size() == 10);
    const size_t egg[] = {9, 15, 20, 30, 54, 70, 81, 200, 595, 1814};  // egg 0.11.0's
    for (size_t i = 0; i < 10; ++i) {
      INFO("iteration " << i + 1);
      CHECK(report.iterations[i].classes_before == egg[i]);
    }
    size_t unions = 0;
    for (const egraph::RuleIteration& r : report.iterations[9].rules) unions += r.applied;
    CHECK(unions > (held_first ? 4 : 10) * 4096);
    CHECK(report.iterations[9].classes_after == 7340);  // egg's count at the next iteration
  }
}

TEST_CASE("change log: the roots near a change are its class and its ancestors up to a height",
          "[egraph][runner]") {
  egraph::EGraph g;
  const egraph::ClassId x = g.add({1, 0, {}}, 0);
  const egraph::ClassId y = g.add({2, 0, {}}, 0);
  const egraph::ClassId fx = g.add({3, 0, {x}}, 0);
  const egraph::ClassId gfx = g.add({4, 0, {fx}}, 0);
  const egraph::ClassId hy = g.add({5, 0, {y}}, 0);
  g.log_touches(true);
  g.add({6, 0, {x, x}}, 0);  // touches only the new class
  g.merge(x, y);
  g.rebuild();
  egraph::ChangeLog log;
  log.record(g.take_touched());
  const egraph::ClassId xy = g.find(x);
  const egraph::ClassId kx = *g.lookup({6, 0, {x, x}});
  using V = std::vector<egraph::ClassId>;
  auto sorted = [](V v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  CHECK(log.near(g, 0, 1) == sorted({xy, kx}));
  CHECK(log.near(g, 0, 2) == sorted({xy, kx, g.find(fx), g.find(hy)}));
  CHECK(log.near(g, 0, 3) == sorted({xy, kx, g.find(fx), g.find(hy), g.find(gfx)}));
  CHECK(log.near(g, 1, 3).empty());  // nothing changed in later iterations
}

TEST_CASE("runner: held-first order and skipped repeats build the same e-graph with less work",
          "[egraph][runner]") {
  // By default the runner applies first the matches whose right-hand side exists, then the
  // rest (Scheduling::held_first), and skips a match equal, class by class, to one applied
  // before it (Scheduling::skip_repeats). Against every match applied in the order found:
  // the same classes and nodes at every iteration; the unions first spare nodes that
  // congruence would fold, and skipping spares lookups.
  const std::string text = test::read_file(SCALIFY_SOURCE_DIR "/tests/bench/egg_math.rules");
  const char* expr = "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))";
  auto run = [&](bool held_first, bool skip_repeats) {
    auto s = std::make_unique<Setup>(text);
    s->add(expr);
    egraph::RunOptions options;
    options.limits.iterations = 9;
    options.scheduling.held_first = held_first;
    options.scheduling.skip_repeats = skip_repeats;
    egraph::RunReport report = s->run(options);
    return std::pair(std::move(s), std::move(report));
  };
  const auto [fast, a] = run(true, true);
  const auto [as_found, b] = run(false, false);
  const auto [applying, c] = run(true, false);
  REQUIRE(a.iterations.size() == 9);
  test::check_same_iterations(a, b);
  test::check_same_iterations(a, c);
  CHECK(a.iterations.back().classes_after == 1814);  // egg's count at iteration 10
  CHECK(fast->g.id_count() < as_found->g.id_count());
  // About the same ids: a repeat dropped in the first pass leaves its union to its first
  // copy, applied in the second, which may build a node or two the other order would not.
  CHECK(fast->g.id_count() <= applying->g.id_count() + applying->g.id_count() / 100);
  CHECK(test::total_repeats(a) > 1000);
  CHECK(test::total_repeats(b) == 0);
  CHECK(test::total_repeats(c) == 0);
}
