// Scalar semantics per element type: integers as two's complement bit patterns (wrapping,
// division by zero, shifts), pred as booleans, floats as doubles; which ops apply to which types.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

using ir::DType;
using ir::Opcode;

// ---- integers as bit patterns ----

/// An integer element type: its width and signedness.
struct IntType {
  int bits = 32;
  bool is_signed = true;
  uint64_t mask() const { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
};

IntType int_type(DType t) { return IntType{ir::bit_width(t), ir::is_signed_int(t)}; }

/// The two's complement pattern of the integer `x` (any double, saturated to 64 bits).
uint64_t to_bits(double x) {
  if (std::isnan(x)) return 0;
  x = std::trunc(x);
  if (x >= 0x1p64) return ~uint64_t{0};
  if (x >= 0x1p63) return static_cast<uint64_t>(x);
  if (x < -0x1p63) return uint64_t{1} << 63;
  return static_cast<uint64_t>(static_cast<int64_t>(x));
}

/// The value of the low `t.bits` bits of `v`, sign-extended for a signed type.
double from_bits(uint64_t v, IntType t) {
  v &= t.mask();
  if (t.is_signed && t.bits < 64 && (v >> (t.bits - 1)) & 1) v |= ~t.mask();
  if (t.is_signed) return static_cast<double>(static_cast<int64_t>(v));
  return static_cast<double>(v);
}

/// The value of `v`'s low bits as a signed number (for arithmetic shifts of any type).
int64_t signed_value(uint64_t v, IntType t) {
  return static_cast<int64_t>(from_bits(v, IntType{t.bits, true}));
}

double integer_binary(Opcode op, IntType t, double x, double y) {
  const uint64_t a = to_bits(x), b = to_bits(y);
  const auto sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
  const bool is_min = t.is_signed && t.bits == 64 && sa == std::numeric_limits<int64_t>::min();
  switch (op) {
    case Opcode::kAdd:
      return from_bits(a + b, t);
    case Opcode::kSubtract:
      return from_bits(a - b, t);
    case Opcode::kMultiply:
      return from_bits(a * b, t);
    case Opcode::kDivide:
      if (y == 0) return from_bits(~uint64_t{0}, t);
      if (!t.is_signed) return from_bits((a & t.mask()) / (b & t.mask()), t);
      if (is_min && sb == -1) return x;
      return from_bits(static_cast<uint64_t>(sa / sb), t);
    case Opcode::kRemainder:
      if (y == 0) return x;
      if (!t.is_signed) return from_bits((a & t.mask()) % (b & t.mask()), t);
      if (is_min && sb == -1) return 0;
      return from_bits(static_cast<uint64_t>(sa % sb), t);
    case Opcode::kPower: {
      if (y < 0) return x == 1 ? 1 : x == -1 ? (std::fmod(y, 2) == 0 ? 1 : -1) : 0;
      uint64_t result = 1, base = a;
      for (uint64_t e = b; e; e >>= 1) {  // square and multiply, wrapping
        if (e & 1) result *= base;
        base *= base;
      }
      return from_bits(result, t);
    }
    case Opcode::kMaximum:
      return std::max(x, y);
    case Opcode::kMinimum:
      return std::min(x, y);
    case Opcode::kAnd:
      return from_bits(a & b, t);
    case Opcode::kOr:
      return from_bits(a | b, t);
    case Opcode::kXor:
      return from_bits(a ^ b, t);
    case Opcode::kShiftLeft:
      if (y < 0 || y >= t.bits) return 0;
      return from_bits(a << static_cast<int>(y), t);
    case Opcode::kShiftRightLogical:
      if (y < 0 || y >= t.bits) return 0;
      return from_bits((a & t.mask()) >> static_cast<int>(y), t);
    case Opcode::kShiftRightArithmetic: {
      const int64_t v = signed_value(a, t);
      if (y < 0 || y >= t.bits) return from_bits(v < 0 ? ~uint64_t{0} : 0, t);
      return from_bits(static_cast<uint64_t>(v >> static_cast<int>(y)), t);
    }
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

double float_binary(Opcode op, double x, double y) {
  switch (op) {
    case Opcode::kAdd:
      return x + y;
    case Opcode::kSubtract:
      return x - y;
    case Opcode::kMultiply:
      return x * y;
    case Opcode::kDivide:
      return x / y;
    case Opcode::kRemainder:
      return std::fmod(x, y);
    case Opcode::kPower:
      return std::pow(x, y);
    case Opcode::kAtan2:
      return std::atan2(x, y);
    case Opcode::kMaximum:  // NaN propagates
      return std::isnan(x) || std::isnan(y) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::max(x, y);
    case Opcode::kMinimum:
      return std::isnan(x) || std::isnan(y) ? std::numeric_limits<double>::quiet_NaN()
                                            : std::min(x, y);
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

/// pred is a one-bit boolean: arithmetic on it is logic (add and maximum are or, multiply and
/// minimum are and).
double pred_binary(Opcode op, bool x, bool y) {
  switch (op) {
    case Opcode::kAdd:
    case Opcode::kMaximum:
    case Opcode::kOr:
      return x || y;
    case Opcode::kMultiply:
    case Opcode::kMinimum:
    case Opcode::kAnd:
      return x && y;
    case Opcode::kXor:
    case Opcode::kSubtract:
      return x != y;
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

double round_half_even(double x) {
  if (std::fabs(x - std::trunc(x)) == 0.5) return 2.0 * std::round(x / 2.0);
  return std::round(x);
}

}  // namespace

double normalize(double x, DType t) {
  if (t == DType::kPred) return x != 0 ? 1 : 0;
  if (ir::is_integer(t)) return from_bits(to_bits(x), int_type(t));
  return x;
}

void normalize(Tensor& t, DType dtype) {
  if (!ir::is_integer(dtype) && dtype != DType::kPred) return;
  for (double& x : t.data) x = normalize(x, dtype);
}

bool has_binary(Opcode op, DType t) {
  return ir::opcode_family(op) == ir::OpcodeFamily::kBinary && binary_type_error(op, t).empty();
}

double apply_binary(Opcode op, DType t, double x, double y) {
  if (t == DType::kPred) return pred_binary(op, x != 0, y != 0);
  if (ir::is_integer(t)) return integer_binary(op, int_type(t), x, y);
  return float_binary(op, x, y);
}

std::string binary_type_error(Opcode op, DType t) {
  const bool logic = op == Opcode::kAnd || op == Opcode::kOr || op == Opcode::kXor;
  const bool shift = op == Opcode::kShiftLeft || op == Opcode::kShiftRightLogical ||
                     op == Opcode::kShiftRightArithmetic;
  if (ir::is_complex(t)) return "complex numbers are not supported";
  if (t == DType::kPred) {
    if (shift || op == Opcode::kDivide || op == Opcode::kRemainder || op == Opcode::kPower ||
        op == Opcode::kAtan2) {
      return "it does not apply to pred";
    }
    return "";
  }
  if (ir::is_integer(t)) return op == Opcode::kAtan2 ? "atan2 needs a floating-point type" : "";
  if (!ir::is_float(t)) return "it does not apply to " + std::string(ir::dtype_name(t));
  if (logic || shift) return "it needs integers or pred";
  return "";
}

double apply_unary(Opcode op, DType t, double x) {
  const bool integer = ir::is_integer(t);
  switch (op) {
    case Opcode::kAbs:
      return normalize(std::fabs(x), t);
    case Opcode::kNegate:
      return normalize(-x, t);
    case Opcode::kSign:
      if (std::isnan(x) || x == 0) return x;
      return x > 0 ? 1 : -1;
    case Opcode::kNot:
      if (t == DType::kPred) return x == 0 ? 1 : 0;
      return from_bits(~to_bits(x), int_type(t));
    case Opcode::kPopulationCount:
      return std::popcount(to_bits(x) & int_type(t).mask());
    case Opcode::kClz: {
      const IntType it = int_type(t);
      return std::countl_zero(to_bits(x) & it.mask()) - (64 - it.bits);
    }
    case Opcode::kCopy:
      return x;
    case Opcode::kFloor:
      return std::floor(x);
    case Opcode::kCeil:
      return std::ceil(x);
    case Opcode::kRoundNearestAfz:
      return std::round(x);
    case Opcode::kRoundNearestEven:
      return round_half_even(x);
    default:
      break;
  }
  if (integer) return std::numeric_limits<double>::quiet_NaN();
  switch (op) {
    case Opcode::kExp:
      return std::exp(x);
    case Opcode::kExpm1:
      return std::expm1(x);
    case Opcode::kLog:
      return std::log(x);
    case Opcode::kLog1p:
      return std::log1p(x);
    case Opcode::kSqrt:
      return std::sqrt(x);
    case Opcode::kRsqrt:
      return 1.0 / std::sqrt(x);
    case Opcode::kCbrt:
      return std::cbrt(x);
    case Opcode::kTanh:
      return std::tanh(x);
    case Opcode::kLogistic:
      return 1.0 / (1.0 + std::exp(-x));
    case Opcode::kSin:
      return std::sin(x);
    case Opcode::kCos:
      return std::cos(x);
    case Opcode::kTan:
      return std::tan(x);
    case Opcode::kErf:
      return std::erf(x);
    default:
      return std::numeric_limits<double>::quiet_NaN();
  }
}

std::string unary_type_error(Opcode op, DType t) {
  if (ir::is_complex(t)) return "complex numbers are not supported";
  if (op == Opcode::kReducePrecision) return "reduce-precision is not modelled";
  const bool bitwise = op == Opcode::kNot || op == Opcode::kPopulationCount || op == Opcode::kClz;
  const bool any_type = bitwise || op == Opcode::kAbs || op == Opcode::kNegate ||
                        op == Opcode::kSign || op == Opcode::kCopy;
  if (t == DType::kPred)
    return op == Opcode::kNot || op == Opcode::kCopy ? "" : "it does not apply to pred";
  if (ir::is_integer(t)) return any_type ? "" : "it needs a floating-point type";
  if (!ir::is_float(t)) return "it does not apply to " + std::string(ir::dtype_name(t));
  return bitwise ? "it needs integers" : "";
}

}  // namespace scalify::eval::detail
