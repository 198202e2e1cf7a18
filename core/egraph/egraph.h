// EGraph: hash-consed e-nodes in e-classes under a union-find, with deferred rebuilding, a
// tensor-type analysis that refuses to merge values of different types, an optional
// constant-folding analysis, and a log of every union with its reason (for proofs).
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "egraph/enode.h"
#include "egraph/hash_cons.h"
#include "egraph/union_find.h"

namespace scalify::egraph {

/// The type every e-class carries (an id the caller interns for dtype + shape). Equal values
/// have equal types, so merging classes of different types would be unsound.
using TypeId = uint32_t;

/// "No constant": the value of EGraph::constant_of for a class not known to be a constant.
inline constexpr uint32_t kNoConstant = 0xffffffffu;

/// A merge the e-graph refused: the two classes' types differ, or they are known to be two
/// different constants.
struct Conflict {
  ClassId a, b;
  TypeId type_a, type_b;
  uint32_t constant_a = kNoConstant, constant_b = kNoConstant;  ///< set for a constant clash
};
using TypeConflict = Conflict;

/// Why two e-nodes were declared equal. `rule` and `detail` are the caller's (a rule index and
/// the index of its match, an axiom's number…); the e-graph itself only ever records
/// kCongruence (same operator, equal children) and kConstant (folding gave this constant).
struct Reason {
  enum class Kind : uint8_t { kAxiom, kRule, kCongruence, kConstant };
  Kind kind = Kind::kAxiom;
  uint32_t rule = 0;
  uint32_t detail = 0;
};

/// One union, between the two node ids it was asked for (not their classes): the edges of the
/// proof forest that explanations walk.
struct UnionRecord {
  ClassId a, b;
  Reason reason;
};

/// Constant folding as an e-class analysis (egg's `ConstantFold`): a class whose value some
/// node computes from constants gets that constant, a `constant_op` leaf is added to it, and,
/// with `prune`, its other non-leaf nodes are dropped from matching (they stay in the
/// hash-cons, so congruence still holds for them).
struct ConstantFolding {
  Symbol constant_op = 0;  ///< the nullary operator whose payload is the constant
  /// The constant `node` computes given its children's constants (kNoConstant when a child is
  /// not constant), or kNoConstant.
  std::function<uint32_t(const ENode& node, std::span<const uint32_t> child_constants)> fold;
  bool prune = true;
};

/// An egg-style e-graph. Adding a node that exists returns its class (hash-consing); merge
/// records an equality and queues the repair of its parents; rebuild() restores congruence
/// (`a == b` implies `f(a) == f(b)`) and canonical nodes once, for a whole batch of merges.
/// Every node gets its own id in the union-find (the class of its first node is the class's
/// first id), so that unions can be explained node by node.
///
///   EGraph g;
///   ClassId a = g.add({sym_a, 0, {}}, f32);
///   ClassId b = g.add({sym_b, 0, {}}, f32);
///   ClassId fa = g.add({sym_f, 0, {a}}, f32), fb = g.add({sym_f, 0, {b}}, f32);
///   g.merge(a, b);
///   g.rebuild();
///   g.find(fa) == g.find(fb);   // by congruence
class EGraph {
 public:
  /// With `explanations`, every node id denotes one exact term: a node added with children
  /// that differ from the stored node's (though equal as classes) gets an id of its own, joined
  /// to the stored one by congruence (egg's explanation mode). explain() needs this.
  explicit EGraph(bool explanations = false) : explanations_(explanations) {}
  bool explanations() const { return explanations_; }

  /// The canonical class of `node` (children need not be canonical), adding it with type
  /// `type` if new. A node already present keeps its class, whose type type_of() tells.
  ClassId add(ENode node, TypeId type) { return find(add_node(std::move(node), type)); }
  /// Like add(), but returns the node's own id (stable, for explanations).
  ClassId add_node(ENode node, TypeId type) {
    return add_node_typed(std::move(node), [type](const ENode&) { return type; });
  }
  /// Like add_node(), typing a new node with `type_of(canonical node)`; an existing node is
  /// found without calling it (one hash-cons lookup either way).
  template <class TypeOf>
  ClassId add_node_typed(ENode node, const TypeOf& type_of) {
    ENode canonical = node;
    canonicalize(canonical);
    if (auto existing = memo_.find(canonical)) {
      if (!explanations_ || node_of_id_[*existing].children == node.children) return *existing;
      return add_alias(std::move(node), *existing);
    }
    const TypeId type = type_of(static_cast<const ENode&>(canonical));
    return insert_new(std::move(node), std::move(canonical), type);
  }
  /// The canonical class of `node` if the e-graph holds it.
  std::optional<ClassId> lookup(ENode node);
  /// The node's own id if the e-graph holds it.
  std::optional<ClassId> lookup_node(ENode node) const;

