// Reference values as terms, for the independent proof checker: every value a proof talks about
// is an operation on earlier terms, hash-consed, so that two terms denote the same computation
// exactly when they have the same id. The reference program's nodes and the terms a proof's
// steps build live in one table; a step naming reference node X holds when the term it builds
// is X's term.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/data_view.h"
#include "ir/module.h"
#include "rules/rule_ast.h"

namespace scalify::proofcheck {

using TermId = uint32_t;

/// One operation: the opcode as written, its attributes in a canonical text (names of called
/// computations replaced by their bodies, so that `to_apply=%add.5` of one program and
/// `to_apply=%add.9` of the other compare by what they compute), its type and its operands.
struct Term {
  std::string op;
  std::string attrs;
  ir::Type type;
  std::vector<TermId> args;
  std::optional<double> splat;  ///< the value is this number at every position
};

/// An identity rule of the rule files: `(OP ?x :key value …) => ?x`, such as Neuron's transfer
/// custom call. The only rewrites the proof checker applies: a term matching one is its
/// operand's term.
struct IdentityRule {
  std::string name, op;
  std::vector<std::pair<std::string, std::string>> attrs;  ///< key, value as written
};

/// The identity rules among `file`'s rewrites (the rest are ignored).
std::vector<IdentityRule> identity_rules(const rules::RuleFile& file);

/// The canonical attribute text of `instr` of `module` (what makes two instructions of the same
/// opcode compute the same function): sorted `key=value` pairs without the ones that only
/// place, schedule or annotate (sharding, metadata, replica groups, channel ids, precision…).
///
///   // %r = f32[4] reduce(%x, %z), dimensions={1}, to_apply=%add.3
///   canonical_attrs(m, r) == "dimensions={1},to_apply={p0:f32[] p1:f32[] add(0,1)}"
std::string canonical_attrs(const ir::Module& module, const ir::Instruction& instr);

/// The op a term of `instr` (of `module`'s ENTRY) is written with: its opcode, but `reshape`
/// for a bitcast that keeps its elements' row-major order (ir::bitcast_is_reshape); a bitcast
/// that moves them stays a `bitcast`, its canonical attributes naming both layouts.
///
///   // %b = f32[32]{0} bitcast(f32[4,8]{1,0} %x)
///   term_op(m, b) == "reshape"
std::string term_op(const ir::Module& module, const ir::Instruction& instr);

class TermTable {
 public:
  explicit TermTable(std::vector<IdentityRule> identities = {})
      : identities_(std::move(identities)) {}

  /// The term `op(args)` with `attrs` and `type`, made once. `instr` (when given) is checked
  /// against the identity rules first: a match returns args[0] and counts the rule as used.
  TermId intern(const std::string& op, const std::string& attrs, const ir::Type& type,
                std::vector<TermId> args, const ir::Instruction* instr = nullptr);
  /// The term of instruction `id` of `module`'s ENTRY (its operands' terms first; memoised per
  /// module). Parameters are terms of their number.
  TermId of_node(const ir::Module& module, ir::InstrId id);
  /// The term of a bitcast of `x` from `from` to `to` (both with their layouts): the data
  /// movement the layouts make of it (ir::bitcast_steps), a reshape when they are both
  /// row-major; nullopt when a layout is tiled (then the bitcast is an op of its own).
  std::optional<TermId> bitcast(TermId x, const ir::Type& from, const ir::Type& to);
  /// The identity rules it applies (a table for another pair of programs starts from them).
  const std::vector<IdentityRule>& identities() const { return identities_; }
  /// The identity rule `instr` matches, if any.
  const IdentityRule* identity_for(const ir::Instruction& instr) const;
  /// A splat value (a broadcast scalar constant) at another shape.
  TermId resized_splat(TermId splat, const std::vector<int64_t>& dims);
  /// `view` of `base` written in the normal form (a view of a view composed into one view of
  /// the first one's base).
  TermId view_term(TermId base, const ir::DataView& view, ir::DType dtype);

  /// `x` rotated along `dim` by `shift` elements (element i is element (i + shift) mod N of
  /// x): block r of it is what rank r holds after ring steps pass blocks one rank on. A rotation
  /// of a rotation along one dim is one rotation of the first one's value (none: x itself).
  TermId rotated(TermId x, int64_t dim, int64_t shift);
  struct Rotation {
    TermId base = 0;
    int64_t dim = 0, shift = 0;
  };
  /// The value x rotates and how, when x was made by rotated().
  std::optional<Rotation> rotation_of(TermId x) const;

