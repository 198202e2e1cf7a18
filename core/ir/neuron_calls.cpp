#include "ir/neuron_calls.h"

#include <charconv>
#include <string>

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

}  // namespace scalify::ir
