#include "proofcheck/rank_offsets.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "eval/literal.h"
#include "ir/partition_id.h"

namespace scalify::proofcheck {

namespace {

struct Evaluator {
  const ir::Module& module;
  int64_t devices;
  int depth = 0;

  std::optional<std::vector<int64_t>> table(ir::InstrId id) const {
    const ir::Instruction& i = module.entry()[id];
    if (i.opcode != ir::Opcode::kConstant || i.type.rank() > 1) return std::nullopt;
    auto value = eval::parse_literal(i.literal, i.type);
    if (!value || value->is_tuple()) return std::nullopt;
    std::vector<int64_t> out;
    for (double v : value->tensor().data) {
      if (v != std::trunc(v) || std::abs(v) > 9.0e15) return std::nullopt;  // not an integer
      out.push_back(static_cast<int64_t>(v));
    }
    return out;
  }

  std::optional<std::vector<int64_t>> of(ir::InstrId id) {
    if (++depth > 64) return std::nullopt;
    const ir::Instruction& i = module.entry()[id];
    if (!i.type.is_array() || i.type.element_count() != 1) return std::nullopt;
    using ir::Opcode;
    std::vector<int64_t> out(static_cast<size_t>(devices));
    switch (i.opcode) {
      case Opcode::kConstant: {
        auto v = table(id);
        if (!v || v->size() != 1) return std::nullopt;
        std::fill(out.begin(), out.end(), (*v)[0]);
        return out;
      }
      case Opcode::kPartitionId:
      case Opcode::kReplicaId: {
        // The device number, when the header says the devices are partitions (or replicas).
        const bool partitions = module.num_partitions() == devices && module.replica_count() == 1;
        const bool replicas = module.replica_count() == devices && module.num_partitions() == 1;
        if (!(i.opcode == Opcode::kPartitionId ? partitions : replicas)) return std::nullopt;
        for (int64_t d = 0; d < devices; ++d) out[static_cast<size_t>(d)] = d;
        return out;
      }
      case Opcode::kParameter: {
        // torch-xla on Neuron passes the partition id as a parameter of that name.
        if (!ir::is_partition_id_parameter(i)) return std::nullopt;
        for (int64_t d = 0; d < devices; ++d) out[static_cast<size_t>(d)] = d;
        return out;
      }
      case Opcode::kCompare: {
        // 1 where the comparison holds, 0 elsewhere (both sides integers).
        const auto* direction = i.get<ir::Word>("direction");
        if (!direction || i.operands.size() != 2 ||
            !ir::is_integer(module.entry()[i.operands[0]].type.dtype())) {
          return std::nullopt;
        }
        auto a = of(i.operands[0]);
        auto b = a ? of(i.operands[1]) : std::nullopt;
        if (!b) return std::nullopt;
        const std::string& dir = direction->text;
        if (dir != "EQ" && dir != "NE" && dir != "LT" && dir != "LE" && dir != "GT" &&
            dir != "GE") {
          return std::nullopt;
        }
        for (size_t d = 0; d < out.size(); ++d) {
          const int64_t x = (*a)[d], y = (*b)[d];
          const bool holds = dir == "EQ"   ? x == y
                             : dir == "NE" ? x != y
                             : dir == "LT" ? x < y
                             : dir == "LE" ? x <= y
                             : dir == "GT" ? x > y
                                           : x >= y;
          out[d] = holds ? 1 : 0;
        }
        return out;
      }
      case Opcode::kConvert:
      case Opcode::kReshape:
      case Opcode::kBitcast:
      case Opcode::kCopy:
        return of(i.operands[0]);
      case Opcode::kDynamicSlice: {
        auto t = table(i.operands[0]);
        if (!t || i.operands.size() != 2) return std::nullopt;
        auto at = of(i.operands[1]);
        if (!at) return std::nullopt;
        for (size_t d = 0; d < out.size(); ++d) {
          // XLA clamps the start so that the slice fits.
          const auto k = std::clamp<int64_t>((*at)[d], 0, static_cast<int64_t>(t->size()) - 1);
          out[d] = (*t)[static_cast<size_t>(k)];
        }
        return out;
      }
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kMultiply:
      case Opcode::kDivide:
      case Opcode::kRemainder:
      case Opcode::kMinimum:
      case Opcode::kMaximum: {
        auto a = of(i.operands[0]);
        auto b = a ? of(i.operands[1]) : std::nullopt;
        if (!b) return std::nullopt;
        for (size_t d = 0; d < out.size(); ++d) {
          const int64_t x = (*a)[d], y = (*b)[d];
          if ((i.opcode == Opcode::kDivide || i.opcode == Opcode::kRemainder) && y == 0) {
            return std::nullopt;
          }
          switch (i.opcode) {
            case Opcode::kAdd:
              out[d] = x + y;
              break;
            case Opcode::kSubtract:
              out[d] = x - y;
              break;
            case Opcode::kMultiply:
              out[d] = x * y;
              break;
            case Opcode::kDivide:
              out[d] = x / y;
              break;
            case Opcode::kRemainder:
              out[d] = x % y;
              break;
            case Opcode::kMinimum:
              out[d] = std::min(x, y);
              break;
            default:
              out[d] = std::max(x, y);
              break;
          }
        }
        return out;
      }
      default:
        return std::nullopt;
    }
  }
};

}  // namespace

std::optional<std::vector<int64_t>> device_values(const ir::Module& module, ir::InstrId id,
                                                  int64_t devices) {
  const ir::Instruction& i = module.entry()[id];
  const bool predicate = i.opcode == ir::Opcode::kCompare && i.type.dtype() == ir::DType::kPred;
  if (!ir::is_integer(i.type.dtype()) && !predicate) return std::nullopt;
  return Evaluator{module, devices}.of(id);
}

}  // namespace scalify::proofcheck
