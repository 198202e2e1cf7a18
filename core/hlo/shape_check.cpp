// Result-type checks: routes each opcode to the rule of its family (shape_check_*.cpp).
#include "hlo/shape_check.h"

#include "hlo/shape_check_internal.h"

namespace scalify::hlo {

using ir::Opcode;
using shape_check::Msg;
using shape_check::Op;

std::optional<std::string> check_result_type(const ir::Module& module, const ir::Computation& comp,
                                             const ir::Instruction& instr) {
  // Dangling operands are the reader's error to report; nothing here can be said about them.
  for (ir::InstrId id : instr.operands) {
    if (id < 0 || static_cast<size_t>(id) >= comp.size()) return std::nullopt;
  }
  // Unbounded dynamic dimensions (`?`) follow their own inference rules in XLA; do not guess.
  if (shape_check::has_unbounded(instr.type)) return std::nullopt;
  for (ir::InstrId id : instr.operands) {
    if (shape_check::has_unbounded(comp[id].type)) return std::nullopt;
  }

  const Op op{module, comp, instr};
  switch (instr.opcode) {
    // Elementwise.
    case Opcode::kCompare:
      return shape_check::check_compare(op);
    case Opcode::kConvert:
      return shape_check::check_convert(op);
    case Opcode::kBitcastConvert:
      return shape_check::check_bitcast_convert(op);
    case Opcode::kSelect:
      return shape_check::check_select(op);
    case Opcode::kClamp:
      return shape_check::check_clamp(op);
    case Opcode::kIsFinite:
    case Opcode::kReal:
    case Opcode::kImag:
      return shape_check::check_complex_parts(op);
    case Opcode::kComplex:
      return shape_check::check_binary(op);
    // Data movement.
    case Opcode::kBroadcast:
      return shape_check::check_broadcast(op);
    case Opcode::kReshape:
      return shape_check::check_reshape(op);
    case Opcode::kTranspose:
      return shape_check::check_transpose(op);
    case Opcode::kSlice:
      return shape_check::check_slice(op);
    case Opcode::kConcatenate:
      return shape_check::check_concatenate(op);
    case Opcode::kPad:
      return shape_check::check_pad(op);
    case Opcode::kIota:
      return shape_check::check_iota(op);
    case Opcode::kReverse:
      return shape_check::check_reverse(op);
    case Opcode::kDynamicSlice:
      return shape_check::check_dynamic_slice(op);
    case Opcode::kDynamicUpdateSlice:
      return shape_check::check_dynamic_update_slice(op);
    case Opcode::kGather:
      return shape_check::check_gather(op);
    case Opcode::kScatter:
      return shape_check::check_scatter(op);
    // Computation.
    case Opcode::kDot:
      return shape_check::check_dot(op);
    case Opcode::kConvolution:
      return shape_check::check_convolution(op);
    case Opcode::kReduce:
      return shape_check::check_reduce(op);
    case Opcode::kReduceWindow:
      return shape_check::check_reduce_window(op);
    case Opcode::kSelectAndScatter:
      return shape_check::check_select_and_scatter(op);
    case Opcode::kSort:
      return shape_check::check_sort(op);
    // Collectives.
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kCollectiveBroadcast:
      return shape_check::check_all_reduce(op);
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
      return shape_check::check_all_gather(op);
    case Opcode::kReduceScatter:
      return shape_check::check_reduce_scatter(op);
    case Opcode::kAllToAll:
      return shape_check::check_all_to_all(op);
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
      return shape_check::check_collective_permute(op);
    case Opcode::kAllReduceDone:
    case Opcode::kAllGatherDone:
    case Opcode::kCollectivePermuteDone:
    case Opcode::kAsyncDone:
    case Opcode::kCopyDone:
      return shape_check::check_done(op);
    // Structure and control flow.
    case Opcode::kTuple:
      return shape_check::check_tuple(op);
    case Opcode::kGetTupleElement:
      return shape_check::check_get_tuple_element(op);
    case Opcode::kCall:
    case Opcode::kFusion:
      return shape_check::check_call(op);
    case Opcode::kWhile:
      return shape_check::check_while(op);
    case Opcode::kConditional:
      return shape_check::check_conditional(op);
    case Opcode::kAsyncStart:
      return shape_check::check_async_start(op);
    case Opcode::kAsyncUpdate:
    case Opcode::kOptimizationBarrier:
    case Opcode::kDomain:
      if (Msg m = shape_check::expect_arity(op, 1)) return m;
      return shape_check::check_same_as_operand(op, 0);
    case Opcode::kCholesky:
      if (Msg m = shape_check::expect_arity(op, 1)) return m;
      return shape_check::check_same_as_operand(op, 0);
    case Opcode::kTriangularSolve:  // solves a x = b: x has b's type
      if (Msg m = shape_check::expect_arity(op, 2)) return m;
      return shape_check::check_same_as_operand(op, 1);
    case Opcode::kAddDependency:
      if (Msg m = shape_check::expect_arity(op, 2)) return m;
      return shape_check::check_same_as_operand(op, 0);
    case Opcode::kCopyStart: {
      // (destination, source, context)
      if (Msg m = shape_check::expect_arity(op, 1)) return m;
      const ir::Type& x = op.operand(0);
      return shape_check::expect_result(
          op, ir::Type::tuple({x, x, shape_check::array(ir::DType::kU32, {})}));
    }
    case Opcode::kAfterAll:
      return shape_check::expect_result(op, ir::Type::token());
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return shape_check::expect_result(op, shape_check::array(ir::DType::kU32, {}));
    case Opcode::kGetDimensionSize:
      return shape_check::expect_result(op, shape_check::array(ir::DType::kS32, {}));
    default:
      break;
  }
  switch (ir::opcode_family(instr.opcode)) {
    case ir::OpcodeFamily::kUnary:
      return shape_check::check_unary(op);
    case ir::OpcodeFamily::kBinary:
      return shape_check::check_binary(op);
    default:
      return std::nullopt;  // custom-call, bitcast, constant, parameter, rng, …: not checked
  }
}

}  // namespace scalify::hlo
