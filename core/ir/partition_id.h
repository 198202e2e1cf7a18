// Where a program reads its device's partition id besides the `partition-id` op.
#pragma once

#include "ir/module.h"

namespace scalify::ir {

/// Whether `instr` is a parameter holding the device's partition id: an integer scalar
/// parameter named `partition-id…` or `partition_id…`. torch-xla on Neuron passes the id as an
/// input (`%partition-id.2 = u32[] parameter(7)`) rather than writing the `partition-id` op.
///
///   // %partition-id.2 = u32[] parameter(7)   -> true
///   // %p3.4 = s32[] parameter(3)             -> false
bool is_partition_id_parameter(const Instruction& instr);

}  // namespace scalify::ir
