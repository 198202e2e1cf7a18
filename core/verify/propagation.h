// Lifting one distributed instruction to the reference: given its operands' layouts, the
// layout of its result and the reference term it stands for, or the reason there is none
// (where most real bugs surface).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <variant>

#include "ir/data_view.h"
#include "ir/module.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// What the checker knows of one (array) operand.
struct OperandView {
  Layout layout;
  ir::Type ref_type;             ///< the type of the reference value it stands for
  std::optional<double> number;  ///< the reference value is this constant everywhere
};

/// How a distributed value relates to the reference after the instruction.
struct Lift {
  enum class Term : uint8_t {
    kApply,    ///< the op applied to the operands' reference terms: encode `ref_instr`
    kOperand,  ///< operand `operand`'s reference term itself (collectives, identities)
    kPadded,   ///< operand's reference term concatenated with unknown padding along `pad_dim`
    /// a dot read block by block: the operands' terms reshaped to `split`, `ref_instr` (a dot
    /// batched over the blocks) applied, transposed by `block_order` (when given) and reshaped
    /// to `ref_type`
    kBlockwise,
    /// operand `operand`'s reference term moved as `view` says (an all-to-all)
    kView,
    /// operand `operand`'s reference term times `factor` (a sum of equal copies)
    kScaled,
    /// operand `operand`'s reference term rotated along `rotation_dim` by `rotation` elements
    /// (TermBridge::rotate): a shard passed one rank on along a ring
    kRotated,
  };
  Layout layout;
  Term term = Term::kApply;
  ir::Instruction ref_instr;         ///< kApply: the instruction as the reference would write it
  ir::Type ref_type;                 ///< the reference type of the result
  size_t operand = 0;                ///< kOperand, kPadded
  int32_t pad_dim = -1;              ///< kPadded
  std::vector<ir::Type> split;       ///< kBlockwise: the operands' reference types, split
  std::vector<int64_t> block_order;  ///< kBlockwise: the blocks moved next to their dim
  std::optional<ir::DataView> view;  ///< kView
  double factor = 1;                 ///< kScaled
  int32_t rotation_dim = -1;         ///< kRotated
  int64_t rotation = 0;              ///< kRotated
  std::string rule;  ///< the semantics applied, for proofs: "factor:dot", "all-reduce"…
};

/// The rule of an all-reduce that sums equal copies (its value: their number times the
/// operand's).
inline constexpr std::string_view kSumOfCopies = "all-reduce of equal copies";

/// Why an instruction gets no layout: a sentence a person can act on.
struct NoLift {
  std::string reason;
  /// The checker does not model this (yet): the program may well be right; the check is then
  /// inconclusive rather than divergent.
  bool unsupported = false;
};

/// Lifts an array-valued instruction `instr` of `comp` (in the distributed module) given one
/// view per operand: every way the result relates to the reference (usually one; a reshape may
/// fit several reference reshapes). Tuples and get-tuple-element are the checker's job (element by
/// element).
///
///   // %e = f32[4,2] exponential(%p)   with %p partial(sum,tp)
///   std::get<NoLift>(lift(m, comp, e, views, mesh)).reason ==
///     "operand 0 is partial(sum,tp) and `exponential` is not linear: an all-reduce is missing "
///     "upstream"
std::variant<std::vector<Lift>, NoLift> lift(const ir::Module& module, const ir::Computation& comp,
                                             const ir::Instruction& instr,
                                             std::span<const OperandView> operands,
                                             const Mesh& mesh);

}  // namespace scalify::verify
