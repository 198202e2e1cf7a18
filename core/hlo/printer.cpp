#include "hlo/printer.h"

namespace scalify::hlo {
namespace {

void append_attrs(std::string& out, const std::vector<ir::Attribute>& attrs) {
  for (const ir::Attribute& a : attrs) {
    out += ", ";
    out += a.key;
    out += '=';
    out += ir::attr_value_to_string(a.value);
  }
}

void append_instruction(std::string& out, const ir::Computation& comp,
                        const ir::Instruction& instr) {
  out += '%';
  out += instr.name;
  out += " = ";
  instr.type.append_to(out);
  out += ' ';
  if (instr.async_wrapped) {
    out += instr.opcode_text();
  } else {
    out += ir::opcode_name(instr.opcode);
  }
  out += '(';
  if (instr.opcode == ir::Opcode::kParameter) {
    out += std::to_string(instr.parameter_number);
  } else if (instr.opcode == ir::Opcode::kConstant) {
    out += instr.literal;
  } else {
    for (size_t i = 0; i < instr.operands.size(); ++i) {
      if (i) out += ", ";
      const ir::Instruction& operand = comp[instr.operands[i]];
      operand.type.append_to(out);
      out += " %";
      out += operand.name;
    }
  }
  out += ')';
  append_attrs(out, instr.attrs);
  if (!instr.metadata.empty()) {
    out += ", metadata=";
    out += instr.metadata.to_string();
  }
}

void append_computation(std::string& out, const ir::Computation& comp) {
  if (comp.is_entry) out += "ENTRY ";
  out += '%';
  out += comp.name;
  out += " (";
  const std::vector<ir::InstrId> params = comp.parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    if (i) out += ", ";
    out += comp[params[i]].name;
    out += ": ";
    comp[params[i]].type.append_to(out);
  }
  out += ") -> ";
  comp[comp.root].type.append_to(out);
  out += " {\n";
  for (size_t i = 0; i < comp.size(); ++i) {
    out += static_cast<ir::InstrId>(i) == comp.root ? "  ROOT " : "  ";
    append_instruction(out, comp, comp.instructions[i]);
    out += '\n';
  }
  // After the body, as XLA prints them: before it, a bare value would run into the '{'.
  out += '}';
  append_attrs(out, comp.attrs);
  out += '\n';
}

}  // namespace

std::string print_instruction(const ir::Computation& comp, const ir::Instruction& instr) {
  std::string out;
  append_instruction(out, comp, instr);
  return out;
}

std::string print_module(const ir::Module& module) {
  std::string out = "HloModule " + module.name;
  append_attrs(out, module.attrs);
  out += "\n";
  for (const ir::Computation& comp : module.computations) {
    out += '\n';
    append_computation(out, comp);
  }
  return out;
}

}  // namespace scalify::hlo
