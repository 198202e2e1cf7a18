// Shared by the propagation files: the collectives' semantics and the message helpers.
#pragma once

#include <string>
#include <variant>

#include "verify/propagation.h"

namespace scalify::verify::detail {

/// `opcode_text` in backquotes, for messages.
std::string quoted(const ir::Instruction& instr);
/// The collectives (all-reduce, all-gather, reduce-scatter, collective-permute, all-to-all and
/// their start/done forms): nullopt when `instr` is not one.
std::optional<std::variant<Lift, NoLift>> lift_collective(const ir::Module& module,
                                                          const ir::Instruction& instr,
                                                          std::span<const OperandView> operands,
                                                          const Mesh& mesh);

}  // namespace scalify::verify::detail
