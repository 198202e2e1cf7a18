// The guided walk: on every gallery example, correct and buggy, the steps cover the derivation
// in order (every fact of the goals' proofs among them), stay short, and the buggy variant's
// walk ends at the divergent node with its reason and source line; and on a hand-made
// derivation, how facts are grouped and what the captions say.
#include "verify/walk.h"

#include <catch2/catch.hpp>

#include "modelgen/gallery.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;
using verify::WalkStep;

namespace {

/// The shape every walk has: "Step k of n: " captions, facts ascending and each covered once,
/// the timeline's fact never going back, the first node of a step one of its facts' nodes.
void check_walk_shape(const verify::CheckResult& r, const std::vector<WalkStep>& walk) {
  REQUIRE(!walk.empty());
  CHECK(walk.size() <= verify::kMaxWalkSteps);
  std::vector<int> covered(r.derivation.size(), 0);
  size_t timeline = 0;
  for (size_t k = 0; k < walk.size(); ++k) {
    const WalkStep& s = walk[k];
    INFO("step " << k + 1 << ": " << s.caption);
    CHECK(s.caption.starts_with("Step " + std::to_string(k + 1) + " of " +
                                std::to_string(walk.size()) + ": "));
    CHECK(std::is_sorted(s.facts.begin(), s.facts.end()));
    for (size_t f : s.facts) {
      REQUIRE(f < r.derivation.size());
      ++covered[f];
    }
    REQUIRE(s.fact < r.derivation.size());
    CHECK(s.fact >= timeline);
    timeline = s.fact;
    if (!s.facts.empty()) CHECK(s.fact >= s.facts.back());
    REQUIRE(!s.nodes.empty());
  }
  for (size_t f = 0; f < covered.size(); ++f) {
    INFO("fact " << f);
    CHECK(covered[f] == 1);
  }
  CHECK(walk.front().kind == WalkStep::Kind::kParameters);
  CHECK(walk.back().fact == r.derivation.size() - 1);  // the pane as the check left it
}

std::vector<size_t> covered_facts(const std::vector<WalkStep>& walk) {
  std::vector<size_t> all;
  for (const WalkStep& s : walk) all.insert(all.end(), s.facts.begin(), s.facts.end());
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

TEST_CASE("guided walk: every gallery example, correct and buggy, walks its derivation",
          "[verify][walk][gallery]") {
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    INFO(e.name);
    auto pair = modelgen::generate_example(e);
    REQUIRE(pair);

    auto correct = verify::check(test::parse_module(pair->correct.ref_hlo),
                                 test::parse_module(pair->correct.dist_hlo), {});
    REQUIRE(correct);
    REQUIRE(correct->verdict == verify::Verdict::kEquivalent);
    const std::vector<WalkStep> walk = verify::guided_walk(*correct);
    check_walk_shape(*correct, walk);
    CHECK(walk.size() >= 5);
    // Every fact of every goal's proof is one the walk stops at.
    const std::vector<size_t> covered = covered_facts(walk);
    for (const verify::Goal& g : correct->goals) {
      REQUIRE(g.fact);
      for (size_t f : verify::proof_closure(correct->derivation, *g.fact)) {
        CHECK(std::binary_search(covered.begin(), covered.end(), f));
      }
    }
    const WalkStep& outputs = walk.back();
    CHECK(outputs.kind == WalkStep::Kind::kOutputs);
    CHECK_THAT(outputs.caption, Catch::Contains("(equivalent)"));
    CHECK_THAT(outputs.caption, Catch::Contains(correct->goals.front().ref));

    auto buggy = verify::check(test::parse_module(pair->buggy.ref_hlo),
                               test::parse_module(pair->buggy.dist_hlo), {});
    REQUIRE(buggy);
    REQUIRE(buggy->verdict == verify::Verdict::kDivergent);
    const verify::Divergence& d = *buggy->divergence;
    const std::vector<WalkStep> bug_walk = verify::guided_walk(*buggy);
    check_walk_shape(*buggy, bug_walk);
    const WalkStep& last = bug_walk.back();
    CHECK(last.kind == WalkStep::Kind::kDivergence);
    REQUIRE(!last.nodes.empty());
    CHECK(last.nodes.front() == d.dist_node);
    if (!d.origin_node.empty()) {
      CHECK(std::find(last.nodes.begin(), last.nodes.end(), d.origin_node) != last.nodes.end());
    }
    CHECK(last.ref_node == d.ref_node);
    CHECK_THAT(last.caption, Catch::Contains("`" + d.dist_node + "`"));
    CHECK_THAT(last.caption, Catch::Contains(d.reason));
    REQUIRE(d.source);
    CHECK_THAT(last.caption,
               Catch::Contains(d.source->file + ":" + std::to_string(d.source->line)));
  }
}

TEST_CASE("guided walk: the Megatron MLP's row-parallel dot and its all-reduce, in words",
          "[verify][walk][gallery]") {
  auto e = modelgen::find_example("mlp-column-row");
  REQUIRE(e);
  auto pair = modelgen::generate_example(**e);
  REQUIRE(pair);
  auto r = verify::check(test::parse_module(pair->correct.ref_hlo),
                         test::parse_module(pair->correct.dist_hlo), {});
  REQUIRE(r);
  const std::vector<WalkStep> walk = verify::guided_walk(*r);
  bool contraction = false, all_reduce = false;
  for (const WalkStep& s : walk) {
    if (s.caption.find("contracts a dimension both operands shard over tp, so each rank holds a "
                       "partial sum of the reference") != std::string::npos) {
      contraction = true;
    }
    if (s.caption.find("sums the partial values over tp: every rank now holds the whole value of "
                       "the reference") != std::string::npos) {
      CHECK(contraction);  // the partial sums come first
      all_reduce = true;
      CHECK(s.kind == WalkStep::Kind::kLayoutChange);
      REQUIRE(!s.nodes.empty());
      CHECK(s.nodes.front().starts_with("all-reduce"));
    }
  }
  CHECK(contraction);
  CHECK(all_reduce);
}

TEST_CASE("guided walk: parameters in one step, copies folded, alike changes explained once",
          "[verify][walk]") {
  verify::CheckResult r;
  r.mesh = *verify::Mesh::parse("tp=2");
  const verify::Layout rep = verify::Layout::replicated(1);
  const verify::Layout col = verify::Layout::on(r.mesh, 0, verify::AxisLayout::shard(1));
  const verify::Layout part =
      verify::Layout::on(r.mesh, 0, verify::AxisLayout::partial(verify::ReduceOp::kSum));
  auto fact = [&](std::string dist, verify::Layout layout, std::string ref, std::string rule,
                  std::vector<size_t> premises) {
    verify::DerivedFact f;
    f.index = r.derivation.size();
    f.dist = std::move(dist);
    f.layout = std::move(layout);
    f.ref = std::move(ref);
    f.rule = std::move(rule);
    f.premises = std::move(premises);
    r.derivation.push_back(std::move(f));
  };
  fact("x", rep, "X", "bijection", {});                               // 0
  fact("w1", col, "W1", "bijection", {});                             // 1
  fact("w2", col, "W2", "bijection", {});                             // 2
  fact("dot.1", col, "dot.10", "factor:dot", {0, 1});                 // 3
  fact("dot.2", col, "dot.11", "factor:dot", {0, 2});                 // 4: alike
  fact("multiply.3", col, "multiply.12", "factor:multiply", {3, 4});  // 5: carried
  fact("dot.4", part, "dot.13", "factor:dot", {5, 1});                // 6
  fact("all-reduce.5", rep, "dot.13", "all-reduce", {6});             // 7
  fact("tuple.6", rep, "dot.13", "tuple", {7});                       // 8: folded
  r.verdict = verify::Verdict::kEquivalent;
  verify::Goal g;
  g.ref = "tuple.14#0";
  g.dist = "tuple.6#0";
  g.proven = true;
  g.layout = rep;
  g.fact = 8;
  r.goals.push_back(g);

  const std::vector<WalkStep> walk = verify::guided_walk(r);
  check_walk_shape(r, walk);
  REQUIRE(walk.size() == 5);
  CHECK(walk[0].facts == std::vector<size_t>{0, 1, 2});
  CHECK_THAT(walk[0].caption, Catch::Contains("`w1` ~ shard(1,tp) of `W1`"));
  CHECK_THAT(walk[0].caption, Catch::Contains("Replicated (rep, every rank holds it whole): `x`"));

  CHECK(walk[1].facts == std::vector<size_t>{3, 4});
  CHECK(walk[1].nodes == std::vector<std::string>{"dot.1", "dot.2"});
  CHECK(walk[1].ref_node == "dot.10");
  CHECK(walk[1].caption ==
        "Step 2 of 5: `dot.1` multiplies a replicated operand by one sharded over tp along a "
        "dimension it keeps (not contracted): each rank holds its own slice of the reference "
        "`dot.10` along dim 1, shard(1,tp). Likewise `dot.2` (of `dot.11`).");

  CHECK(walk[2].facts == std::vector<size_t>{5, 6});
  CHECK(walk[2].nodes.front() == "dot.4");
  CHECK(walk[2].caption ==
        "Step 3 of 5: First, `multiply.3` (shard(1,tp)) follows its operands' layouts: each rank "
        "computes on its own part, no data moves. Then `dot.4` contracts a dimension both "
        "operands shard over tp, so each rank holds a partial sum of the reference `dot.13`: "
        "partial(sum,tp).");

  CHECK(walk[3].facts == std::vector<size_t>{7, 8});
  CHECK(walk[3].fact == 8);
  CHECK(walk[3].caption ==
        "Step 4 of 5: `all-reduce.5` sums the partial values over tp: every rank now holds the "
        "whole value of the reference `dot.13`, rep.");

  CHECK(walk[4].kind == WalkStep::Kind::kOutputs);
  CHECK(walk[4].facts.empty());
  CHECK(walk[4].nodes == std::vector<std::string>{"tuple.6"});
  CHECK(walk[4].caption ==
        "Step 5 of 5: The outputs: `tuple.6#0` holds the reference output `tuple.14#0` as rep. "
        "Every goal is proven: the distributed program computes the reference (equivalent).");
}

TEST_CASE("guided walk: a long derivation is merged down to the bound", "[verify][walk]") {
  verify::CheckResult r;
  r.mesh = *verify::Mesh::parse("tp=2");
  const verify::Layout rep = verify::Layout::replicated(1);
  const verify::Layout part =
      verify::Layout::on(r.mesh, 0, verify::AxisLayout::partial(verify::ReduceOp::kSum));
  verify::DerivedFact x;
  x.dist = "x";
  x.layout = part;
  x.ref = "X";
  x.rule = "bijection";
  r.derivation.push_back(x);
  for (size_t k = 0; k < 60; ++k) {
    verify::DerivedFact f;
    f.index = r.derivation.size();
    f.dist = "all-reduce." + std::to_string(k);
    f.layout = k % 2 ? part : rep;  // alternating: no two neighbours alike
    f.ref = "X";
    f.rule = k % 2 ? "factor:dot" : "all-reduce";
    f.premises = {r.derivation.size() - 1};
    r.derivation.push_back(f);
  }
  verify::Divergence d;
  d.dist_node = "tanh.99";
  d.reason = "operand 0 is partial(sum,tp); `tanh` is not linear";
  r.divergence = d;
  r.verdict = verify::Verdict::kDivergent;
  const std::vector<WalkStep> walk = verify::guided_walk(r);
  check_walk_shape(r, walk);
  CHECK(walk.size() == verify::kMaxWalkSteps);
  CHECK(walk.back().kind == WalkStep::Kind::kDivergence);
  CHECK(walk.back().nodes.front() == "tanh.99");
  CHECK_THAT(walk.back().caption, Catch::Contains("it gets no layout. The reason: operand 0"));
}

TEST_CASE("guided walk: an inconclusive check ends with why it stopped", "[verify][walk]") {
  verify::CheckResult r;
  r.mesh = *verify::Mesh::parse("tp=2");
  verify::DerivedFact x;
  x.dist = "p0.1";
  x.layout = verify::Layout::replicated(1);
  x.ref = "p0.1";
  x.rule = "bijection";
  r.derivation.push_back(x);
  r.stats.stop_reason = "cancelled";
  const std::vector<WalkStep> walk = verify::guided_walk(r);
  check_walk_shape(r, walk);
  REQUIRE(walk.size() == 2);
  CHECK(walk[1].kind == WalkStep::Kind::kStopped);
  CHECK(walk[1].caption ==
        "Step 2 of 2: The check has no verdict (inconclusive): it stopped: cancelled.");
}
