#include "ir/neuron_calls.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string>
#include <string_view>

namespace scalify::ir {

std::optional<int64_t> neuron_rms_norm_axis(const Instruction& instr) {
  const auto* target = instr.get<std::string>("custom_call_target");
  const auto* config = instr.get<std::string>("backend_config");
  if (instr.opcode != Opcode::kCustomCall || !target || *target != "AwsNeuronRmsNorm" ||
      instr.operands.size() != 3 || !config || config->empty() || (*config)[0] == '-' ||
      (*config)[0] == '+') {
    return std::nullopt;
  }
  int64_t axis = -1;
  const char* last = config->data() + config->size();
  const auto [end, ec] = std::from_chars(config->data(), last, axis);
  if (ec != std::errc() || end != last || axis < 0 || axis >= instr.type.rank()) {
    return std::nullopt;
  }
  return axis;
}

bool is_neuron_elementwise_call(const Instruction& instr) {
  static constexpr std::array<std::string_view, 3> kTargets = {
      "AwsNeuronGelu", "AwsNeuronGeluApprxTanh", "AwsNeuronGeluBackward"};
  const auto* target = instr.get<std::string>("custom_call_target");
  return instr.opcode == Opcode::kCustomCall && instr.operands.size() == 1 && target &&
         std::find(kTargets.begin(), kTargets.end(), *target) != kTargets.end();
}

}  // namespace scalify::ir