  /// Records a == b for `reason`. Returns the conflict instead (and merges nothing) if their
  /// types or constants differ. Returns nothing either when they were already equal. Until
  /// rebuild(), congruence may be incomplete.
  std::optional<Conflict> merge(ClassId a, ClassId b, Reason reason = {});
  /// What rebuild() did: merges that congruence implied, and those it had to refuse because
  /// congruent nodes were given different types (a caller's error, reported, never merged).
  struct Rebuilt {
    size_t congruence_merges = 0;
    std::vector<Conflict> conflicts;
  };
  /// Restores the invariants after merges: congruence closure, analysis, canonical and sorted
  /// node lists, one hash-cons entry per node.
  Rebuilt rebuild();

  ClassId find(ClassId c) { return uf_.find(c); }
  ClassId find(ClassId c) const { return uf_.find_const(c); }
  TypeId type_of(ClassId c) const { return classes_[find(c)].type; }
  /// The constant class c is known to hold (kNoConstant if none; see ConstantFolding).
  uint32_t constant_of(ClassId c) const { return classes_[find(c)].constant; }
  /// The nodes of class c: canonical and sorted by (op, payload, children) after rebuild().
  const std::vector<ENode>& nodes(ClassId c) const { return classes_[find(c)].nodes; }
  /// The node a node id was added as (its children as they were then: with explanations, the
  /// ids of exact subterms).
  const ENode& node_of_id(ClassId id) const { return node_of_id_[id]; }

  /// The canonical ids of all classes, ascending.
  std::vector<ClassId> class_ids() const;

  void set_constant_folding(ConstantFolding folding) { folding_ = std::move(folding); }
  /// The operator of constant leaves, if constant folding is on.
  std::optional<Symbol> constant_op() const {
    return folding_ ? std::optional(folding_->constant_op) : std::nullopt;
  }

  /// Number of live classes; of distinct nodes (the hash-cons); of nodes visible to matching
  /// (what pruning leaves); all exact after rebuild().
  size_t class_count() const { return live_classes_; }
  size_t node_count() const { return memo_.size(); }
  size_t visible_node_count() const;
  /// Number of ids ever made (nodes added).
  size_t id_count() const { return uf_.size(); }
  bool clean() const { return pending_.empty() && analysis_pending_.empty(); }
  /// Every union performed, in order, with its reason.
  const std::vector<UnionRecord>& unions() const { return unions_; }
  /// Conflicts met outside rebuild() and merge() results (inside the analysis), to report.
  std::vector<Conflict> take_analysis_conflicts() { return std::exchange(analysis_conflicts_, {}); }

 private:
  struct EClass {
    TypeId type = 0;
    uint32_t constant = kNoConstant;
    std::vector<ENode> nodes;
    std::vector<ClassId> parents;  ///< ids of the nodes that use this class
  };
  void canonicalize(ENode& node) {
    for (ClassId& c : node.children) c = uf_.find(c);
  }
  /// Adds a node whose canonical form is known to be absent.
  ClassId insert_new(ENode node, ENode canonical, TypeId type);
  /// A new id for `node`, equal by congruence to the stored node `existing`.
  ClassId add_alias(ENode node, ClassId existing);
  uint32_t make_constant(const ENode& node);
  /// egg's `modify`: a constant class gets its constant leaf (merged with `folded`, the node
  /// whose folding found the constant, if any) and loses its non-leaf nodes.
  void settle_constant(ClassId c, std::optional<ClassId> folded);

  UnionFind uf_;
  std::vector<EClass> classes_;  ///< by id; meaningful at canonical ids
  std::vector<ENode> node_of_id_;
  HashCons memo_;                          ///< canonical node -> the id of the node that holds it
  std::vector<ClassId> pending_;           ///< node ids whose children changed class
  std::vector<ClassId> analysis_pending_;  ///< node ids whose children's constants changed
  std::vector<ClassId> dirty_;  ///< classes whose node lists need canonicalising and sorting
  std::vector<UnionRecord> unions_;
  std::vector<Conflict> analysis_conflicts_;
  std::optional<ConstantFolding> folding_;
  size_t live_classes_ = 0;
  bool explanations_ = false;
};

}  // namespace scalify::egraph
