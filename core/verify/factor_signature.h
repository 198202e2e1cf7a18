// Factor signatures (after Shardy's OpShardingRule): for each op, which operand dimensions are
// which *factors* and where each factor lands in the result. All layout propagation through
// ordinary ops is derived from them (propagation.h), not written per (op, layout) pair.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "verify/layout.h"

namespace scalify::verify {

/// One factor of an op's iteration space.
///   kPass     appears in the result at `result_dim` (a shard of it stays a shard)
///   kReduce   summed (or maxed…) away: a shard of it makes the result Partial(`op`)
///   kBlocked  its elements move between positions (a slice window, a concatenation, padding):
///             a shard of it cannot propagate
struct Factor {
  enum class Kind : uint8_t { kPass, kReduce, kBlocked };
  Kind kind = Kind::kPass;
  int32_t result_dim = -1;
  ReduceOp op = ReduceOp::kSum;
  int64_t size = 0;  ///< the factor's extent in the distributed program (per rank)
};

/// How Partial values flow through the op (per mesh axis).
///   kNone        no operand may be Partial
///   kAll         linear in the value operands together: all of them Partial with one op
///                (add, concatenate, layout ops, convert, reduce-sum of a partial sum…)
///   kOne         linear in each value operand: exactly one Partial, the others replicated
///                (multiply, dot; divide by a replicated value)
///   kMonotone    max/min-compatible: every value operand Partial(max|min) or replicated
enum class Linearity : uint8_t { kNone, kAll, kOne, kFirstOnly, kMonotone };

struct FactorSignature {
  std::vector<Factor> factors;
  /// Per operand, per dimension: its factor, or -1 (a broadcast scalar, an index operand).
  std::vector<std::vector<int32_t>> operand_factors;
  /// Operands that carry values (the others, such as predicates, indices and init values,
  /// must be replicated).
  std::vector<bool> value_operand;
  Linearity linearity = Linearity::kNone;
  /// Partial ops the op is linear for (kAll / kOne): sum and mean; for kMonotone: max, min.
  bool sum_like = true;
};

/// The signature of `instr` in `module` (the distributed program), or nullopt with the reason
/// for ops whose layouts are handled elsewhere (reshape, collectives, tuples) or not at all.
///
///   // %d = f32[4,8] dot(f32[4,16] %a, f32[16,8] %b), lhs_contracting_dims={1}, …
///   sig->factors == {pass→0 (4), pass→1 (8), reduce sum (16)}
std::optional<FactorSignature> factor_signature(const ir::Module& module,
                                                const ir::Computation& comp,
                                                const ir::Instruction& instr, std::string* why);

}  // namespace scalify::verify
