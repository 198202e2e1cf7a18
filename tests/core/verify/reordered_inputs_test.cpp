// Localisation in a program that holds its values in another order than the reference (hidden
// states batch-first where the reference keeps them feature-first, its matmul written the other
// way round): its intermediate values are views of the reference's, which rewrites show, so a
// wrong epsilon is blamed on the constant and not on the first residual add.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

const std::string kFeatureFirst = R"(HloModule r
ENTRY e {
  x = f32[8,1,4] parameter(0)
  w = f32[8,8] parameter(1)
  g = f32[8] parameter(2)
  xr = f32[8,4] reshape(x)
  h = f32[8,4] dot(w, xr), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  hr = f32[8,1,4] reshape(h)
  s = f32[8,1,4] add(hr, x)
  eps = f32[] constant(1e-05)
  n = f32[8,1,4] custom-call(s, g, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="0"
  ROOT r = f32[8,4] reshape(n)
}
)";

std::string batch_first(const std::string& epsilon) {
  return R"(HloModule d
ENTRY e {
  x = f32[4,1,8] parameter(0)
  w = f32[8,8] parameter(1)
  g = f32[8] parameter(2)
  xr = f32[4,8] reshape(x)
  h = f32[4,8] dot(xr, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  hr = f32[4,1,8] reshape(h)
  s = f32[4,1,8] add(hr, x)
  eps = f32[] constant()" +
         epsilon + R"()
  n = f32[4,1,8] custom-call(s, g, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="2"
  t = f32[8,1,4] transpose(n), dimensions={2,1,0}
  ROOT r = f32[8,4] reshape(t)
}
)";
}

}  // namespace

TEST_CASE("Batch-first program of a feature-first reference: equivalent", "[check][views]") {
  const verify::CheckResult r = test::check_texts(batch_first("1e-05"), kFeatureFirst);
  CHECK(r.verdict == Verdict::kEquivalent);
  test::check_proof_accepted(kFeatureFirst, batch_first("1e-05"), r);
}

TEST_CASE("Batch-first program with a wrong epsilon: blamed on the constant, not the residual",
          "[check][views]") {
  const verify::CheckResult r = test::check_texts(batch_first("1.000015"), kFeatureFirst);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "eps");
  CHECK_THAT(r.divergence->reason, Catch::Contains("a changed constant"));
}
