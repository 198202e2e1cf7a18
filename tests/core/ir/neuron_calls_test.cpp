// AWS Neuron's RMS norm axis, read in one place: a decimal axis of the result, anything else
// (a malformed, negative, huge or out-of-range axis; another target; another op) none. A huge
// axis once escaped as an exception from the checker.
#include "ir/neuron_calls.h"

#include <catch2/catch.hpp>
#include <string>

#include "test_support.h"

using namespace scalify;

namespace {

ir::Module norm(const std::string& config, const std::string& target = "AwsNeuronRmsNorm") {
  return test::parse_module(
      "HloModule m\nENTRY e {\n  x = f32[4,8] parameter(0)\n  w = f32[8] parameter(1)\n"
      "  eps = f32[] constant(1e-06)\n  ROOT n = f32[4,8] custom-call(x, w, eps), "
      "custom_call_target=\"" +
      target + "\", backend_config=\"" + config + "\"\n}\n");
}

std::optional<int64_t> axis_of(const ir::Module& m) {
  return ir::neuron_rms_norm_axis(m.entry()[m.entry().root]);
}

}  // namespace

TEST_CASE("neuron_rms_norm_axis: a decimal axis of the result, else none", "[ir]") {
  CHECK(axis_of(norm("1")) == 1);
  CHECK(axis_of(norm("0")) == 0);
  for (const char* bad : {"2", "-1", "+1", "1x", "", "99999999999999999999"}) {
    INFO(bad);
    CHECK_FALSE(axis_of(norm(bad)));
  }
  CHECK_FALSE(axis_of(norm("1", "AwsNeuronGelu")));
  const ir::Module m = norm("1");
  CHECK_FALSE(ir::neuron_rms_norm_axis(m.entry()[0]));  // a parameter
}
