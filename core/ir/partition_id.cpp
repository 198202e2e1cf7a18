#include "ir/partition_id.h"

namespace scalify::ir {

bool is_partition_id_parameter(const Instruction& instr) {
  return instr.opcode == Opcode::kParameter && instr.type.is_array() && instr.type.rank() == 0 &&
         is_integer(instr.type.dtype()) &&
         (instr.name.starts_with("partition-id") || instr.name.starts_with("partition_id"));
}

}  // namespace scalify::ir
