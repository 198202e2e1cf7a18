// AWS Neuron's RMS norm custom call, evaluated as transformers-neuronx defines it.
#include <cmath>

#include "eval_test_support.h"

using namespace scalify::eval;
using namespace scalify::eval::testing;

TEST_CASE("AwsNeuronRmsNorm: x * rsqrt(mean(x^2, axis) + eps) * weight", "[eval]") {
  const std::string text = module_with(
      "  x = f32[2,2] parameter(0)\n  w = f32[2] parameter(1)\n  e = f32[] parameter(2)\n"
      "  ROOT r = f32[2,2] custom-call(x, w, e), custom_call_target=\"AwsNeuronRmsNorm\", "
      "backend_config=\"1\"");
  const Value r =
      eval_ok(text, {Tensor{{2, 2}, {3, 4, 1, -1}}, Tensor{{2}, {1, 10}}, Tensor::scalar(0.5)});
  // Row 0: mean(9, 16) = 12.5, + 0.5 = 13; row 1: mean(1, 1) = 1, + 0.5 = 1.5.
  const std::vector<double> want = {3 / std::sqrt(13.0), 40 / std::sqrt(13.0), 1 / std::sqrt(1.5),
                                    -10 / std::sqrt(1.5)};
  REQUIRE(r.tensor().data.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(r.tensor().data[i] == Approx(want[i]).epsilon(1e-12));
}

TEST_CASE("AwsNeuronRmsNorm: a bad axis or weight is an error", "[eval]") {
  const std::string bad_axis = module_with(
      "  x = f32[2,2] parameter(0)\n  w = f32[2] parameter(1)\n  e = f32[] parameter(2)\n"
      "  ROOT r = f32[2,2] custom-call(x, w, e), custom_call_target=\"AwsNeuronRmsNorm\", "
      "backend_config=\"2\"");
  CHECK_THAT(
      eval_error(bad_axis, {Tensor{{2, 2}, {1, 2, 3, 4}}, Tensor{{2}, {1, 1}}, Tensor::scalar(0)})
          .message,
      Catch::Contains("backend_config must name an axis"));
  const std::string bad_weight = module_with(
      "  x = f32[2,3] parameter(0)\n  w = f32[2] parameter(1)\n  e = f32[] parameter(2)\n"
      "  ROOT r = f32[2,3] custom-call(x, w, e), custom_call_target=\"AwsNeuronRmsNorm\", "
      "backend_config=\"1\"");
  CHECK_THAT(eval_error(bad_weight, {Tensor{{2, 3}, {1, 2, 3, 4, 5, 6}}, Tensor{{2}, {1, 1}},
                                     Tensor::scalar(0)})
                 .message,
             Catch::Contains("weight must be a vector of 3 elements"));
}
