// Neuron's RMS norm of a transposed or squeezed value: a program that keeps its hidden states
// batch-first ([4,1,8], normalised along dim 2, then transposed) computes what a reference that
// keeps them feature-first ([8,1,4], normalised along dim 0) does, and the proof says so; a norm
// along another dim, or over elements whose order the weights no longer follow, is not equated.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

const std::string kFeatureFirst = R"(HloModule r
ENTRY e {
  x = f32[8,1,4] parameter(0)
  w = f32[8] parameter(1)
  eps = f32[] constant(1e-05)
  n = f32[8,1,4] custom-call(x, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="0"
  ROOT r = f32[8,4] reshape(n)
}
)";

std::string batch_first(const std::string& axis) {
  return R"(HloModule d
ENTRY e {
  x = f32[4,1,8] parameter(0)
  w = f32[8] parameter(1)
  eps = f32[] constant(1e-05)
  n = f32[4,1,8] custom-call(x, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config=")" +
         axis + R"("
  t = f32[8,1,4] transpose(n), dimensions={2,1,0}
  ROOT r = f32[8,4] reshape(t)
}
)";
}

}  // namespace

TEST_CASE("RMS norm of a transposed value: the norm of the value, proven and re-checked",
          "[check][neuron]") {
  const verify::CheckResult r = test::check_texts(batch_first("2"), kFeatureFirst);
  CHECK(r.verdict == Verdict::kEquivalent);
  test::check_proof_accepted(kFeatureFirst, batch_first("2"), r);
}

TEST_CASE("RMS norm along the wrong dim of a transposed value is never equated",
          "[check][neuron]") {
  const verify::CheckResult r = test::check_texts(batch_first("0"), kFeatureFirst);
  CHECK(r.verdict != Verdict::kEquivalent);
}

TEST_CASE("RMS norm over elements the weights no longer follow is never equated",
          "[check][neuron]") {
  // The reference normalises a [6] row; the other program normalises the same six values read
  // in another order (a [2,3] transposed and flattened): the sum of squares agrees, but weight
  // i meets another element.
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[2,3] parameter(0)
  w = f32[6] parameter(1)
  eps = f32[] constant(1e-05)
  f = f32[6] reshape(x)
  ROOT n = f32[6] custom-call(f, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="0"
}
)";
  const std::string dist = R"(HloModule d
ENTRY e {
  x = f32[2,3] parameter(0)
  w = f32[6] parameter(1)
  eps = f32[] constant(1e-05)
  t = f32[3,2] transpose(x), dimensions={1,0}
  f = f32[6] reshape(t)
  n = f32[6] custom-call(f, w, eps), custom_call_target="AwsNeuronRmsNorm", backend_config="0"
  ROOT o = f32[6] copy(n)
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  CHECK(r.verdict != Verdict::kEquivalent);
}
