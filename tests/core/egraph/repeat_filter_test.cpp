// Repeats: a match equal, class by class, to one its rule applied earlier in the same pass
// changes nothing, and the runner skips it. The cache that spots them must never call a new
// row a repeat, and the runner must skip only where that is safe. (That skipping leaves the
// e-graph exactly as applying would: semi_naive_test.cpp.)
#include "egraph/repeat_filter.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "runner_setup.h"
#include "test_support.h"

using namespace scalify;

TEST_CASE("repeat filter: a row seen since start() is a repeat, any other row is not",
          "[egraph][runner]") {
  egraph::RepeatFilter seen;
  seen.start(10);
  const uint32_t a[] = {3, 5, 9}, b[] = {3, 5, 8};
  CHECK(seen.insert(a));
  CHECK(seen.insert(b));
  CHECK_FALSE(seen.insert(a));
  CHECK_FALSE(seen.insert(b));
  seen.start(10);  // the next rule's pass
  CHECK(seen.insert(a));

  // A small cache forgets rows, but never reports one it was not given.
  seen.start(64);
  for (uint32_t i = 0; i < 100'000; ++i) {
    const uint32_t row[] = {i, i / 7, 1};
    REQUIRE(seen.insert(row));
  }
  // The row just recorded is remembered.
  const uint32_t last[] = {99'999, 99'999 / 7, 1};
  CHECK_FALSE(seen.insert(last));

  // Rows wider than a slot are never reported.
  const std::vector<uint32_t> wide(egraph::RepeatFilter::kMaxWidth + 1, 4);
  CHECK(seen.insert(wide));
  CHECK(seen.insert(wide));
}

TEST_CASE("runner: repeats are applied for proofs and for actions that are not idempotent",
          "[egraph][runner]") {
  const std::string text = test::read_file(SCALIFY_SOURCE_DIR "/tests/bench/egg_math.rules");
  const char* expr = "(+ (* y (+ x y)) (- (+ x 2) (+ x x)))";
  egraph::RunOptions options;
  options.limits.iterations = 6;

  // Explanations cite every match a union came from.
  test::RunnerSetup explained(text);
  explained.g = egraph::EGraph(/*explanations=*/true);
  explained.g.set_constant_folding(rules::arithmetic_folding(explained.vocab));
  explained.add(expr);
  const egraph::RunReport proofs = explained.run(options);
  CHECK(test::total_repeats(proofs) == 0);

  // An action that may do something new for an equal match.
  test::RunnerSetup opaque(text);
  for (egraph::Rule& r : opaque.compiled.rules) r.idempotent = false;
  opaque.add(expr);
  const egraph::RunReport all = opaque.run(options);
  CHECK(test::total_repeats(all) == 0);

  // The same run with idempotent rewrites does skip some.
  test::RunnerSetup plain(text);
  plain.add(expr);
  const egraph::RunReport some = plain.run(options);
  CHECK(test::total_repeats(some) > 0);
  CHECK(some.iterations.back().classes_after == all.iterations.back().classes_after);
}
