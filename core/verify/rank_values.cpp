#include "verify/rank_values.h"

#include <algorithm>

#include "ir/integer_fold.h"
#include "ir/partition_id.h"

namespace scalify::verify {

namespace {

using ir::Opcode;

bool one_element(const ir::Type& t) { return t.is_array() && t.element_count() == 1; }

}  // namespace

std::vector<std::optional<PerDevice>> rank_values(const ir::Module& module,
                                                  const ir::Computation& comp, const Mesh& mesh) {
  const int64_t n = mesh.device_count();
  std::vector<std::optional<PerDevice>> values(comp.size());
  std::vector<std::optional<std::vector<int64_t>>> tables(comp.size());
  auto order = comp.topological_order();
  if (!order || n < 2) return values;
  PerDevice numbers(static_cast<size_t>(n));  // each device's own number
  for (int64_t d = 0; d < n; ++d) numbers[static_cast<size_t>(d)] = d;
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
        out = numbered ? numbers : PerDevice(static_cast<size_t>(n), 0);
        break;
      }
      case Opcode::kParameter:
        if (ir::is_partition_id_parameter(instr)) out = numbers;
        break;
      case Opcode::kConstant:
        if (auto literal = ir::integer_literal(instr)) {
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
      default: {
        // Integer arithmetic, and comparisons (1 where they hold, 0 elsewhere: which ranks a
        // select picks an operand on), folded device by device.
        const bool compare = instr.opcode == Opcode::kCompare;
        if (instr.operands.size() != 2 || !one_element(instr.type) ||
            (!ir::is_integer(instr.type.dtype()) && !compare) || !value(0) || !value(1)) {
          break;
        }
        const ir::DType a = comp[instr.operands[0]].type.dtype();
        const ir::DType b = comp[instr.operands[1]].type.dtype();
        PerDevice v(static_cast<size_t>(n));
        bool ok = true;
        for (size_t d = 0; d < v.size() && ok; ++d) {
          const std::optional<ir::IntScalar> operands[] = {ir::IntScalar{(*value(0))[d], a},
                                                           ir::IntScalar{(*value(1))[d], b}};
          const auto r = ir::fold_integer(instr, operands);
          ok = r.has_value();
          if (ok) v[d] = r->value;
        }
        if (ok) out = v;
        break;
      }
    }
  }
  // Only what depends on the rank is the rank's: constants keep their layouts as values.
  std::vector<bool> depends(comp.size(), false);
  for (ir::InstrId id : *order) {
    const ir::Instruction& instr = comp[id];
    bool d = instr.opcode == Opcode::kPartitionId || instr.opcode == Opcode::kReplicaId ||
             ir::is_partition_id_parameter(instr);
    for (ir::InstrId o : instr.operands) d = d || depends[static_cast<size_t>(o)];
    depends[static_cast<size_t>(id)] = d;
  }
  for (size_t i = 0; i < values.size(); ++i) {
    if (!depends[i]) values[i].reset();
  }
  return values;
}

std::string per_device_text(const PerDevice& values, size_t at_most) {
  std::string text;
  for (size_t d = 0; d < values.size() && d < at_most; ++d) {
    text += (d ? ", " : "") + std::to_string(values[d]);
  }
  return text;
}

}  // namespace scalify::verify
