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
