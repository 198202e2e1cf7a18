// Bug injection for the checker's tests: small, type-correct changes to a correct distributed
// program D (a dropped all-reduce, a shard taken along the wrong dimension, swapped operands, …)
// after which the checker must answer "divergent" at a node within one def-use hop of the change.
//
// Every mutation works on a copy of the module's ENTRY computation. A mutant is printed and read
// back (hlo::read_module with shape checks on) before it is returned, so it always type-checks;
// a mutation that cannot give a valid module at a site, or would not change any value there (two
// structurally identical operands swapped, a transpose that only exchanges two dimensions of
// size 1, …), is skipped for that site.
//
//   ir::Module d = *hlo::read_module_file(corpus + "/llama7b_1layer_decode_tp2.hlo");
//   for (const Mutation& site : mutation_sites(d, MutationKind::kDropCollective)) {
//     std::optional<Mutant> bad = apply_mutation(d, site);   // always engaged for a listed site
//     // run the checker on (reference, bad->module); expect "divergent" at one of
//     // bad->mutation.near, e.g. {"all-reduce.168", "reshape.167", "add.209"}
//   }
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace scalify::test {

/// What a mutation changes. Each example shows an ENTRY line before → after.
enum class MutationKind {
  /// A collective disappears (wrong values, same shapes):
  /// - all-reduce: removed; its users read its operand.
  ///     `%ar = f32[8] all-reduce(%x), …`  `%u = f32[8] tanh(%ar)`  →  `%u = f32[8] tanh(%x)`
  ///   A variadic (tuple) all-reduce becomes a tuple of its operands, under its own name:
  ///     `%ar = (f32[8], f32[]) all-reduce(%x, %s), …`  →  `%ar = (f32[8], f32[]) tuple(%x, %s)`
  /// - all-gather: a concatenate of N copies of the operand along the gather dimension, under
  ///   the all-gather's name:
  ///     `%ag = f32[6,10] all-gather(f32[3,10] %p), dimensions={0}, replica_groups={{0,1}}`
  ///     →  `%ag = f32[6,10] concatenate(%p, %p), dimensions={0}`
  /// - reduce-scatter: a slice of the operand's first chunk along the scatter dimension:
  ///     `%rs = f32[4,8] reduce-scatter(f32[8,8] %x), dimensions={0}, …`
  ///     →  `%rs = f32[4,8] slice(%x), slice={[0:4:1], [0:8:1]}`
  kDropCollective,
  /// A collective's replica_groups become one group per device, so that it communicates nothing:
  ///   `all-reduce(%x), replica_groups={{0,1}}`  →  `all-reduce(%x), replica_groups={{0},{1}}`
  /// (all-reduce, all-to-all, collective-broadcast: all-gather and reduce-scatter would change
  /// their result shape and are skipped).
  kSingletonGroups,
  /// The two operands of a non-commutative binary op (subtract, divide, power, remainder,
  /// atan2, shifts, compare other than EQ/NE) swap, when they have the same type and are not
  /// the same value:  `subtract(%a, %b)`  →  `subtract(%b, %a)`.
  /// A dot swaps lhs and rhs with their contracting and batch dimensions, only when the result
  /// type stays the same (e.g. `f32[4,4] dot(f32[4,8] %a, f32[8,4] %b)` computes (a·b)ᵀ after).
  kSwapOperands,
  /// A small floating-point constant (at most 64 elements) gets other values, x → 1.5·x + 1
  /// (x + 1 where that is x):  `constant(0.5)`  →  `constant(1.75)`,
  /// `constant({0, 2})`  →  `constant({1, 4})`. Integer and pred constants (index computations)
  /// and constants that are the initial value of a reduce, reduce-window or select-and-scatter
  /// are left alone.
  kChangeConstant,
  /// A slice's window moves by one element along the first dimension where it can, by +1 if it
  /// stays within the operand, else by −1 (dimensions a broadcast created are skipped):
  ///   `f32[1,512] slice(f32[1,1024] %x), slice={[0:1], [512:1024]}`
  ///   →  `slice={[0:1], [511:1023]}`
  kShiftSlice,
  /// Two operands of a concatenate with equal types (and different values) swap:
  ///   `concatenate(%lo, %hi), dimensions={3}`  →  `concatenate(%hi, %lo), dimensions={3}`
  kSwapConcatenate,
  /// A transpose gets another permutation with the same result type: two entries whose operand
  /// dimensions have equal sizes (> 1) swap:
  ///   `f32[16,16] transpose(f32[16,16] %w), dimensions={1,0}`  →  `dimensions={0,1}`
  ///   (a transpose of f32[4,8] has no such permutation and is skipped)
  kPermuteTranspose,
  /// A shard is taken along the wrong dimension:
  /// - all-to-all (`dimensions={d}`): another dimension divisible by the group size; same type.
  /// - all-gather / reduce-scatter: another dimension. Since that always changes the result
  ///   shape, a reshape back to the original type follows, and the users read the reshape
  ///   (a gather along the wrong axis and then a `view`, as PyTorch code does):
  ///     `%ag = f32[6,10] all-gather(f32[3,10] %p), dimensions={0}, …`
  ///     →  `%ag = f32[3,20] all-gather(f32[3,10] %p), dimensions={1}, …`
  ///        `%ag.mut = f32[6,10] reshape(%ag)`
  ///   Dimensions for which that gives the same numbers (only dimensions of size 1 between the
  ///   two) are skipped.
  /// - a parameter with a tiled `sharding=`: the tile counts of two dimensions of equal size
  ///   swap, the device array is transposed with them:
  ///     `f32[8,8] parameter(0), sharding={devices=[2,1]0,1}`
  ///     →  `sharding={devices=[1,2]0,1}`
  kWrongShardDim,
  /// A floating-point elementwise op becomes its neighbour of the same type: add ↔ subtract,
  /// multiply ↔ divide, maximum ↔ minimum, exponential ↔ tanh, sqrt ↔ rsqrt, negate → abs.
  /// Skipped where that could change nothing: a binary op on a constant (x + 0, x · 1, …) or on
  /// two operands with the same value.
  ///   `%s = f32[8] add(%x, %b)`  →  `%s = f32[8] subtract(%x, %b)`
  kChangeOpcode,
  /// A floating-point add, subtract, multiply or divide disappears: its users read its first
  /// operand (a bias never added, a scale never applied). Only where the first operand has the
  /// op's type and the second is not a constant (which might be the identity):
  ///   `%h = f32[8] add(%x, %bias)`  `%u = f32[8] tanh(%h)`  →  `%u = f32[8] tanh(%x)`
  kDropOp,
  /// A compare tests the complement of its condition (a mask or a guard inverted):
  /// LT ↔ GE, GT ↔ LE, EQ ↔ NE. Skipped when both operands are the same value.
  ///   `%m = pred[8] compare(%i, %n), direction=LT`  →  `direction=GE`
  kFlipCompare,
};

/// Every kind, in declaration order.
inline constexpr std::array<MutationKind, 11> kAllMutationKinds = {
    MutationKind::kDropCollective,   MutationKind::kSingletonGroups, MutationKind::kSwapOperands,
    MutationKind::kChangeConstant,   MutationKind::kShiftSlice,      MutationKind::kSwapConcatenate,
    MutationKind::kPermuteTranspose, MutationKind::kWrongShardDim,   MutationKind::kChangeOpcode,
    MutationKind::kDropOp,           MutationKind::kFlipCompare};

/// One place a mutation applies (from mutation_sites) or was applied (in a Mutant).
///
///   Mutation{MutationKind::kSwapOperands, "subtract.82",
///            "subtract %subtract.82: operands swapped (%multiply.81, %multiply.80)",
///            {"subtract.82", "multiply.80", "multiply.81", "concatenate.86"}}
struct Mutation {
  MutationKind kind = MutationKind::kDropCollective;
  /// The instruction changed (for kDropCollective: the collective, which may no longer exist).
  std::string node;
  /// What changed, in words, naming the instructions.
  std::string description;
  /// Every instruction within one def-use hop of the change: `node`, its operands, its users
  /// (in the original module) and any instruction the mutation inserted; no duplicates.
  /// The checker's "first divergent node" should be one of them.
  std::vector<std::string> near;
  /// Every user of `node` is an rng / rng-bit-generator: the change only alters a random seed or
  /// state, which the checker treats as opaque (DESIGN.md, "Randomness"), so it need not see it.
  /// Tests that require "divergent" skip these (e.g. bert's `concatenate.123`, the seed of
  /// `rng-bit-generator.124`).
  bool only_feeds_rng = false;
};

/// A mutated module (read back from its printed text, so it type-checks) and what changed.
struct Mutant {
  ir::Module module;
  Mutation mutation;
};

/// Every site of `kind` in the ENTRY computation of `m`, in text order: exactly the nodes where
/// apply_mutation succeeds (each listed Mutation is what apply_mutation would return, so its
/// `near` is filled).
///
///   mutation_sites(gpt2_tp2, MutationKind::kDropCollective)
///   // {{kDropCollective, "all-reduce.158", …}, {kDropCollective, "all-reduce.189", …}}
std::vector<Mutation> mutation_sites(const ir::Module& m, MutationKind kind);

/// The mutant of `m` for `site` (only `site.kind` and `site.node` are read); nullopt when the
/// node does not exist or the mutation does not apply there. A node with several possible
/// changes (which slice dimension, which concatenate operands, …) gets the first in the order
/// the kind's documentation gives.
///
///   auto bad = apply_mutation(m, {MutationKind::kSwapOperands, "subtract.82"});
///   bad->module.entry()[*bad->module.entry().find("subtract.82")].operands;  // swapped
std::optional<Mutant> apply_mutation(const ir::Module& m, const Mutation& site);

/// "drop-collective", "singleton-groups", "swap-operands", "change-constant", "shift-slice",
/// "swap-concatenate", "permute-transpose", "wrong-shard-dim".
std::string_view mutation_kind_name(MutationKind kind);

}  // namespace scalify::test
