#include "verify/rank_values.h"

#include <algorithm>
#include <charconv>

namespace scalify::verify {

namespace {

using ir::Opcode;

/// The integers of a small integer constant (at most 4096 of them), or nullopt.
std::optional<std::vector<int64_t>> integer_literal(const ir::Instruction& instr) {
  if (instr.opcode != Opcode::kConstant || !instr.type.is_array() ||
      !ir::is_integer(instr.type.dtype()) || instr.type.rank() > 1 ||
      instr.type.element_count() > 4096) {
    return std::nullopt;
  }
  std::vector<int64_t> out;
  const std::string& t = instr.literal;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] == '-' || (t[i] >= '0' && t[i] <= '9')) {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(t.data() + i, t.data() + t.size(), v);
      if (ec != std::errc()) return std::nullopt;
      out.push_back(v);
      i = static_cast<size_t>(end - t.data());
    } else {
      ++i;
    }
  }
  if (static_cast<int64_t>(out.size()) != instr.type.element_count()) return std::nullopt;
  return out;
}

bool one_element(const ir::Type& t) { return t.is_array() && t.element_count() == 1; }

}  // namespace

std::vector<std::optional<PerDevice>> rank_values(const ir::Module& module,
                                                  const ir::Computation& comp, const Mesh& mesh) {
  const int64_t n = mesh.device_count();
  std::vector<std::optional<PerDevice>> values(comp.size());
  std::vector<std::optional<std::vector<int64_t>>> tables(comp.size());
  auto order = comp.topological_order();
  if (!order || n < 2) return values;
  for (ir::InstrId id : *order) {
    const ir::Instruction& instr = comp[id];
    auto value = [&](size_t i) -> const std::optional<PerDevice>& {
      return values[static_cast<size_t>(instr.operands[i])];
    };
    std::optional<PerDevice>& out = values[static_cast<size_t>(id)];
    switch (instr.opcode) {
      case Opcode::kPartitionId:
      case Opcode::kReplicaId: {
        const bool replicas = module.replica_count() > 1 && module.num_partitions() == 1;
        const bool partitions = module.num_partitions() > 1 && module.replica_count() == 1;
        const bool numbered = instr.opcode == Opcode::kPartitionId ? !replicas : replicas;
        const bool zero = instr.opcode == Opcode::kPartitionId ? replicas : partitions;
        if (!numbered && !zero) break;  // replica-id without a header: unknown
        PerDevice v(static_cast<size_t>(n), 0);
        for (int64_t d = 0; d < n && numbered; ++d) v[static_cast<size_t>(d)] = d;
        out = v;
        break;
      }
      case Opcode::kConstant:
        if (auto literal = integer_literal(instr)) {
          tables[static_cast<size_t>(id)] = *literal;
          if (literal->size() == 1) out = PerDevice(static_cast<size_t>(n), (*literal)[0]);
        }
        break;
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kConvert:
      case Opcode::kCopy:
        if (one_element(instr.type) && ir::is_integer(instr.type.dtype()) && value(0)) {
          out = value(0);
        }
        break;
      case Opcode::kDynamicSlice: {
        // A lookup in a constant table by a rank value.
        const auto& table = tables[static_cast<size_t>(instr.operands[0])];
        if (!table || instr.operands.size() != 2 || !one_element(instr.type) || !value(1)) break;
        PerDevice v(static_cast<size_t>(n));
        for (int64_t d = 0; d < n; ++d) {
          const int64_t at = std::clamp<int64_t>((*value(1))[static_cast<size_t>(d)], 0,
                                                 static_cast<int64_t>(table->size()) - 1);
          v[static_cast<size_t>(d)] = (*table)[static_cast<size_t>(at)];
        }
        out = v;
        break;
      }
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kMultiply:
      case Opcode::kDivide:
      case Opcode::kRemainder: {
        if (!one_element(instr.type) || !ir::is_integer(instr.type.dtype())) break;
        if (!value(0) || !value(1)) break;
        PerDevice v(static_cast<size_t>(n));
        bool ok = true;
        for (size_t d = 0; d < v.size() && ok; ++d) {
          const int64_t a = (*value(0))[d], b = (*value(1))[d];
          switch (instr.opcode) {
            case Opcode::kAdd:
              v[d] = a + b;
              break;
            case Opcode::kSubtract:
              v[d] = a - b;
              break;
            case Opcode::kMultiply:
              v[d] = a * b;
              break;
            default:
              ok = b != 0;
              if (ok) v[d] = instr.opcode == Opcode::kDivide ? a / b : a % b;
          }
        }
        if (ok) out = v;
        break;
      }
      default:
        break;
    }
  }
  // Only what depends on the rank is the rank's: constants keep their layouts as values.
  std::vector<bool> depends(comp.size(), false);
  for (ir::InstrId id : *order) {
    const ir::Instruction& instr = comp[id];
    bool d = instr.opcode == Opcode::kPartitionId || instr.opcode == Opcode::kReplicaId;
    for (ir::InstrId o : instr.operands) d = d || depends[static_cast<size_t>(o)];
    depends[static_cast<size_t>(id)] = d;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!depends[i]) values[i].reset();
  }
  return values;
}

}  // namespace scalify::verify
