// The saturation memo: a check that finds its very e-graph saturated already ends exactly as the
// check that saturated it, and a state that differs in anything saturation reads misses.
#include "verify/saturation_memo.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "support/hlo_mutations.h"
#include "test_support.h"
#include "verify/bijection.h"
#include "verify/binding_search.h"
#include "verify/checker.h"
#include "verify/output_alignment.h"

using namespace scalify;

namespace {

ir::Module read(const std::string& name) {
  auto m = hlo::read_module_file(test::corpus_dir() + "/neuron_torchxla/" + name);
  REQUIRE(m);
  return std::move(*m);
}

ir::Module mutant(const ir::Module& dist, test::MutationKind kind, const std::string& node) {
  for (const auto& site : test::mutation_sites(dist, kind)) {
    if (site.node != node) continue;
    auto m = test::apply_mutation(dist, site);
    REQUIRE(m);
    return std::move(m->module);
  }
  FAIL("no mutation site at " << node);
  return dist;
}

std::vector<verify::ParamBinding> best_bindings(const ir::Module& ref, const ir::Module& dist,
                                                const verify::Mesh& mesh) {
  return verify::best_bindings(verify::infer_bijection(ref, dist, mesh));
}

/// What a check concluded, in one line per part, to compare two checks.
std::string summary(const verify::CheckResult& r) {
  std::string s = std::string(verify::verdict_name(r.verdict)) + "\n";
  if (r.divergence) s += r.divergence->dist_node + ": " + r.divergence->reason + "\n";
  s += std::to_string(r.stats.enodes) + " e-nodes, " + std::to_string(r.stats.eclasses) +
       " e-classes, " + std::to_string(r.stats.iterations) + " iterations, " + r.stats.stop_reason +
       "\n";
  for (const auto& g : r.goals) s += g.ref + (g.proven ? " proven\n" : " open\n");
  for (const auto& n : r.notes) s += n + "\n";
  for (const auto& m : r.matches) s += m.dist + "~" + m.ref + " ";
  return s;
}

}  // namespace

TEST_CASE(
    "a check that finds its e-graph saturated in the memo ends as the check that saturated it",
    "[verify][memo]") {
  // LLaMA tp2 with a subtract's operands swapped: divergent, so saturation runs to the
  // iteration limit (the cost the memo saves a binding search's trials).
  const ir::Module ref = read("llama7b_1layer_decode_tp1.hlo");
  const ir::Module tp2 = read("llama7b_1layer_decode_tp2.hlo");
  const ir::Module dist = mutant(tp2, test::MutationKind::kSwapOperands, "subtract.82");
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  const auto bindings = best_bindings(ref, dist, mesh);
  const auto outputs = verify::infer_output_bindings(ref, dist, mesh);

  const verify::CheckResult alone = verify::check_under(ref, dist, mesh, bindings, {}, outputs);
  REQUIRE(alone.verdict == verify::Verdict::kDivergent);
  REQUIRE(alone.stats.iterations > 0);

  verify::SaturationMemo memo;
  const verify::CheckResult first =
      verify::check_under(ref, dist, mesh, bindings, {}, outputs, &memo);
  CHECK(memo.hits() == 0);
  const verify::CheckResult second =
      verify::check_under(ref, dist, mesh, bindings, {}, outputs, &memo);
  CHECK(memo.hits() == 1);
  CHECK(summary(first) == summary(alone));
  CHECK(summary(second) == summary(alone));

  SECTION("another program misses") {
    const ir::Module other = mutant(tp2, test::MutationKind::kSwapOperands, "compare.15");
    const verify::CheckResult r =
        verify::check_under(ref, other, mesh, best_bindings(ref, other, mesh), {}, outputs, &memo);
    CHECK(r.verdict == verify::Verdict::kDivergent);
    CHECK(r.stats.iterations > 0);  // it saturated: a miss
    CHECK(memo.hits() == 1);
  }
  SECTION("other limits miss") {
    verify::CheckOptions fewer;
    fewer.iteration_limit = 6;
    const verify::CheckResult r =
        verify::check_under(ref, dist, mesh, bindings, fewer, outputs, &memo);
    CHECK(memo.hits() == 1);
    CHECK(r.stats.iterations < alone.stats.iterations);
  }
}

