// AWS Neuron's custom calls, as far as the IR can tell what they are: the one place that reads
// their configuration (the interpreter, the checker and the proof checker all ask here).
#pragma once

#include <cstdint>
#include <optional>

#include "ir/module.h"

namespace scalify::ir {

/// The axis of an `AwsNeuronRmsNorm` custom call (operands x, weight, epsilon; backend_config
/// the axis as decimal digits), when `instr` is one and the axis is a dim of its result;
/// nullopt otherwise (another op, a missing, malformed or out-of-range axis).
///
///   // %n = f32[4,8] custom-call(%x, %w, %e), custom_call_target="AwsNeuronRmsNorm",
///   //        backend_config="1"
///   neuron_rms_norm_axis(n) == 1
std::optional<int64_t> neuron_rms_norm_axis(const Instruction& instr);

/// Whether `instr` is one of Neuron's elementwise, non-linear activation calls on one operand:
/// `AwsNeuronGelu`, `AwsNeuronGeluApprxTanh` (GELU's tanh approximation) and
/// `AwsNeuronGeluBackward` (GELU's derivative). Their values are not modelled; what matters is
/// that element i of the result depends on element i of the operand only, so each shard of
/// the operand gives the same shard of the result (callers check that the shapes agree).
///
///   // %g = f32[4,1536] custom-call(f32[4,1536] %h), custom_call_target="AwsNeuronGelu"
///   is_neuron_elementwise_call(g) == true
bool is_neuron_elementwise_call(const Instruction& instr);

}  // namespace scalify::ir
