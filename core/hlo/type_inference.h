// Result types of instructions written without one (`%t = tuple(%a, %b)`), as XLA's reader
// infers them.
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"

namespace scalify::hlo {

/// The type `instr` has when its text leaves it out, from its operands' types (and for call,
/// while and conditional, the called computations). Ops whose result needs more than that
/// (reshape, broadcast, dot, …) cannot be inferred: nullopt, with the reason in `why`.
///
///   // %t = tuple(f32[2] %a, s32[] %b)
///   infer_result_type(m, comp, comp[t], &why) == Type::tuple({f32[2], s32[]})
std::optional<ir::Type> infer_result_type(const ir::Module& module, const ir::Computation& comp,
                                          const ir::Instruction& instr, std::string* why);

}  // namespace scalify::hlo
