// Tuples and ops that call computations: tuple, get-tuple-element, call, fusion, map, while,
// conditional, and the custom calls known to be identities (AwsNeuronRmsNorm: rms_norm.cpp).
#include <array>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

/// Custom-call targets that return their single operand unchanged.
constexpr std::array kIdentityTargets = {
    std::string_view("Sharding"),                         // JAX/XLA sharding annotation
    std::string_view("AwsNeuronTransferWithStaticRing"),  // Neuron host transfer
};

/// The callee named by `key`, or an error saying it is missing.
std::variant<const ir::Computation*, Diagnostic> need_callee(const Op& op, std::string_view key,
                                                             size_t index = 0) {
  if (const ir::Computation* c = op.callee(key, index)) return c;
  return op.error("needs " + std::string(key) + "= naming a computation");
}

/// The scalar `v` as a double, if it is one.
std::optional<double> scalar_of(const Value& v) {
  if (v.is_tuple() || v.tensor().data.size() != 1 || v.tensor().rank() != 0) return std::nullopt;
  return v.tensor().data[0];
}

}  // namespace

Result eval_tuple(const Op& op) {
  return Value::tuple(std::vector<Value>(op.operands.begin(), op.operands.end()));
}

Result eval_get_tuple_element(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  const Value& t = op.operands[0];
  const std::optional<int64_t> index = op.int_attr("index");
  if (!t.is_tuple()) return op.error("the operand must be a tuple");
  if (!index || *index < 0 || *index >= static_cast<int64_t>(t.elements().size())) {
    return op.error("needs index= naming one of the " + std::to_string(t.elements().size()) +
                    " tuple elements");
  }
  return t.elements()[static_cast<size_t>(*index)];
}

Result eval_call(const Op& op) {
  auto callee = need_callee(op, op.inst.opcode == ir::Opcode::kFusion ? "calls" : "to_apply");
  if (auto* e = std::get_if<Diagnostic>(&callee)) return *e;
  return op.call(*std::get<const ir::Computation*>(callee), op.operands);
}

Result eval_map(const Op& op) {
  if (op.arity() < 1) return op.error("map needs operands");
  if (auto e = op.expect_tensors()) return *e;
  for (size_t i = 1; i < op.arity(); ++i) {
    if (op.operand(i).dims != op.operand(0).dims) {
      return op.error("operand " + std::to_string(i) + " " + op.operand(i).shape_string() +
                      " differs in shape from operand 0 " + op.operand(0).shape_string());
    }
  }
  auto callee = need_callee(op, "to_apply");
  if (auto* e = std::get_if<Diagnostic>(&callee)) return *e;
  const ir::Computation& f = *std::get<const ir::Computation*>(callee);
  const Combiner binary = make_combiner(f);
  Tensor out{op.operand(0).dims, {}};
  out.data.reserve(op.operand(0).data.size());
  std::vector<Value> args(op.arity());
  for (size_t i = 0; i < op.operand(0).data.size(); ++i) {
    if (binary.fast && op.arity() == 2) {
      out.data.push_back(
          apply_binary(*binary.fast, binary.dtype, op.operand(0).data[i], op.operand(1).data[i]));
      continue;
    }
    for (size_t k = 0; k < op.arity(); ++k) args[k] = Tensor::scalar(op.operand(k).data[i]);
    Result r = op.call(f, args);
    if (!r) return r;
    const std::optional<double> x = scalar_of(*r);
    if (!x) return op.error("the computation '" + f.name + "' must return a scalar");
    out.data.push_back(*x);
  }
  return Value(std::move(out));
}

Result eval_while(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  auto body = need_callee(op, "body");
  if (auto* e = std::get_if<Diagnostic>(&body)) return *e;
  auto condition = need_callee(op, "condition");
  if (auto* e = std::get_if<Diagnostic>(&condition)) return *e;
  Value state = op.operands[0];
  const int64_t limit = op.run.options.max_while_iterations;
  for (int64_t iteration = 0;; ++iteration) {
    Result go = op.call(*std::get<const ir::Computation*>(condition), std::span(&state, 1));
    if (!go) return go;
    const std::optional<double> flag = scalar_of(*go);
    if (!flag) return op.error("the condition must return a pred[] scalar");
    if (*flag == 0) return state;
    if (iteration == limit) {
      return op.error("the loop did not finish within " + std::to_string(limit) + " iterations");
    }
    Result next = op.call(*std::get<const ir::Computation*>(body), std::span(&state, 1));
    if (!next) return next;
    state = std::move(*next);
  }
}

Result eval_conditional(const Op& op) {
  if (op.arity() < 1 || op.operands[0].is_tuple()) {
    return op.error("needs a scalar selector as operand 0");
  }
  const std::optional<double> selector = scalar_of(op.operands[0]);
  if (!selector) return op.error("the selector must be a scalar");
  std::vector<const ir::Computation*> branches;
  if (const auto* refs = op.inst.get<ir::ComputationRefs>("branch_computations")) {
    for (size_t i = 0; i < refs->names.size(); ++i) {
      branches.push_back(op.callee("branch_computations", i));
    }
  } else {
    branches = {op.callee("true_computation"), op.callee("false_computation")};
  }
  if (branches.empty() || op.arity() != branches.size() + 1) {
    return op.error("takes a selector and one operand per branch (" +
                    std::to_string(branches.size()) + " branches) but has " +
                    std::to_string(op.arity()) + " operands");
  }
  size_t b = 0;
  if (op.operand_type(0).dtype() == ir::DType::kPred) {
    b = *selector != 0 ? 0 : 1;  // true_computation first
  } else {
    // An out-of-range index selects the last branch, as in XLA.
    const int64_t i = to_index(*selector);
    b = i < 0 || i >= static_cast<int64_t>(branches.size()) ? branches.size() - 1
                                                            : static_cast<size_t>(i);
  }
  if (b >= branches.size() || !branches[b])
    return op.error("branch " + std::to_string(b) + " is missing");
  return op.call(*branches[b], op.operands.subspan(b + 1, 1));
}

Result eval_custom_call(const Op& op) {
  const auto* target = op.inst.get<std::string>("custom_call_target");
  const std::string name = target ? *target : "";
  for (std::string_view identity : kIdentityTargets) {
    if (name == identity && op.arity() == 1) return op.operands[0];
  }
  if (name == "AwsNeuronRmsNorm") return eval_rms_norm(op);
  return op.unsupported("custom call target \"" + name +
                        "\" has no known semantics (the interpreter knows the identities such "
                        "as \"Sharding\", and \"AwsNeuronRmsNorm\")");
}

}  // namespace scalify::eval::detail
