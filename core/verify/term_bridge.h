// The bridge from HLO instructions to e-graph terms, written as rules/README.md ("Tensor rules")
// says, so that the bundled rewrites match what the bridge builds.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "egraph/egraph.h"
#include "egraph/vocabulary.h"
#include "ir/data_view.h"
#include "ir/module.h"
#include "verify/layout.h"
#include "verify/type_table.h"

namespace scalify::verify {

/// Adds instructions to an e-graph as terms over given operand classes. The checker calls it
/// for every reference instruction (operands: the reference's own terms) and for every
/// distributed instruction whose layout it can lift (operands: the reference terms the
/// distributed operands stand for, type: the reference type), so that both land on one
/// hash-consed node when they compute the same thing. Chains of reshapes and transposes are
/// written in DataView's normal form (one reshape, transpose, reshape of the value they move)
/// and dots with their operands transposed to (batch, free, contracting) order, so that programs
/// laying out the same values differently meet without a search.
///
///   TermBridge bridge(g, vocab, types);
///   auto x = bridge.encode(ref, ref.entry(), instr, operand_ids, instr.type);
///   if (!x) std::cerr << x.why;   // e.g. "`while` is not supported yet"
class TermBridge {
 public:
  TermBridge(egraph::EGraph& g, egraph::Vocabulary& vocab, TypeTable& types)
      : g_(g), vocab_(vocab), types_(types) {}

  struct Encoded {
    std::optional<egraph::ClassId> id;  ///< the node's id (g.find gives its class)
    std::string why;                    ///< when there is no id: what is not supported
    explicit operator bool() const { return id.has_value(); }
  };

  /// The term of `instr` over `operands` (one per instr.operands), of type `type`. Leaves get
  /// `leaf_tag` in their payload (parameters: the side; random ops: the site) so that leaves
  /// of different programs stay apart.
  Encoded encode(const ir::Module& module, const ir::Instruction& instr,
                 std::span<const egraph::ClassId> operands, const ir::Type& type,
                 std::string_view leaf_tag);

  /// Why `instr` cannot become a term whatever its operands: control flow left after inlining
  /// (ir/inline_calls.h) — a loop whose trip count is not a constant, a conditional whose
  /// branch depends on the data. nullopt for any other instruction.
  static std::optional<std::string> control_flow_left(const ir::Instruction& instr);

  /// A leaf standing for an unknown value of `type` (padding a rank holds): `(unknown :site S)`.
  egraph::ClassId unknown(std::string_view site, const ir::Type& type);
  /// `(concatenate parts… :dimensions [dim])` of type `type`.
  egraph::ClassId concatenate(std::span<const egraph::ClassId> parts, int64_t dim,
                              const ir::Type& type);

  /// The number `v` (a scalar constant, standing for a splat of any shape).
  egraph::ClassId number(double v);
  /// `(multiply x v)`: x scaled by the number v, of x's type.
  egraph::ClassId scale(egraph::ClassId x, double v);

  /// x reshaped to `type`'s dims, in the normal form.
  egraph::ClassId reshape(egraph::ClassId x, const ir::Type& type);
  /// x transposed by `permutation` (XLA's: result dim i is dim permutation[i]), of type `type`,
  /// in the normal form.
  egraph::ClassId transpose(egraph::ClassId x, std::span<const int64_t> permutation,
                            const ir::Type& type);

  /// x (an array of element type `dtype`) moved as `view` says (view.base is x's shape), in the
  /// normal form.
  egraph::ClassId view(egraph::ClassId x, const ir::DataView& view, ir::DType dtype);

  /// The value x moves, when the bridge wrote x as a view of it (reshapes and transposes in
  /// the normal form): x holds that value's elements, laid out differently.
  std::optional<egraph::ClassId> moved_from(egraph::ClassId x) const;
  /// Whether the bridge wrote x as a view that reorders the elements of the value it moves (a
  /// transpose, perhaps with reshapes), not as a reshape alone.
  bool reorders(egraph::ClassId x) const;
  /// The operand x repeats, when the bridge wrote x as a broadcast of an array.
  std::optional<egraph::ClassId> broadcast_of(egraph::ClassId x) const;

  /// x rotated along `dim` by `shift` elements (element i of the result is element
  /// (i + shift) mod N of x, N its extent): block r of such a value is what rank r holds after
  /// ring steps pass blocks one rank on (a windowed einsum). Written as
  /// `(concatenate (slice x shift:N) (slice x 0:shift))`; a rotation of a rotation along one dim
  /// is one rotation of the first one's value, by the shifts' sum (none: x itself).
  egraph::ClassId rotate(egraph::ClassId x, int64_t dim, int64_t shift);
  struct Rotation {
    egraph::ClassId base;
    int64_t dim = 0, shift = 0;
  };
  /// The value x rotates and how, when the bridge wrote x as a rotation.
  std::optional<Rotation> rotation_of(egraph::ClassId x) const;
  /// Whether the bridge built x from a rotation (at any depth): which block of it a rank holds
  /// is then more than its layout says, where no normal form took the rotation out.
  bool built_on_rotation(egraph::ClassId x) const { return written_.on_rotation.count(x) > 0; }

