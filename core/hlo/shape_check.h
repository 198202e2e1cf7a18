// Result-type checks: does an instruction's declared type follow from its opcode and operands?
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"

namespace scalify::hlo {

/// Checks `instr`'s declared result type (and the attributes that determine it) against what
/// XLA's shape inference gives for its opcode and operand types. Returns a message for the user
/// (no position; the reader adds it), or nullopt when the instruction is consistent or its
/// opcode is not checked.
///
///   // %d = f32[8,4] dot(f32[8,16] %a, f32[16,5] %b),
///   //          lhs_contracting_dims={1}, rhs_contracting_dims={0}
///   check_result_type(m, comp, comp[d])
///   // == "dot result should be f32[8,5] but is declared f32[8,4]"
std::optional<std::string> check_result_type(const ir::Module& module, const ir::Computation& comp,
                                             const ir::Instruction& instr);

}  // namespace scalify::hlo
