// The proof checker's rules for the indexing ops (pad, reverse, dynamic-slice,
// dynamic-update-slice, gather) and Neuron's RMS norm on small hand-written pairs: the checker
// proves them, the independent checker accepts the proof, and rejects it with any one fact's layout
// changed.
#include <catch2/catch.hpp>

#include "hlo/printer.h"
#include "proofcheck/proof_check.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

using Outcome = proofcheck::ProofCheckReport::Outcome;

struct Pair {
  const char* name;
  const char* ref;
  const char* dist;
};

// A row window read and written at a replicated offset, the columns sharded.
constexpr Pair kSlices{"dynamic-slice and dynamic-update-slice", R"(HloModule ref
ENTRY e {
  p = f32[8,16] parameter(0)
  i = s32[] parameter(1)
  z = s32[] constant(0)
  d = f32[2,16] dynamic-slice(p, i, z), dynamic_slice_sizes={2,16}
  u = f32[2,16] parameter(2)
  w = f32[8,16] dynamic-update-slice(p, u, i, z)
  ROOT t = (f32[2,16], f32[8,16]) tuple(d, w)
})",
                       R"(HloModule dist, num_partitions=2
ENTRY e {
  p = f32[8,8] parameter(0), sharding={devices=[1,2]0,1}
  i = s32[] parameter(1), sharding={replicated}
  z = s32[] constant(0)
  d = f32[2,8] dynamic-slice(p, i, z), dynamic_slice_sizes={2,8}
  u = f32[2,8] parameter(2), sharding={devices=[1,2]0,1}
  w = f32[8,8] dynamic-update-slice(p, u, i, z)
  ROOT t = (f32[2,8], f32[8,8]) tuple(d, w)
})"};

// An embedding table sharded along the hidden dim, looked up, padded and reversed along tokens.
constexpr Pair kGather{"gather, pad and reverse", R"(HloModule ref
ENTRY e {
  table = f32[100,16] parameter(0)
  ids = s32[4] parameter(1)
  g = f32[4,16] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,16}
  z = f32[] constant(0)
  q = f32[6,16] pad(g, z), padding=1_1x0_0
  ROOT r = f32[6,16] reverse(q), dimensions={0}
})",
                       R"(HloModule dist, num_partitions=2
ENTRY e {
  table = f32[100,8] parameter(0), sharding={devices=[1,2]0,1}
  ids = s32[4] parameter(1), sharding={replicated}
  g = f32[4,8] gather(table, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,8}
  z = f32[] constant(0)
  q = f32[6,8] pad(g, z), padding=1_1x0_0
  ROOT r = f32[6,8] reverse(q), dimensions={0}
})"};

// AWS Neuron's RMS norm along the features, the tokens sharded.
constexpr Pair kRmsNorm{"AwsNeuronRmsNorm", R"(HloModule ref
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8] parameter(1)
  eps = f32[] constant(1e-06)
  ROOT n = f32[4,8] custom-call(x, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="1"
})",
                        R"(HloModule dist, num_partitions=2
ENTRY e {
  x = f32[2,8] parameter(0), sharding={devices=[2,1]0,1}
  w = f32[8] parameter(1), sharding={replicated}
  eps = f32[] constant(1e-06)
  ROOT n = f32[2,8] custom-call(x, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="1"
})"};

proofcheck::ProofFile proof_of(const Pair& pair) {
  const ir::Module ref = test::parse_module(pair.ref, "ref.hlo");
  const ir::Module dist = test::parse_module(pair.dist, "dist.hlo");
  auto result = verify::check(ref, dist, {});
  REQUIRE(result);
  REQUIRE(result->verdict == verify::Verdict::kEquivalent);
  return {"ref.hlo", hlo::print_module(ref), "dist.hlo", hlo::print_module(dist), *result};
}

Outcome outcome_of(const proofcheck::ProofFile& proof, std::string* why = nullptr) {
  auto report = proofcheck::check_proof(proof);
  REQUIRE(report);
  if (why) *why = report->why;
  return report->outcome;
}

TEST_CASE("proof check: indexing ops of sharded values", "[proofcheck]") {
  for (const Pair& pair : {kSlices, kGather, kRmsNorm}) {
    INFO(pair.name);
    const proofcheck::ProofFile proof = proof_of(pair);
    std::string why;
    CHECK(outcome_of(proof, &why) == Outcome::kAccepted);
    INFO(why);
    // Any one fact claimed replicated instead (or partial, if it was), and nothing else
    // changed: rejected.
    for (size_t i = 0; i < proof.result.derivation.size(); ++i) {
      proofcheck::ProofFile tampered = proof;
      verify::DerivedFact& f = tampered.result.derivation[i];
      if (f.rule == "bijection") continue;  // the contract itself, changed with its entry below
      f.layout = f.layout.is_rep()
                     ? verify::Layout::on(tampered.result.mesh, 0,
                                          verify::AxisLayout::partial(verify::ReduceOp::kSum))
                     : verify::Layout::replicated(tampered.result.mesh.rank());
      for (verify::Goal& g : tampered.result.goals) {
        if (g.fact == i) g.layout = f.layout;
      }
      INFO("fact [" << i << "] " << f.dist << " " << f.rule);
      CHECK(outcome_of(tampered) == Outcome::kRejected);
    }
  }
}

TEST_CASE("check: a dynamic-update-slice along the sharded dim is not proven", "[verify]") {
  // The rows sharded, and each rank writes the update rows at the same offset into its own
  // rows: not the reference's single write.
  const ir::Module ref = test::parse_module(R"(HloModule ref
ENTRY e {
  p = f32[8,4] parameter(0)
  u = f32[2,4] parameter(1)
  i = s32[] parameter(2)
  z = s32[] constant(0)
  ROOT w = f32[8,4] dynamic-update-slice(p, u, i, z)
})");
  const ir::Module dist = test::parse_module(R"(HloModule dist, num_partitions=2
ENTRY e {
  p = f32[4,4] parameter(0), sharding={devices=[2,1]0,1}
  u = f32[2,4] parameter(1), sharding={replicated}
  i = s32[] parameter(2), sharding={replicated}
  z = s32[] constant(0)
  ROOT w = f32[4,4] dynamic-update-slice(p, u, i, z)
})");
  auto result = verify::check(ref, dist, {});
  REQUIRE(result);
  CHECK(result->verdict != verify::Verdict::kEquivalent);
}

}  // namespace
}  // namespace scalify
