// The proof checker's layout kernel, inside (internal to proofcheck/): one Kernel per step, a
// method per op family. Value ops live in layout_steps.cpp, indexing ops in
// layout_steps_indexing.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "proofcheck/layout_steps.h"

namespace scalify::proofcheck::detail {

using verify::AxisLayout;
using verify::Layout;
using verify::ReduceOp;

/// `shard(1,tp)`: one axis's part as layout text.
inline std::string text(const AxisLayout& p, size_t axis, const verify::Mesh& mesh) {
  return Layout::on(mesh, axis, p).to_string(mesh);
}

/// The same shard (dim and padding), the claim asking for no more zeros than `zeros_ok`.
inline bool shard_is(const AxisLayout& q, int32_t dim, int64_t full, bool zeros_ok) {
  return q.is_shard() && q.dim == dim && q.full == full && (!q.zero_pad || zeros_ok);
}

/// Checks one step (layout_steps.h) against the rule of its op's family.
class Kernel {
 public:
  Kernel(TermTable& terms, const Step& s, ir::Type ref_type)
      : terms_(terms), s_(s), type_(std::move(ref_type)) {}

  /// The reference term of the step, or why its claimed layout does not follow.
  StepCheck run();

 private:
  StepCheck refuse(std::string why) { return {std::nullopt, std::move(why)}; }
  StepCheck unsupported(std::string why) { return {std::nullopt, std::move(why), true}; }
  const AxisLayout& claimed(size_t a) const { return s_.claimed.axes[a]; }
  const AxisLayout& operand(size_t i, size_t a) const { return s_.layouts[i].axes[a]; }
  const Term& term(size_t i) const { return terms_[s_.terms[i]]; }
  std::string said(size_t i, size_t a) const {
    return "operand " + std::to_string(i) + " is " + text(operand(i, a), a, s_.mesh);
  }
  std::string claim(size_t a) const { return "the claim " + text(claimed(a), a, s_.mesh); }
  /// The step's reference term: its op (as `as` writes it, else as the step does) on `args`.
  TermId make(std::vector<TermId> args, const ir::Instruction* as = nullptr) {
    const ir::Instruction& i = as ? *as : s_.instr;
    return terms_.intern(term_op(s_.dist, i), canonical_attrs(s_.dist, i), type_, std::move(args),
                         &i);
  }

  // Value ops (layout_steps.cpp).
  /// An elementwise op: operands sharded alike (splat constants at any shape), or partial
  /// values through the ops linear in them.
  StepCheck elementwise(const std::string& op);
  /// broadcast and iota: kept dims carry their operand's shards; a new dim may be held in
  /// blocks (every position along it holds the same value).
  StepCheck broadcast(const std::string& op);
  /// transpose: shards move with their dims.
  StepCheck transpose();
  /// reshape: a shard stays one when the dims before it hold as many elements on both sides.
  StepCheck reshape();
  /// dot: batch and free dims carry shards; both halves of a contraction sharded give a
  /// partial sum; a partial operand times a replicated one stays partial.
  StepCheck dot();
  /// dot of two operands holding blocks along one axis (both halves of a contraction, or free
  /// dims, or one of each): each rank's product is block r of XLA's dot batched over the
  /// blocks, the blocks merged into the dim the claim shards. nullopt: not such a step.
  std::optional<StepCheck> blockwise_dot();
  /// convolution: the batch, the output features (from the kernel) and spatial dims under a
  /// one-element window carry shards; input features sharded in both operands give a partial
  /// sum; linear in each operand.
  StepCheck convolution();
  /// reduce: a reduced dim sharded gives a partial value of the reducer (from its identity);
  /// kept dims carry shards.
  StepCheck reduce();
  /// RMS norm along `axis`: rows along other dims are normalised each on their own, so those
  /// dims may be sharded; the axis may not, and weight and epsilon are replicated.
  StepCheck rms_norm(int64_t axis);

  // Indexing ops (layout_steps_indexing.cpp).
  /// slice: a dim ranks hold blocks of is taken whole.
  StepCheck slice();
  /// concatenate: operands alike, not joined along a dim ranks hold blocks of.
  StepCheck concatenate();
  /// scatter(operand, indices, updates): a dim of the operand that every update window covers
  /// whole (not a scatter dim, not an inserted one) may be sharded alike in operand and updates.
  StepCheck scatter();
  /// pad(x, v): dims ranks hold blocks of are not padded; a partial sum pads with 0 (a max or
  /// min with anything).
  StepCheck pad();
  /// reverse(x): a dim ranks hold blocks of is not reversed (that would reverse their order).
  StepCheck reverse();
  /// dynamic-slice(x, starts…): along a dim ranks hold blocks of, the slice takes the whole
  /// block (XLA clamps its start to 0).
  StepCheck dynamic_slice();
  /// dynamic-update-slice(x, u, starts…): along a dim ranks hold blocks of, the update covers
  /// the whole block (its start clamped to 0) and is sharded alike.
  StepCheck dynamic_update_slice();
  /// gather(x, indices): a dim of x gathered whole (not collapsed, not indexed) may be sharded;
  /// the result holds the same blocks in its offset dim.
  StepCheck gather();
  /// sort, map, reduce-window, select-and-scatter: functions of a called computation over
  /// windows; a dim ranks hold blocks of must be one no window crosses (not the sorted dim, a
  /// window of one element with stride one), in every value operand alike.
  StepCheck windowed(const std::string& op);
  /// Index operands (from `first` on) must be the same on every rank.
  std::optional<StepCheck> indices_replicated(size_t first);
  /// Sets entry `dim` of DimList attribute `key` of `instr` to the reference extent `extent` (a
  /// slice size along a dim ranks hold blocks of), as the reference writes it.
  static void set_extent(ir::Instruction& instr, const std::string& key, int32_t dim,
                         int64_t extent);

  TermTable& terms_;
  const Step& s_;
  ir::Type type_;
};

}  // namespace scalify::proofcheck::detail
