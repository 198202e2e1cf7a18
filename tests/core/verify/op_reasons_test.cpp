// Reasons that name an op: a rounding the reference does not make (a value summed in bf16 on
// its way through a collective, the classic cause of "slightly wrong numbers"), an op changed
// into another, an op dropped.
#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "support/hlo_mutations.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

namespace {

std::string corpus(const std::string& name) {
  return test::read_file(test::corpus_dir() + "/neuron_torchxla/" + name);
}

/// `text` with `from` (which must occur) replaced by `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

verify::CheckResult check(const std::string& ref, const std::string& dist) {
  auto r =
      verify::check(test::parse_module(ref, "ref.hlo"), test::parse_module(dist, "dist.hlo"), {});
  REQUIRE(r);
  return std::move(*r);
}

}  // namespace

TEST_CASE("an all-reduce done in bf16 is found at the rounding, named a precision change",
          "[verify][reasons]") {
  // LLaMA-7B tp8 (corpus) with its first all-reduce in bf16: converted down, summed, converted
  // back. The reference sums in f32.
  std::string dist = corpus("llama7b_1layer_decode_tp8.hlo");
  dist = edited(dist,
                "%all-reduce.168.Reducer.173 (p0.170: f32[], p1.171: f32[]) -> f32[] {\n"
                "  %p0.170 = f32[] parameter(0)\n"
                "  %p1.171 = f32[] parameter(1)\n"
                "  ROOT %add.172 = f32[] add(f32[] %p0.170, f32[] %p1.171)",
                "%all-reduce.168.Reducer.173 (p0.170: bf16[], p1.171: bf16[]) -> bf16[] {\n"
                "  %p0.170 = bf16[] parameter(0)\n"
                "  %p1.171 = bf16[] parameter(1)\n"
                "  ROOT %add.172 = bf16[] add(bf16[] %p0.170, bf16[] %p1.171)");
  dist = edited(dist,
                "%all-reduce.168 = f32[4096,1,4]{2,1,0} all-reduce(f32[4096,1,4]{2,1,0} "
                "%reshape.167)",
                "%low = bf16[4096,1,4]{2,1,0} convert(f32[4096,1,4]{2,1,0} %reshape.167)\n"
                "  %low.sum = bf16[4096,1,4]{2,1,0} all-reduce(bf16[4096,1,4]{2,1,0} %low)");
  dist = edited(dist, "replica_groups={{0,1,2,3,4,5,6,7}}, to_apply=%all-reduce.168.Reducer.173",
                "replica_groups={{0,1,2,3,4,5,6,7}}, to_apply=%all-reduce.168.Reducer.173\n"
                "  %all-reduce.168 = f32[4096,1,4]{2,1,0} convert(bf16[4096,1,4]{2,1,0} "
                "%low.sum)");
  const auto r = check(corpus("llama7b_1layer_decode_tp1.hlo"), dist);
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "low");
  CHECK_THAT(r.divergence->reason, Catch::Contains("kept as f32 in the reference") &&
                                       Catch::Contains("`convert` to bf16") &&
                                       Catch::Contains("precision change"));
}

namespace {

/// GPT-2 tp2 (corpus) with one mutation at `node`, checked against GPT-2 tp1.
verify::CheckResult check_gpt2_mutant(test::MutationKind kind, const std::string& node) {
  const ir::Module dist = test::parse_module(corpus("gpt2_decode_tp2.hlo"), "gpt2_decode_tp2.hlo");
  for (const auto& site : test::mutation_sites(dist, kind)) {
    if (site.node != node) continue;
    const auto mutant = test::apply_mutation(dist, site);
    REQUIRE(mutant);
    auto r = verify::check(test::parse_module(corpus("gpt2_decode_tp1.hlo"), "gpt2_decode_tp1.hlo"),
                           mutant->module, {});
    REQUIRE(r);
    return std::move(*r);
  }
  FAIL("no mutation site at " << node);
  return {};
}

}  // namespace

TEST_CASE("an op changed into another names the op the reference applies to the same values",
          "[verify][reasons]") {
  const auto r = check_gpt2_mutant(test::MutationKind::kChangeOpcode, "exponential.126");
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "exponential.126");
  CHECK_THAT(
      r.divergence->reason,
      Catch::Contains("`tanh` of them computes a value the reference never computes") &&
          Catch::Contains("the reference applies `exponential` to them ('exponential.126')"));
}

TEST_CASE("an op dropped is named where its user reads the value before it", "[verify][reasons]") {
  // The bias add after a dot dropped: the reshape after it reads the dot's value.
  const auto r = check_gpt2_mutant(test::MutationKind::kDropOp, "add.76");
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "reshape.83");
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("the reference's 'reshape.83' reads 'add.76' there, which `add` "
                             "computes from the 'dot.74' read here: that `add` is missing"));
}