TEST_CASE("the saturation state tells apart e-graphs whose ids mean other things",
          "[verify][memo]") {
  // exponential(x) and log(x), each its vocabulary's second symbol: the same ids, other terms.
  auto state = [](const char* op) {
    egraph::Vocabulary vocab;
    const egraph::Symbol x = vocab.symbol("x"), f = vocab.symbol(op);
    verify::TypeTable types;
    const egraph::TypeId f32 = types.intern(ir::Type::array(ir::DType::kF32, {4}));
    egraph::EGraph g;
    g.add({f, 0, {g.add({x, 0, {}}, f32)}}, f32);
    g.rebuild();
    return verify::saturation_state(g, vocab, types);
  };
  CHECK(state("exponential") == state("exponential"));
  CHECK(state("exponential") != state("log"));
}

namespace {

/// LLaMA tp2 with its best bindings, and with one parameter moved to its next candidate (a
/// loader's partial(sum) contract the program does not meet): a check of those diverges where
/// that parameter is first used, early in the program.
struct MovedParameter {
  ir::Module ref = read("llama7b_1layer_decode_tp1.hlo");
  ir::Module dist = read("llama7b_1layer_decode_tp2.hlo");
  verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  std::vector<verify::OutputBinding> outputs = verify::infer_output_bindings(ref, dist, mesh);
  verify::BijectionCandidates candidates = verify::infer_bijection(ref, dist, mesh);
  std::vector<verify::ParamBinding> best = verify::best_bindings(candidates), moved = best;

  MovedParameter() {
    const auto p = std::find_if(candidates.parameters.begin(), candidates.parameters.end(),
                                [](const auto& c) { return c.candidates.size() > 1; });
    REQUIRE(p != candidates.parameters.end());
    moved[static_cast<size_t>(p - candidates.parameters.begin())] = verify::binding_of(*p, 1);
  }
  verify::CheckResult check(const std::vector<verify::ParamBinding>& bindings,
                            const verify::CheckOptions& options = {},
                            verify::SaturationMemo* memo = nullptr) const {
    return verify::check_under(ref, dist, mesh, bindings, options, outputs, memo);
  }
};

}  // namespace

TEST_CASE("checks of a search encode the reference once and end as checks alone",
          "[verify][memo]") {
  const MovedParameter b;

  const verify::CheckResult moved_alone = b.check(b.moved);
  const verify::CheckResult best_alone = b.check(b.best);
  REQUIRE(moved_alone.verdict == verify::Verdict::kDivergent);
  REQUIRE(best_alone.verdict == verify::Verdict::kEquivalent);

  // The first check encodes the reference; the second starts from its encoding.
  verify::SaturationMemo memo;
  const verify::CheckResult moved = b.check(b.moved, {}, &memo);
  const verify::CheckResult best = b.check(b.best, {}, &memo);
  CHECK(summary(moved) == summary(moved_alone));
  CHECK(summary(best) == summary(best_alone));
  CHECK(best.bijection.size() == best_alone.bijection.size());

  SECTION("another reference is encoded anew") {
    const ir::Module copy = b.ref;  // the same text, another module: not taken for the first
    const verify::CheckResult r =
        verify::check_under(copy, b.dist, b.mesh, b.best, {}, b.outputs, &memo);
    CHECK(summary(r) == summary(best_alone));
  }
}

TEST_CASE("a trial that diverges before the check it is measured against stops there",
          "[verify][memo]") {
  const MovedParameter b;
  const verify::CheckResult full = b.check(b.moved);
  REQUIRE(full.verdict == verify::Verdict::kDivergent);
  REQUIRE(full.divergence);
  REQUIRE_FALSE(full.divergence->by_value);
  REQUIRE_FALSE(full.goals.empty());
  const auto order = b.dist.entry().topological_order();
  REQUIRE(order);
  const auto at = static_cast<size_t>(
      std::find(order->begin(), order->end(), *b.dist.entry().find(full.divergence->dist_node)) -
      order->begin());

  // Measured against a check that got further: it stops at the same node, for its reason,
  // with no goal decided and nothing saturated.
  verify::CheckOptions trial;
  trial.give_up_before = at + 1;
  const verify::CheckResult stopped = b.check(b.moved, trial);
  CHECK(stopped.verdict == verify::Verdict::kDivergent);
  REQUIRE(stopped.divergence);
  CHECK(stopped.divergence->dist_node == full.divergence->dist_node);
  // (The full check then traces a partial sum back to where it begins.)
  CHECK_THAT(full.divergence->reason, Catch::StartsWith(stopped.divergence->reason));
  CHECK(stopped.goals.empty());
  CHECK(stopped.stats.iterations == 0);

  // Measured against a check that diverged there or earlier: it runs in full.
  trial.give_up_before = at;
  CHECK(summary(b.check(b.moved, trial)) == summary(full));
}
