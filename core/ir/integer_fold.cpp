#include "ir/integer_fold.h"

#include <charconv>
#include <limits>

namespace scalify::ir {

std::optional<std::vector<int64_t>> integer_literal(const Instruction& instr) {
  const bool pred = instr.type.is_array() && instr.type.dtype() == DType::kPred;
  if (instr.opcode != Opcode::kConstant || !instr.type.is_array() ||
      !(is_integer(instr.type.dtype()) || pred) || instr.type.rank() > 1 ||
      instr.type.element_count() > 4096) {
    return std::nullopt;
  }
  std::vector<int64_t> out;
  const std::string& t = instr.literal;
  size_t i = 0;
  while (i < t.size()) {
    if (t[i] == '-' || (t[i] >= '0' && t[i] <= '9')) {
      int64_t v = 0;
      const auto [end, ec] = std::from_chars(t.data() + i, t.data() + t.size(), v);
      if (ec != std::errc()) return std::nullopt;
      out.push_back(v);
      i = static_cast<size_t>(end - t.data());
    } else if (pred && t.compare(i, 4, "true") == 0) {
      out.push_back(1);
      i += 4;
    } else if (pred && t.compare(i, 5, "false") == 0) {
      out.push_back(0);
      i += 5;
    } else {
      ++i;
    }
  }
  if (static_cast<int64_t>(out.size()) != instr.type.element_count()) return std::nullopt;
  return out;
}

std::optional<int64_t> wrap_integer(int64_t v, DType t) {
  if (t == DType::kPred) return v != 0 ? 1 : 0;
  if (!is_integer(t)) return std::nullopt;
  const int width = bit_width(t);
  if (width <= 0 || width > 64) return std::nullopt;
  if (width == 64) return v;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  const uint64_t bits = static_cast<uint64_t>(v) & mask;
  if (is_unsigned_int(t)) return static_cast<int64_t>(bits);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>(bits & sign ? bits | ~mask : bits);
}

std::optional<int64_t> integer_binary(Opcode op, DType t, int64_t a, int64_t b) {
  // Arithmetic on the unsigned representation: wraps instead of overflowing.
  const uint64_t x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
  const bool is_unsigned = is_unsigned_int(t) || t == DType::kPred;
  switch (op) {
    case Opcode::kAdd:
      return wrap_integer(static_cast<int64_t>(x + y), t);
    case Opcode::kSubtract:
      return wrap_integer(static_cast<int64_t>(x - y), t);
    case Opcode::kMultiply:
      return wrap_integer(static_cast<int64_t>(x * y), t);
    case Opcode::kDivide:
    case Opcode::kRemainder:
      if (b == 0) return std::nullopt;
      if (is_unsigned) {
        return wrap_integer(static_cast<int64_t>(op == Opcode::kDivide ? x / y : x % y), t);
      }
      if (a == std::numeric_limits<int64_t>::min() && b == -1) return std::nullopt;
      return wrap_integer(op == Opcode::kDivide ? a / b : a % b, t);
    case Opcode::kMaximum:
    case Opcode::kMinimum: {
      const bool a_less = is_unsigned ? x < y : a < b;
      return (op == Opcode::kMaximum) == a_less ? b : a;
    }
    case Opcode::kAnd:
      return wrap_integer(static_cast<int64_t>(x & y), t);
    case Opcode::kOr:
      return wrap_integer(static_cast<int64_t>(x | y), t);
    case Opcode::kXor:
      return wrap_integer(static_cast<int64_t>(x ^ y), t);
    default:
      return std::nullopt;
  }
}

namespace {

std::optional<bool> compare(std::string_view direction, const IntScalar& a, const IntScalar& b) {
  const bool is_unsigned = is_unsigned_int(a.dtype);
  const auto less = [&](const IntScalar& l, const IntScalar& r) {
    return is_unsigned ? static_cast<uint64_t>(l.value) < static_cast<uint64_t>(r.value)
                       : l.value < r.value;
  };
  if (direction == "EQ") return a.value == b.value;
  if (direction == "NE") return a.value != b.value;
  if (direction == "LT") return less(a, b);
  if (direction == "GT") return less(b, a);
  if (direction == "LE") return !less(b, a);
  if (direction == "GE") return !less(a, b);
  return std::nullopt;
}

}  // namespace

std::optional<IntScalar> fold_integer(const Instruction& instr,
                                      std::span<const std::optional<IntScalar>> operands) {
  const Type& type = instr.type;
  if (!type.is_array() || type.element_count() != 1) return std::nullopt;
  const DType t = type.dtype();
  if (!is_integer(t) && t != DType::kPred) return std::nullopt;
  const auto known = [&](size_t i) { return i < operands.size() && operands[i].has_value(); };
  const auto value = [&](size_t i) { return operands[i]->value; };
  const auto result = [&](std::optional<int64_t> v) -> std::optional<IntScalar> {
    if (!v) return std::nullopt;
    const auto wrapped = wrap_integer(*v, t);
    if (!wrapped) return std::nullopt;
    return IntScalar{*wrapped, t};
  };
  // Every operand must be an integer or pred scalar: a compare of floats is not folded.
  for (size_t i = 0; i < operands.size(); ++i) {
    if (operands[i] && !is_integer(operands[i]->dtype) && operands[i]->dtype != DType::kPred) {
      return std::nullopt;
    }
  }
  switch (instr.opcode) {
    case Opcode::kConstant: {
      const auto literal = integer_literal(instr);
      if (!literal || literal->size() != 1) return std::nullopt;
      return result((*literal)[0]);
    }
    case Opcode::kReshape:
    case Opcode::kBitcast:
    case Opcode::kCopy:
    case Opcode::kBroadcast:
      if (!known(0) || operands[0]->dtype != t) return std::nullopt;
      return operands[0];
    case Opcode::kConvert:
      // A signed value converts by value; an unsigned one is already non-negative.
      if (!known(0)) return std::nullopt;
      return result(value(0));
    case Opcode::kNegate:
      if (!known(0) || t == DType::kPred) return std::nullopt;
      return result(static_cast<int64_t>(0 - static_cast<uint64_t>(value(0))));
    case Opcode::kAbs:
      if (!known(0) || t == DType::kPred) return std::nullopt;
      return result(value(0) < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(value(0)))
                                 : value(0));
    case Opcode::kNot:
      if (!known(0)) return std::nullopt;
      return result(t == DType::kPred ? !value(0) : ~value(0));
    case Opcode::kCompare: {
      const auto* dir = instr.get<Word>("direction");
      if (!dir || !known(0) || !known(1)) return std::nullopt;
      const auto r = compare(dir->text, *operands[0], *operands[1]);
      if (!r) return std::nullopt;
      return result(*r ? 1 : 0);
    }
    case Opcode::kSelect:
      if (!known(0)) return std::nullopt;
      if (!known(value(0) != 0 ? 1 : 2)) return std::nullopt;
      return operands[value(0) != 0 ? 1 : 2];
    default:
      if (instr.operands.size() != 2 || !known(0) || !known(1)) return std::nullopt;
      return result(integer_binary(instr.opcode, t, value(0), value(1)));
  }
}

}  // namespace scalify::ir
