// Neuron's GELU custom calls (`AwsNeuronGelu`, `AwsNeuronGeluApprxTanh`, `AwsNeuronGeluBackward`)
// are elementwise: a Megatron MLP whose activation is one of them is proven on its column
// shards, and the activation of a partial sum (an all-reduce dropped upstream) is a divergence.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

std::string mlp_ref(const std::string& target) {
  return R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w1 = f32[8,6] parameter(1)
  w2 = f32[6,8] parameter(2)
  h = f32[4,6] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[4,6] custom-call(h), custom_call_target=")" +
         target + R"("
  ROOT y = f32[4,8] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
}

/// The same MLP on 2 ranks: w1 split by columns, w2 by rows, one all-reduce at the end.
std::string mlp_dist(const std::string& target) {
  return "HloModule d\n" + test::kSumComputation + R"(
ENTRY e {
  x = f32[4,8] parameter(0)
  w1 = f32[8,3] parameter(1)
  w2 = f32[3,8] parameter(2)
  h = f32[4,3] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[4,3] custom-call(h), custom_call_target=")" +
         target + R"("
  p = f32[4,8] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT y = f32[4,8] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
}
)";
}

/// A wrong split: x by columns and w1 by rows, so h is a partial sum, activated before the
/// all-reduce (which sums activated parts: wrong for a non-linear activation).
std::string activated_partial(const std::string& target) {
  return "HloModule d\n" + test::kSumComputation + R"(
ENTRY e {
  x = f32[4,4] parameter(0)
  w1 = f32[4,6] parameter(1)
  w2 = f32[6,8] parameter(2)
  h = f32[4,6] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[4,6] custom-call(h), custom_call_target=")" +
         target + R"("
  p = f32[4,8] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT y = f32[4,8] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
}
)";
}

}  // namespace

TEST_CASE("Neuron GELU calls are elementwise: a Megatron MLP around each is proven",
          "[check][neuron]") {
  for (const std::string target :
       {"AwsNeuronGelu", "AwsNeuronGeluApprxTanh", "AwsNeuronGeluBackward"}) {
    INFO(target);
    const verify::CheckResult r = test::check_texts(mlp_dist(target), mlp_ref(target));
    CHECK(r.verdict == Verdict::kEquivalent);
    test::check_proof_accepted(mlp_ref(target), mlp_dist(target), r);
  }
}

TEST_CASE("Neuron GELU calls are not linear: activating a partial sum is a divergence",
          "[check][neuron]") {
  for (const std::string target :
       {"AwsNeuronGelu", "AwsNeuronGeluApprxTanh", "AwsNeuronGeluBackward"}) {
    INFO(target);
    const verify::CheckResult r = test::check_texts(activated_partial(target), mlp_ref(target));
    CHECK(r.verdict == Verdict::kDivergent);
    REQUIRE(r.divergence);
    CHECK(r.divergence->dist_node == "g");
    CHECK_THAT(r.divergence->reason, Catch::Contains("partial(sum,tp)") &&
                                         Catch::Contains("not linear") &&
                                         Catch::Contains("all-reduce is missing"));
  }
}

TEST_CASE("An unknown custom call on shards leaves the check inconclusive, never proven",
          "[check][neuron]") {
  const verify::CheckResult r =
      test::check_texts(mlp_dist("AwsNeuronSomethingElse"), mlp_ref("AwsNeuronSomethingElse"));
  CHECK(r.verdict == Verdict::kInconclusive);
  CHECK(test::noted(r, "has no known semantics"));
}

TEST_CASE(
    "A bias held by one rank that only an unknown call keeps from proving: told beside the "
    "divergence",
    "[check][neuron]") {
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w1 = f32[8,6] parameter(1)
  b = f32[6] parameter(2)
  w2 = f32[6,8] parameter(3)
  h = f32[4,6] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,6] broadcast(b), dimensions={1}
  hb = f32[4,6] add(h, bb)
  d = f32[4,8] dot(hb, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT u = f32[4,8] custom-call(d), custom_call_target="SomeonesKernel"
}
)";
  // Row-parallel: h is a partial sum, and the bias is added before the all-reduce (right only
  // if one rank holds it); then a column-parallel dot feeds a call nobody models.
  const std::string dist = "HloModule d\n" + test::kSumComputation + R"(
ENTRY e {
  x = f32[4,4] parameter(0)
  w1 = f32[4,6] parameter(1)
  b = f32[6] parameter(2)
  w2 = f32[6,4] parameter(3)
  h = f32[4,6] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,6] broadcast(b), dimensions={1}
  hb = f32[4,6] add(h, bb)
  ar = f32[4,6] all-reduce(hb), replica_groups={{0,1}}, to_apply=sum
  d = f32[4,4] dot(ar, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT u = f32[4,4] custom-call(d), custom_call_target="SomeonesKernel"
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  CHECK(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "hb");
  CHECK(test::noted(r, "with b as partial(sum,tp) ('b' must be held by one rank of tp only"));
  CHECK(test::noted(r, "the check gets past hb, then could not follow u (`custom-call`)"));
}
