// Elementwise ops on tensors: unary and binary arithmetic, compare, convert, select, clamp,
// is-finite (the numbers themselves are scalar.cpp's).
#include <algorithm>
#include <cmath>
#include <tuple>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

using ir::DType;
using ir::Opcode;

/// An error unless operands `a` and `b` have the same dimensions.
std::optional<Diagnostic> expect_same_dims(const Op& op, size_t a, size_t b) {
  if (op.operand(a).dims == op.operand(b).dims) return std::nullopt;
  return op.error("operands " + std::to_string(a) + " and " + std::to_string(b) +
                  " have different dimensions " + op.operand(a).shape_string() + " and " +
                  op.operand(b).shape_string());
}

/// (class, value, sign of zero): orders -NaN < -inf < … < -0 < +0 < … < inf < +NaN.
std::tuple<int, double, int> total_key(double x) {
  if (std::isnan(x)) return {std::signbit(x) ? -1 : 1, 0.0, 0};
  return {0, x, x == 0 ? (std::signbit(x) ? -1 : 1) : 0};
}

template <class T>
bool compare_as(const std::string& dir, const T& x, const T& y) {
  if (dir == "EQ") return x == y;
  if (dir == "NE") return x != y;
  if (dir == "LT") return x < y;
  if (dir == "LE") return x <= y;
  if (dir == "GT") return x > y;
  return x >= y;  // GE
}

}  // namespace

Result eval_unary(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const DType in = op.operand_type(0).dtype();
  if (std::string why = unary_type_error(op.inst.opcode, in); !why.empty()) {
    return op.unsupported(why);
  }
  Tensor out = op.operand(0);
  for (double& x : out.data) x = apply_unary(op.inst.opcode, in, x);
  normalize(out, op.type().dtype());
  return Value(std::move(out));
}

Result eval_binary(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  if (auto e = expect_same_dims(op, 0, 1)) return *e;
  const DType t = op.operand_type(0).dtype();
  if (std::string why = binary_type_error(op.inst.opcode, t); !why.empty()) {
    return op.unsupported(why);
  }
  Tensor out = op.operand(0);
  const std::vector<double>& y = op.operand(1).data;
  for (size_t i = 0; i < out.data.size(); ++i) {
    out.data[i] = apply_binary(op.inst.opcode, t, out.data[i], y[i]);
  }
  normalize(out, op.type().dtype());
  return Value(std::move(out));
}

Result eval_compare(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  if (auto e = expect_same_dims(op, 0, 1)) return *e;
  const auto* dir = op.inst.get<ir::Word>("direction");
  if (!dir) dir = op.inst.get<ir::Word>("comparison_direction");
  if (!dir) return op.error("missing direction=");
  const std::string& d = dir->text;
  if (d != "EQ" && d != "NE" && d != "LT" && d != "LE" && d != "GT" && d != "GE") {
    return op.error("unknown comparison direction '" + d + "'");
  }
  const DType t = op.operand_type(0).dtype();
  if (ir::is_complex(t)) return op.unsupported("complex numbers are not supported");
  const auto* type = op.inst.get<ir::Word>("type");
  const bool total = type && type->text == "TOTALORDER" && ir::is_float(t);
  Tensor out = op.operand(0);
  const std::vector<double>& y = op.operand(1).data;
  for (size_t i = 0; i < out.data.size(); ++i) {
    const bool r = total ? compare_as(d, total_key(out.data[i]), total_key(y[i]))
                         : compare_as(d, out.data[i], y[i]);
    out.data[i] = r ? 1 : 0;
  }
  return Value(std::move(out));
}

Result eval_convert(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const DType from = op.operand_type(0).dtype(), to = op.type().dtype();
  if (ir::is_complex(from) || ir::is_complex(to)) {
    return op.unsupported("complex numbers are not supported");
  }
  Tensor out = op.operand(0);
  if (ir::is_integer(to) && ir::is_float(from)) {
    // Truncate toward zero and saturate; NaN gives 0.
    const int bits = ir::bit_width(to);
    const bool is_signed = ir::is_signed_int(to);
    const double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
    const double hi = std::ldexp(1.0, is_signed ? bits - 1 : bits) - 1;
    for (double& x : out.data) x = std::isnan(x) ? 0 : std::clamp(std::trunc(x), lo, hi);
  } else {
    normalize(out, to);
  }
  return Value(std::move(out));
}

Result eval_select(const Op& op) {
  if (auto e = op.expect_arity(3)) return *e;
  if (op.operands[0].is_tuple()) return op.error("the predicate must be an array");
  const Tensor& pred = op.operand(0);
  if (pred.rank() == 0) return op.operands[pred.data[0] != 0 ? 1 : 2];  // any shape, tuples too
  if (auto e = op.expect_tensors()) return *e;
  if (auto e = expect_same_dims(op, 0, 1)) return *e;
  if (auto e = expect_same_dims(op, 1, 2)) return *e;
  Tensor out = op.operand(1);
  const std::vector<double>& on_false = op.operand(2).data;
  for (size_t i = 0; i < out.data.size(); ++i) {
    if (pred.data[i] == 0) out.data[i] = on_false[i];
  }
  return Value(std::move(out));
}

Result eval_clamp(const Op& op) {
  if (auto e = op.expect_arity(3)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor &lo = op.operand(0), &hi = op.operand(2);
  Tensor out = op.operand(1);
  for (const Tensor* bound : {&lo, &hi}) {
    if (bound->rank() != 0 && bound->dims != out.dims) {
      return op.error("the bounds must be scalars or shaped like the operand " +
                      out.shape_string() + " but one is " + bound->shape_string());
    }
  }
  for (size_t i = 0; i < out.data.size(); ++i) {
    const double l = lo.data[lo.rank() == 0 ? 0 : i], h = hi.data[hi.rank() == 0 ? 0 : i];
    double& x = out.data[i];
    if (x < l) x = l;
    if (x > h) x = h;
  }
  return Value(std::move(out));
}

Result eval_is_finite(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  Tensor out = op.operand(0);
  for (double& x : out.data) x = std::isfinite(x) ? 1 : 0;
  return Value(std::move(out));
}

}  // namespace scalify::eval::detail
