#include "ir/opcode.h"

#include <array>

#include "support/name_table.h"

namespace scalify::ir {
namespace {

constexpr size_t kCount = static_cast<size_t>(Opcode::kXor) + 1;

constexpr std::array<std::string_view, kCount> kNames = {
#define SCALIFY_OPCODE_NAME(e, s, f) s,
    SCALIFY_OPCODES(SCALIFY_OPCODE_NAME)
#undef SCALIFY_OPCODE_NAME
};

constexpr std::array<OpcodeFamily, kCount> kFamilies = {
#define SCALIFY_OPCODE_FAMILY(e, s, f) OpcodeFamily::f,
    SCALIFY_OPCODES(SCALIFY_OPCODE_FAMILY)
#undef SCALIFY_OPCODE_FAMILY
};

}  // namespace

std::string_view opcode_name(Opcode op) { return kNames[static_cast<size_t>(op)]; }

OpcodeFamily opcode_family(Opcode op) { return kFamilies[static_cast<size_t>(op)]; }

std::optional<Opcode> parse_opcode(std::string_view name) {
  static const NameTable<Opcode> table(kNames);  // a hash: the reader asks for every instruction
  return table.find(name);
}

}  // namespace scalify::ir
