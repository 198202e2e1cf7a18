// Scalar combiners (the to_apply of reduce, reduce-window and scatter): the fast path for a single
// binary op, and calling the computation otherwise.
#include "eval/internal.h"

namespace scalify::eval::detail {

Combiner make_combiner(const ir::Computation& c) {
  Combiner out;
  out.comp = &c;
  if (c.size() != 3 || c.root < 0 || static_cast<size_t>(c.root) >= c.size()) return out;
  const ir::Instruction& root = c[c.root];
  if (root.operands.size() != 2 || !root.type.is_array() || root.type.rank() != 0 ||
      !has_binary(root.opcode, root.type.dtype())) {
    return out;
  }
  const std::vector<ir::InstrId> params = c.parameters();
  if (params.size() != 2 || params[0] < 0 || params[1] < 0) return out;
  for (ir::InstrId p : params) {
    const ir::Type& t = c[p].type;
    if (!t.is_array() || t.rank() != 0 || t.dtype() != root.type.dtype()) return out;
  }
  const bool in_order = root.operands[0] == params[0] && root.operands[1] == params[1];
  const bool swapped = root.operands[0] == params[1] && root.operands[1] == params[0];
  const ir::Opcode op = root.opcode;
  const bool commutative = op == ir::Opcode::kAdd || op == ir::Opcode::kMultiply ||
                           op == ir::Opcode::kMaximum || op == ir::Opcode::kMinimum ||
                           op == ir::Opcode::kAnd || op == ir::Opcode::kOr ||
                           op == ir::Opcode::kXor;
  if (in_order || (swapped && commutative)) {
    out.fast = op;
    out.dtype = root.type.dtype();
  }
  return out;
}

std::optional<Diagnostic> combine(const Op& op, const Combiner& c, std::span<double> acc,
                                  std::span<const double> x) {
  if (c.fast) {
    acc[0] = apply_binary(*c.fast, c.dtype, acc[0], x[0]);
    return std::nullopt;
  }
  std::vector<Value> args;
  args.reserve(acc.size() + x.size());
  for (double a : acc) args.push_back(Tensor::scalar(a));
  for (double b : x) args.push_back(Tensor::scalar(b));
  Result r = op.call(*c.comp, args);
  if (!r) return r.error();
  auto scalar = [](const Value& v) -> std::optional<double> {
    if (v.is_tuple() || v.tensor().data.size() != 1) return std::nullopt;
    return v.tensor().data[0];
  };
  if (acc.size() == 1 && !r->is_tuple()) {
    if (auto s = scalar(*r)) {
      acc[0] = *s;
      return std::nullopt;
    }
  } else if (r->is_tuple() && r->elements().size() == acc.size()) {
    for (size_t i = 0; i < acc.size(); ++i) {
      auto s = scalar(r->elements()[i]);
      if (!s) break;
      acc[i] = *s;
      if (i + 1 == acc.size()) return std::nullopt;
    }
  }
  return op.error("the computation '" + c.comp->name + "' must return " +
                  std::to_string(acc.size()) + " scalar" + (acc.size() == 1 ? "" : "s") +
                  " but returns " + r->shape_string());
}

}  // namespace scalify::eval::detail
