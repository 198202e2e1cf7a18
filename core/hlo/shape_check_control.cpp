// Result types of structural ops (tuple, get-tuple-element) and of ops that call computations
// (call, fusion, while, conditional, async-start): the callee's parameters must accept the
// operands, and its ROOT gives the result.
#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

std::string comp_name(const ir::Computation& c) { return "%" + c.name; }

/// `callee`'s parameters by number (a gap is -1), or nullopt when a number is out of all reason
/// (the reader rejects those; checked here so that no IR can make this allocate wildly).
std::optional<std::vector<ir::InstrId>> parameters_of(const ir::Computation& callee) {
  for (const ir::Instruction& instr : callee.instructions) {
    if (instr.opcode == ir::Opcode::kParameter &&
        (instr.parameter_number < 0 ||
         static_cast<size_t>(instr.parameter_number) >= callee.size())) {
      return std::nullopt;
    }
  }
  return callee.parameters();
}

/// `callee` must take exactly the types of operands [first, first + count).
Msg check_parameters(const Op& op, const ir::Computation& callee, size_t first, size_t count) {
  const std::optional<std::vector<ir::InstrId>> maybe_params = parameters_of(callee);
  if (!maybe_params) return std::nullopt;
  const std::vector<ir::InstrId>& params = *maybe_params;
  if (params.size() != count) {
    return say(op, comp_name(callee) + " takes " + std::to_string(params.size()) + " parameter" +
                       (params.size() == 1 ? "" : "s") + " but is given " + std::to_string(count));
  }
  for (size_t i = 0; i < count; ++i) {
    if (params[i] < 0 || static_cast<size_t>(params[i]) >= callee.size()) continue;  // a gap
    const ir::Type& want = callee[params[i]].type;
    const ir::Type& got = op.operand(first + i);
    if (!same_type(want, got)) {
      return say(op, "operand " + std::to_string(first + i) + " is " + show(got) +
                         " but parameter " + std::to_string(i) + " of " + comp_name(callee) +
                         " is " + show(want));
    }
  }
  return std::nullopt;
}

const ir::Type& root_type(const ir::Computation& c) { return c[c.root].type; }

/// The result must be what `callee` returns.
Msg expect_root(const Op& op, const ir::Computation& callee) {
  Msg m = expect_result(op, root_type(callee));
  if (m) *m += " (the type " + comp_name(callee) + " returns)";
  return m;
}

}  // namespace

Msg check_tuple(const Op& op) {
  std::vector<ir::Type> parts;
  for (size_t i = 0; i < op.arity(); ++i) parts.push_back(op.operand(i));
  return expect_result(op, ir::Type::tuple(std::move(parts)));
}

Msg check_get_tuple_element(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  const ir::Type& t = op.operand(0);
  if (!t.is_tuple()) return say(op, "operand must be a tuple but is " + show(t));
  std::optional<int64_t> index = int_attr(op, "index");
  if (!index) return say(op, "missing index=");
  if (*index < 0 || *index >= static_cast<int64_t>(t.elements().size())) {
    return say(op, "index=" + std::to_string(*index) + " is outside the tuple " + show(t) + " of " +
                       std::to_string(t.elements().size()) + " elements");
  }
  return expect_result(op, t.elements()[static_cast<size_t>(*index)]);
}

Msg check_call(const Op& op) {
  const ir::Computation* callee =
      op.callee(op.instr.opcode == ir::Opcode::kFusion ? "calls" : "to_apply");
  if (!callee) return std::nullopt;  // unresolved names are the reader's to report
  if (Msg m = check_parameters(op, *callee, 0, op.arity())) return m;
  return expect_root(op, *callee);
}

Msg check_while(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  const ir::Type& state = op.operand(0);
  if (const ir::Computation* body = op.callee("body")) {
    if (Msg m = check_parameters(op, *body, 0, 1)) return m;
    if (!same_type(root_type(*body), state)) {
      return say(op, "the body " + comp_name(*body) + " returns " + show(root_type(*body)) +
                         " but the loop state is " + show(state));
    }
  }
  if (const ir::Computation* cond = op.callee("condition")) {
    if (Msg m = check_parameters(op, *cond, 0, 1)) return m;
    if (!same_type(root_type(*cond), array(ir::DType::kPred, {}))) {
      return say(op, "the condition " + comp_name(*cond) + " must return pred[] but returns " +
                         show(root_type(*cond)));
    }
  }
  return expect_result(op, state);
}

Msg check_conditional(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  const ir::Type& selector = op.operand(0);
  const bool by_pred =
      selector.is_array() && selector.rank() == 0 && selector.dtype() == ir::DType::kPred;
  const bool by_index =
      selector.is_array() && selector.rank() == 0 && selector.dtype() == ir::DType::kS32;
  if (!by_pred && !by_index) {
    return say(op, "operand 0 must be pred[] or s32[] but is " + show(selector));
  }
  // Branches in order: branch_computations={…}, or true_computation then false_computation.
  std::vector<const ir::Computation*> branches;
  size_t count = op.callee_count("branch_computations");
  if (count > 0) {
    for (size_t i = 0; i < count; ++i) branches.push_back(op.callee("branch_computations", i));
  } else {
    count = op.callee_count("true_computation") + op.callee_count("false_computation");
    branches = {op.callee("true_computation"), op.callee("false_computation")};
  }
  if (by_pred && count != 2) {
    return say(op, "a pred selector needs 2 branches but there are " + std::to_string(count));
  }
  if (count == 0) return say(op, "needs at least one branch computation");
  if (op.arity() != count + 1) {
    return say(op, "takes the selector and one operand per branch (" + std::to_string(count + 1) +
                       ") but has " + std::to_string(op.arity()) + " operands");
  }
  for (size_t j = 0; j < branches.size(); ++j) {
    if (!branches[j]) continue;
    if (Msg m = check_parameters(op, *branches[j], j + 1, 1)) return m;
    if (Msg m = expect_root(op, *branches[j])) return m;
  }
  return std::nullopt;
}

Msg check_async_start(const Op& op) {
  const ir::Type& r = op.result();
  if (!r.is_tuple() || r.elements().size() < 2) {
    return say(op, "result must be a tuple ((operands), result, …) but is declared " + show(r));
  }
  std::vector<ir::Type> operands;
  for (size_t i = 0; i < op.arity(); ++i) operands.push_back(op.operand(i));
  const ir::Type args = ir::Type::tuple(std::move(operands));
  if (!same_type(r.elements()[0], args)) {
    return say(op, "element 0 of the result should be the operands " + show(args) +
                       " but is declared " + show(r.elements()[0]));
  }
  if (const ir::Computation* callee = op.callee("calls")) {
    if (Msg m = check_parameters(op, *callee, 0, op.arity())) return m;
    if (!same_type(r.elements()[1], root_type(*callee))) {
      return say(op, "element 1 of the result should be " + show(root_type(*callee)) +
                         " (the type " + comp_name(*callee) + " returns) but is declared " +
                         show(r.elements()[1]));
    }
  }
  return std::nullopt;
}

}  // namespace scalify::hlo::shape_check