  /// What the bridge remembers of the terms it wrote, by class: together with the e-graph,
  /// vocabulary and type table, all the state a bridge has. A copy of the four continues
  /// where the originals stood (a reference encoded once for several checks).
  struct Written {
    std::unordered_map<egraph::ClassId, egraph::ClassId> broadcast_numbers;
    std::unordered_map<egraph::ClassId, double> numbers;
    /// Per broadcast of an array the bridge wrote: its operand, kept dims and shape.
    struct Broadcast {
      egraph::ClassId operand;
      std::vector<int64_t> kept, shape;
    };
    std::unordered_map<egraph::ClassId, Broadcast> broadcasts;
    /// Per class written as a rotation (rotate()).
    std::unordered_map<egraph::ClassId, Rotation> rotations;
    std::unordered_set<egraph::ClassId> on_rotation;  ///< rotations and terms built on them
    /// Per class written as a view: the value it moves and the view.
    std::unordered_map<egraph::ClassId, std::pair<egraph::ClassId, ir::DataView>> views;
  };
  const Written& written() const { return written_; }
  void restore(Written written) { written_ = std::move(written); }

  /// `(get-tuple-element t :index i)` of type `type`.
  egraph::ClassId get_tuple_element(egraph::ClassId t, int64_t i, const ir::Type& type);

  /// The number `c` stands for when it is a broadcast scalar constant, else `c`.
  egraph::ClassId number_view(egraph::ClassId c) const;
  /// The value of a number class, if `c` is (a broadcast of) one.
  std::optional<double> number_value(egraph::ClassId c) const;

 private:
  egraph::ClassId add(std::string_view op, egraph::Attrs attrs,
                      std::span<const egraph::ClassId> children, egraph::TypeId type);
  /// The value x moves (x itself when it is no view of another) and how.
  std::optional<std::pair<egraph::ClassId, ir::DataView>> view_of(egraph::ClassId x) const;
  /// `view` of `base` in the normal form; nullopt when `view` is not a factor permutation.
  std::optional<egraph::ClassId> moved(egraph::ClassId x, const std::optional<ir::DataView>& view);
  egraph::ClassId emit_view(egraph::ClassId base, const ir::DataView& view, ir::DType dtype);
  /// A reduce of a view as a view of a reduce (ir::reduce_through).
  std::optional<egraph::ClassId> normal_reduce(std::span<const egraph::ClassId> operands,
                                               const std::vector<int64_t>& dims,
                                               const std::string& reducer, const ir::Type& type);
  /// Neuron's RMS norm of a view as a view of the norm (ir::norm_through): x, weight, epsilon.
  std::optional<egraph::ClassId> normal_rms_norm(std::span<const egraph::ClassId> operands,
                                                 int64_t axis, const ir::Type& type);
  /// `(slice x :start_indices … :limit_indices … :strides …)` of type `type`.
  egraph::ClassId slice(egraph::ClassId x, std::vector<int64_t> start, std::vector<int64_t> limit,
                        std::vector<int64_t> stride, egraph::TypeId type);
  /// An elementwise op of a rotation (with numbers, broadcasts repeated along the rotated dim,
  /// or the same rotation of other values) as the rotation of the op.
  std::optional<egraph::ClassId> elementwise_rotation(const std::string& name,
                                                      std::span<const egraph::ClassId> operands,
                                                      egraph::TypeId type);
  /// A dot with its operands in (batch, free, contracting) order.
  std::optional<egraph::ClassId> normal_dot(const ir::Instruction& instr,
                                            std::span<const egraph::ClassId> operands,
                                            egraph::TypeId type);

  egraph::EGraph& g_;
  egraph::Vocabulary& vocab_;
  TypeTable& types_;
  Written written_;
};

/// Elementwise ops (and compare, select, clamp): they take a broadcast scalar constant as the
/// number it is, on any shape.
bool takes_numbers(ir::Opcode op);

/// Attributes that say nothing about the value (placement, scheduling, provenance).
bool value_neutral(std::string_view key);

/// A scalar constant's value, if its literal is a plain number (not pred, complex or nan).
std::optional<double> scalar_value(const ir::Instruction& instr);

/// A custom call that returns its one operand (`AwsNeuronTransferWithStaticRing`, `Sharding`).
bool is_identity_call(const ir::Instruction& instr);

/// How `instr`'s reducer (its first called computation) combines values: `add` is a sum,
/// `maximum` a max, …; nullopt for anything else.
std::optional<ReduceOp> reducer_op(const ir::Module& module, const ir::Instruction& instr);

/// Whether the bridge writes `instr` by what a computation it calls computes (a sort's
/// comparator, a reduce-window's body, a reduce that is not one binary op), not by a rule's op.
bool calls_opaque_computation(const ir::Module& module, const ir::Instruction& instr);

/// Why computation `comp` of `module` is no pure function of its parameters (it, or one it
/// calls, communicates, reads the rank, draws random numbers or does I/O); nullopt when it is.
/// The bridge names a pure called computation by its fingerprint.
///
///   impure_reason(m, *m.find_computation("cmp")) == std::nullopt       // a comparator
///   *impure_reason(m, *m.find_computation("body")) == "communicates (`all-reduce`)"
std::optional<std::string> impure_reason(const ir::Module& module, ir::CompId comp, int depth = 0);

/// The name the rules give a reducer computation: its one binary op (`add`, `maximum`, …) or
/// `assign` (returns its second parameter); nullopt for anything else.
std::optional<std::string> reducer_name(const ir::Module& module, ir::CompId comp);

}  // namespace scalify::verify
