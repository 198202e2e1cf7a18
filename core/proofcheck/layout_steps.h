// The proof checker's kernel: does a layout follow from the operands' layouts through one op?
// Written apart from the checker's own propagation (verify/propagation.h, factor signatures),
// from XLA's operation semantics, one op family at a time, checking a claim rather than finding
// one: that is what makes a proof it accepts independently checked.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "ir/module.h"
#include "proofcheck/reference_terms.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::proofcheck {

/// One step `instr(operands)` of the distributed program: the operands' layouts and reference
/// terms (from earlier facts), and the layout the step claims for the result (element
/// `element` of a tuple-valued op, else -1).
struct Step {
  const ir::Module& dist;
  const ir::Instruction& instr;
  std::span<const verify::Layout> layouts;
  std::span<const TermId> terms;
  const verify::Layout& claimed;
  int64_t element = -1;
  const verify::Mesh& mesh;
};

/// The reference term the step computes, when the claimed layout follows from the operands';
/// else why not ("operand 1 is shard(0,tp) but `dot` contracts dimension 1 of it").
///
///   // %d = f32[8,4] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
///   //   with %x shard(1,tp) of X and %w shard(0,tp) of W, claimed partial(sum,tp)
///   auto t = check_step(terms, step);   // the term dot(X, W) of type f32[8,4]
struct StepCheck {
  std::optional<TermId> term;
  std::string why;
  /// The kernel has no rule for this step (an op or layout it does not model): the proof may
  /// be right, but it is not re-checked.
  bool unsupported = false;
};
StepCheck check_step(TermTable& terms, const Step& step);

/// The combination `instr`'s `to_apply` performs (a reduce, all-reduce, reduce-scatter) when its
/// root is one sum, max, min or product of its two parameters.
///
///   // %add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = add(a, b) }
///   reduction_of(m, all_reduce) == verify::ReduceOp::kSum
std::optional<verify::ReduceOp> reduction_of(const ir::Module& module,
                                             const ir::Instruction& instr);

/// True when `instr` (or a computation it calls) computes something that differs by rank:
/// partition-id, replica-id, random numbers, collectives, communication.
bool rank_dependent(const ir::Module& module, const ir::Instruction& instr);

}  // namespace scalify::proofcheck
