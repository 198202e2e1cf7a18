#include "hlo/type_inference.h"

namespace scalify::hlo {
namespace {

using ir::Opcode;

// Layouts are not inferred: an inferred type carries none.
ir::Type without_layout(ir::Type t) {
  t.set_layout(std::nullopt);
  for (ir::Type& e : t.mutable_elements()) e = without_layout(std::move(e));
  return t;
}

std::optional<ir::Type> fail(std::string* why, std::string message) {
  if (why) *why = std::move(message);
  return std::nullopt;
}

const ir::Type* root_type(const ir::Module& m, const ir::Instruction& instr, size_t index = 0) {
  if (index >= instr.called.size()) return nullptr;
  const ir::Computation& callee = m.computations[static_cast<size_t>(instr.called[index])];
  return callee.root >= 0 ? &callee[callee.root].type : nullptr;
}

}  // namespace

std::optional<ir::Type> infer_result_type(const ir::Module& module, const ir::Computation& comp,
                                          const ir::Instruction& instr, std::string* why) {
  const size_t arity = instr.operands.size();
  auto operand = [&](size_t i) -> const ir::Type& { return comp[instr.operands[i]].type; };
  auto need = [&](size_t n) { return arity >= n; };
  const std::string op(ir::opcode_name(instr.opcode));

  switch (instr.opcode) {
    case Opcode::kTuple: {
      std::vector<ir::Type> elements;
      for (size_t i = 0; i < arity; ++i) elements.push_back(without_layout(operand(i)));
      return ir::Type::tuple(std::move(elements));
    }
    case Opcode::kGetTupleElement: {
      const int64_t* index = instr.get<int64_t>("index");
      if (!need(1) || !index) return fail(why, "get-tuple-element needs an operand and index=");
      const ir::Type& t = operand(0);
      if (!t.is_tuple() || *index < 0 || static_cast<size_t>(*index) >= t.elements().size()) {
        return fail(
            why, "index " + std::to_string(*index) + " is not an element of " + t.to_string(false));
      }
      return without_layout(t.elements()[static_cast<size_t>(*index)]);
    }
    case Opcode::kCompare:
    case Opcode::kIsFinite: {
      if (!need(1) || !operand(0).is_array()) return fail(why, op + " needs an array operand");
      return ir::Type::array(ir::DType::kPred, operand(0).dims());
    }
    case Opcode::kSelect:
    case Opcode::kClamp:
      if (!need(3)) return fail(why, op + " needs three operands");
      return without_layout(operand(1));  // the on-true value, or the clamped operand
    case Opcode::kWhile:
    case Opcode::kCopy:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
    case Opcode::kAddDependency:
    case Opcode::kCollectivePermute:
      if (!need(1)) return fail(why, op + " needs an operand");
      return without_layout(operand(0));
    case Opcode::kAllReduce: {
      if (!need(1)) return fail(why, "all-reduce needs an operand");
      if (arity == 1) return without_layout(operand(0));
      std::vector<ir::Type> elements;
      for (size_t i = 0; i < arity; ++i) elements.push_back(without_layout(operand(i)));
      return ir::Type::tuple(std::move(elements));
    }
    case Opcode::kCall:
    case Opcode::kFusion:
    case Opcode::kConditional: {
      // A conditional's branches all return the same type; the first one answers.
      const ir::Type* t = root_type(module, instr);
      if (!t) return fail(why, op + " names no computation");
      return without_layout(*t);
    }
    case Opcode::kAfterAll:
      return ir::Type::token();
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return ir::Type::array(ir::DType::kU32, {});
    default:
      break;
  }
  switch (ir::opcode_family(instr.opcode)) {
    case ir::OpcodeFamily::kUnary:
      if (!need(1)) return fail(why, op + " needs an operand");
      if (instr.opcode == Opcode::kAbs && ir::is_complex(operand(0).dtype())) {
        return ir::Type::array(
            operand(0).dtype() == ir::DType::kC64 ? ir::DType::kF32 : ir::DType::kF64,
            operand(0).dims());
      }
      return without_layout(operand(0));
    case ir::OpcodeFamily::kBinary:
      if (!need(2)) return fail(why, op + " needs two operands");
      return without_layout(operand(0));
    default:
      return fail(why, op + "'s result type does not follow from its operands alone");
  }
}

}  // namespace scalify::hlo
