// Result types of elementwise ops: unary and binary arithmetic, compare, converts, select, clamp.
// HLO has no implicit broadcasting: operands and result share their dimensions.
#include <algorithm>
#include <array>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

using ir::DType;
using ir::Opcode;

/// The real type of a complex element type's parts (c64 -> f32), or the type itself.
DType component_type(DType t) {
  if (t == DType::kC64) return DType::kF32;
  if (t == DType::kC128) return DType::kF64;
  return t;
}

/// Operand 0 must have an element type the opcode accepts (XLA's InferUnaryOpShape). Only the
/// restrictions that have held in every XLA version are enforced.
Msg check_unary_element_type(const Op& op, DType t) {
  const bool fp = ir::is_float(t), cx = ir::is_complex(t), integral = ir::is_integer(t);
  const char* want = nullptr;
  switch (op.instr.opcode) {
    case Opcode::kFloor:
    case Opcode::kCeil:
    case Opcode::kRoundNearestAfz:
    case Opcode::kRoundNearestEven:
    case Opcode::kReducePrecision:
      if (!fp) want = "a floating-point";
      break;
    case Opcode::kCos:
    case Opcode::kSin:
    case Opcode::kExp:
    case Opcode::kExpm1:
    case Opcode::kLog:
    case Opcode::kLog1p:
    case Opcode::kLogistic:
    case Opcode::kRsqrt:
    case Opcode::kSqrt:
    case Opcode::kCbrt:
    case Opcode::kTanh:
      if (!fp && !cx) want = "a floating-point or complex";
      break;
    case Opcode::kClz:
    case Opcode::kPopulationCount:
      if (!integral) want = "an integer";
      break;
    case Opcode::kNot:
      if (!integral && t != DType::kPred) want = "a pred or integer";
      break;
    default:
      break;
  }
  if (!want) return std::nullopt;
  return say(
      op, std::string("operand must have ") + want + " element type but is " + show(op.operand(0)));
}

