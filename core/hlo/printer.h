// The HLO text printer: canonical text that read_module reads back to an equal Module.
#pragma once

#include <string>

#include "ir/module.h"

namespace scalify::hlo {

/// The module as HLO text. Operands are printed with their types, attributes in their
/// original order, metadata last.
///
///   std::string text = print_module(m);
///   assert(*read_module(text) == m);
std::string print_module(const ir::Module& module);

/// One instruction's line (without indentation or newline), as print_module writes it.
std::string print_instruction(const ir::Computation& comp, const ir::Instruction& instr);

}  // namespace scalify::hlo
