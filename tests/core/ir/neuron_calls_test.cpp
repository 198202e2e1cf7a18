// AWS Neuron's custom calls as the IR reads them. The RMS norm axis, read in one place: a
// decimal axis of the result, anything else (a malformed, negative, huge or out-of-range axis;
// another target; another op) none; a huge axis once escaped as an exception from the checker.
// The GELU calls: elementwise on their one operand.
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

TEST_CASE("is_neuron_elementwise_call: the GELU calls on one operand, nothing else", "[ir]") {
  auto call = [](const std::string& target, const std::string& operands = "x") {
    const ir::Module m = test::parse_module(
        "HloModule m\nENTRY e {\n  x = f32[4,8] parameter(0)\n  y = f32[4,8] parameter(1)\n"
        "  ROOT g = f32[4,8] custom-call(" +
        operands + "), custom_call_target=\"" + target + "\"\n}\n");
    return ir::is_neuron_elementwise_call(m.entry()[m.entry().root]);
  };
  CHECK(call("AwsNeuronGelu"));
  CHECK(call("AwsNeuronGeluApprxTanh"));
  CHECK(call("AwsNeuronGeluBackward"));
  CHECK_FALSE(call("AwsNeuronGelu", "x, y"));  // two operands: not the call we know
  CHECK_FALSE(call("AwsNeuronRmsNorm"));
  CHECK_FALSE(call("AwsNeuronGeluX"));
}
