// Folding integer and pred scalars made of constants: loop counters, trip-count conditions,
// branch selectors. What the loop unroller (inline_calls.h) and the rank values of the checker
// (verify/rank_values.h) compute before any tensor is seen.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ir/module.h"

namespace scalify::ir {

/// The integers of a small integer or pred constant of rank 0 or 1 (at most 4096 of them):
/// `s32[3] constant({0, 512, 1024})` gives {0, 512, 1024}, `pred[] constant(true)` {1}.
std::optional<std::vector<int64_t>> integer_literal(const Instruction& instr);

/// `v` as a value of `t` holds it: wrapped to the width of an integer type (two's complement),
/// 0 or 1 for pred. nullopt for other types.
std::optional<int64_t> wrap_integer(int64_t v, DType t);

/// `a op b` for an integer binary op (add, subtract, multiply, divide, remainder, maximum,
/// minimum, and, or, xor) on values of type `t`, wrapped to it. nullopt for another op, a
/// division by zero or an overflowing signed division (XLA defines those; nothing here needs
/// them, so they are not folded rather than folded wrongly).
std::optional<int64_t> integer_binary(Opcode op, DType t, int64_t a, int64_t b);

/// A known integer or pred scalar and its type (which says how it compares and wraps).
struct IntScalar {
  int64_t value = 0;
  DType dtype = DType::kS64;
};

/// The value of the one-element integer or pred instruction `instr` given its operands' values
/// (nullopt where unknown): constants, converts and reshapes, integer arithmetic, compare,
/// select, not, negate, abs. nullopt when it is not such an op or an operand it needs is unknown.
///
///   // c = s32[] constant(3); n = s32[] constant(4); k = pred[] compare(c, n), direction=LT
///   fold_integer(k_instr, {{{3, kS32}}, {{4, kS32}}})->value == 1
std::optional<IntScalar> fold_integer(const Instruction& instr,
                                      std::span<const std::optional<IntScalar>> operands);

}  // namespace scalify::ir