Msg check_binary_element_type(const Op& op, DType t) {
  switch (op.instr.opcode) {
    case Opcode::kAnd:
    case Opcode::kOr:
    case Opcode::kXor:
      if (t != DType::kPred && !ir::is_integer(t)) {
        return say(
            op, "operands must have pred or integer element type but are " + show(op.operand(0)));
      }
      return std::nullopt;
    case Opcode::kSubtract:
    case Opcode::kAtan2:
    case Opcode::kPower:
    case Opcode::kDivide:
    case Opcode::kRemainder:
    case Opcode::kShiftLeft:
    case Opcode::kShiftRightArithmetic:
    case Opcode::kShiftRightLogical:
      if (t == DType::kPred) return say(op, "operands must not be pred");
      return std::nullopt;
    case Opcode::kComplex:
      if (t != DType::kF32 && t != DType::kF64) {
        return say(op, "operands must be f32 or f64 but are " + show(op.operand(0)));
      }
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

/// Two array operands of one element type and equal dimensions (no implicit broadcast in HLO).
Msg check_matching_pair(const Op& op) {
  if (Msg m = expect_arity(op, 2)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& a = op.operand(0);
  const ir::Type& b = op.operand(1);
  if (!same_dims(a, b)) {
    return say(op, "operands have different dimensions: " + show(a) + " and " + show(b));
  }
  if (a.dtype() != b.dtype()) {
    return say(op, "operands have different element types: " + show(a) + " and " + show(b));
  }
  return std::nullopt;
}

/// `x` must be a scalar or have the dimensions of `like`, with its element type.
Msg check_scalar_or_like(const Op& op, size_t i, const ir::Type& like, std::string_view role) {
  const ir::Type& x = op.operand(i);
  if (x.rank() != 0 && !same_dims(x, like)) {
    return say(op, std::string(role) + " must be a scalar or have the dimensions of " + show(like) +
                       " but is " + show(x));
  }
  return std::nullopt;
}

}  // namespace

Msg check_same_as_operand(const Op& op, size_t operand) {
  if (operand >= op.arity()) return expect_min_arity(op, operand + 1);
  return expect_result(op, op.operand(operand));
}

Msg check_unary(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  // copy accepts any value, tuples included.
  if (op.instr.opcode == Opcode::kCopy) return check_same_as_operand(op, 0);
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  if (Msg m = check_unary_element_type(op, x.dtype())) return m;
  ir::Type expected = x;
  if (op.instr.opcode == Opcode::kAbs) expected.set_dtype(component_type(x.dtype()));
  return expect_result(op, expected);
}

Msg check_binary(const Op& op) {
  if (Msg m = check_matching_pair(op)) return m;
  const ir::Type& a = op.operand(0);
  if (Msg m = check_binary_element_type(op, a.dtype())) return m;
  ir::Type expected = a;
  if (op.instr.opcode == Opcode::kComplex) {
    expected.set_dtype(a.dtype() == DType::kF64 ? DType::kC128 : DType::kC64);
  }
  return expect_result(op, expected);
}

Msg check_compare(const Op& op) {
  const auto* direction = op.instr.get<ir::Word>("direction");
  if (!direction) return say(op, "missing direction=EQ|NE|LT|LE|GT|GE");
  static constexpr std::array<std::string_view, 6> kDirections = {"EQ", "NE", "LT",
                                                                  "LE", "GT", "GE"};
  bool known = false;
  for (std::string_view d : kDirections) known = known || direction->text == d;
  if (!known) {
    return say(op, "direction=" + direction->text + " is not one of EQ, NE, LT, LE, GT, GE");
  }
  if (Msg m = check_matching_pair(op)) return m;
  return expect_result(op, array(DType::kPred, op.operand(0).dims()));
}

Msg check_convert(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  if (Msg m = expect_array_result(op)) return m;
  // Any element type to any other: only the dimensions are fixed.
  return expect_result_dims(op, op.operand(0).dims());
}

Msg check_bitcast_convert(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const ir::Type& x = op.operand(0);
  const DType to = op.result().dtype();
  if (ir::is_complex(x.dtype()) != ir::is_complex(to)) {
    return say(op, "cannot reinterpret between complex and real types (" + show(x) + " to " +
                       std::string(ir::dtype_name(to)) + ")");
  }
  const int in = ir::bit_width(x.dtype()), out = ir::bit_width(to);
  if (in <= 0 || out <= 0) return std::nullopt;
  if (std::max(in, out) % std::min(in, out) != 0) {
    return say(op, "bit widths " + std::to_string(in) + " and " + std::to_string(out) +
                       " do not divide each other");
  }
  std::vector<int64_t> dims = x.dims();
  const int64_t ratio = std::max(in, out) / std::min(in, out);
  if (in > out) {
    // Each wide element becomes `ratio` narrow ones along a new minor dimension.
    dims.push_back(ratio);
  } else if (in < out) {
    if (dims.empty() || dims.back() != ratio) {
      return say(op, "to widen " + std::string(ir::dtype_name(x.dtype())) + " to " +
                         std::string(ir::dtype_name(to)) +
                         " the operand's last dimension must be " + std::to_string(ratio) +
                         ", but the operand is " + show(x));
    }
    dims.pop_back();
  }
  return expect_result_dims(op, dims);
}

Msg check_select(const Op& op) {
  if (Msg m = expect_arity(op, 3)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& pred = op.operand(0);
  const ir::Type& on_true = op.operand(1);
  const ir::Type& on_false = op.operand(2);
  if (pred.dtype() != DType::kPred) {
    return say(op, "operand 0 must have element type pred but is " + show(pred));
  }
  if (!same_type(on_true, on_false)) {
    return say(op, "operands 1 and 2 must have one type but are " + show(on_true) + " and " +
                       show(on_false));
  }
  if (Msg m = check_scalar_or_like(op, 0, on_true, "the predicate")) return m;
  return expect_result(op, on_true);
}

Msg check_clamp(const Op& op) {
  if (Msg m = expect_arity(op, 3)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& x = op.operand(1);
  for (size_t i : {size_t{0}, size_t{2}}) {
    const ir::Type& bound = op.operand(i);
    if (bound.dtype() != x.dtype()) {
      return say(op, std::string(i == 0 ? "min " : "max ") + show(bound) +
                         " has a different element type than the operand " + show(x));
    }
    if (Msg m = check_scalar_or_like(op, i, x, i == 0 ? "min" : "max")) return m;
  }
  return expect_result(op, x);
}

Msg check_complex_parts(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  ir::Type expected = x;
  if (op.instr.opcode == Opcode::kIsFinite) {
    if (!ir::is_float(x.dtype())) {
      return say(op, "operand must have a floating-point element type but is " + show(x));
    }
    expected.set_dtype(DType::kPred);
  } else {
    if (!ir::is_float(x.dtype()) && !ir::is_complex(x.dtype())) {
      return say(op, "operand must be floating-point or complex but is " + show(x));
    }
    expected.set_dtype(component_type(x.dtype()));
  }
  return expect_result(op, expected);
}

}  // namespace scalify::hlo::shape_check