  /// Takes `value` (a reference value) to be non-zero, as a stated assumption says: then
  /// `select(value != 0, value, c)` is `value`.
  void assume_nonzero(TermId value) { nonzero_.push_back(value); }
  /// The term `c * x` (x itself when c is 1; factors multiply).
  TermId scaled(double c, TermId x);

  const Term& operator[](TermId id) const { return terms_[id]; }
  /// Identity rules applied, by name (`xla:convert-identity` for XLA's own).
  const std::unordered_map<std::string, size_t>& identities_used() const { return used_; }
  /// `dot(f32[8,4] #3, #7)`: a short text for messages.
  std::string describe(TermId id) const;
  /// Whether `a` and `b` hold the same elements of one term in the same order: chains of
  /// reshapes and transposes of one base, compared index by index (bases of at most 2^22
  /// elements). A reshape across a transpose's factors has no DataView normal form, yet it is
  /// still a permutation of its base: two programs that move a value so meet here.
  ///
  ///   // b = transpose(reshape(x, [2,3,4]), {0,2,1}) written once as a chain, once composed
  ///   same_elements(chain, composed) == true
  bool same_elements(TermId a, TermId b) const;

 private:
  /// The term itself, hash-consed, no rewriting.
  TermId raw(const std::string& op, const std::string& attrs, const ir::Type& type,
             std::vector<TermId> args, std::optional<double> splat);
  /// Constant factors pulled out of linear ops (reference_scaling.cpp): `multiply(x, 2)` is
  /// `2 * x`, `dot(2 * x, y)` is `2 * dot(x, y)`…, so that terms equal up to where a program
  /// applies a constant factor meet. nullopt when the op takes no factor out.
  std::optional<TermId> pull_factor(const std::string& op, const std::string& attrs,
                                    const ir::Type& type, const std::vector<TermId>& args,
                                    const ir::Instruction* instr);
  /// Data movement and dots in one normal form (reference_views.cpp): a chain of reshapes and
  /// transposes as DataView's canonical reshape, transpose, reshape of the value it moves; a dot
  /// with its operands transposed to (batch, free, contracting) order. nullopt: no such op.
  std::optional<TermId> normal_form(const std::string& op, const std::string& attrs,
                                    const ir::Type& type, const std::vector<TermId>& args,
                                    const ir::Instruction* instr);
  /// An elementwise op of a rotation (with splats, broadcasts repeated along the rotated dim,
  /// or the same rotation of other values) as the rotation of the op.
  std::optional<TermId> rotation_outside(const std::string& op, const std::string& attrs,
                                         const ir::Type& type, const std::vector<TermId>& args,
                                         const ir::Instruction* instr);
  /// An elementwise op of operands that are one view (scalars aside) as the view of the op.
  std::optional<TermId> view_outside(const std::string& op, const std::string& attrs,
                                     const ir::Type& type, const std::vector<TermId>& args);
  /// Neuron's RMS norm of a view as a view of the norm (ir::norm_through).
  std::optional<TermId> rms_norm_form(const std::string& attrs, const ir::Type& type,
                                      const std::vector<TermId>& args, int64_t axis);
  /// A reduce of a view as a view of a reduce (ir::reduce_through).
  std::optional<TermId> reduce_form(const std::string& attrs, const ir::Type& type,
                                    const std::vector<TermId>& args, const ir::DimList& dims);
  /// A reshape of a broadcast as a broadcast of a reshape (ir::broadcast_reshaped).
  std::optional<TermId> reshaped_broadcast(TermId broadcast, const ir::Type& type);
  /// The value x moves and how (x itself, unmoved, when it is no view).
  std::pair<TermId, ir::DataView> view_of(TermId x) const;
  /// `select(x != 0, x, c)` of an x assumed non-zero.
  std::optional<TermId> guarded_nonzero(const std::string& op, const std::vector<TermId>& args);
  /// The operand, when the op returns it by XLA's semantics (a convert to its own type, a
  /// transpose by the identity, a slice of all of a gathered value's unpadded part…).
  std::optional<TermId> xla_identity(const std::string& op, const std::string& attrs,
                                     const ir::Type& type, const std::vector<TermId>& args,
                                     const ir::Instruction* instr) const;

  std::vector<IdentityRule> identities_;
  std::unordered_map<std::string, size_t> used_;
  std::vector<TermId> nonzero_;
  std::vector<Term> terms_;
  std::unordered_map<std::string, TermId> index_;
  std::unordered_map<TermId, std::pair<TermId, ir::DataView>> views_;
  std::unordered_map<TermId, Rotation> rotations_;
  std::unordered_map<const ir::Module*, std::vector<std::optional<TermId>>> nodes_;
};

}  // namespace scalify::proofcheck
