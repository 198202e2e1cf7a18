// EGraph: hash-consed e-nodes in e-classes under a union-find, with deferred rebuilding and a
// tensor-type analysis that refuses to merge values of different types.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/enode.h"
#include "egraph/union_find.h"

namespace scalify::egraph {

/// The type every e-class carries (an id the caller interns for dtype + shape). Equal values
/// have equal types, so merging classes of different types would be unsound.
using TypeId = uint32_t;

/// A merge the e-graph refused: the two classes' types differ.
struct TypeConflict {
  ClassId a, b;
  TypeId type_a, type_b;
};

/// An egg-style e-graph. Adding a node that exists returns its class (hash-consing); merge
/// records an equality and queues the repair of its parents; rebuild() restores congruence
/// (`a == b` implies `f(a) == f(b)`) and canonical nodes once, for a whole batch of merges.
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
  /// The class of `node` (children need not be canonical), adding it if new with type `type`.
  /// A node already present keeps its class, whose type type_of() tells.
  ClassId add(ENode node, TypeId type);
  /// The class of `node` if the e-graph holds it.
  std::optional<ClassId> lookup(ENode node);

  /// Records a == b. Returns the conflict instead (and merges nothing) if their types differ.
  /// Until rebuild(), congruence may be incomplete.
  std::optional<TypeConflict> merge(ClassId a, ClassId b);
  /// What rebuild() did: merges that congruence implied, and those it had to refuse because
  /// congruent nodes were given different types (a caller's error, reported, never merged).
  struct Rebuilt {
    size_t congruence_merges = 0;
    std::vector<TypeConflict> conflicts;
  };
  /// Restores the invariants after merges: congruence closure, canonical nodes, one entry per
  /// node in the hash-cons.
  Rebuilt rebuild();

  ClassId find(ClassId c) { return uf_.find(c); }
  TypeId type_of(ClassId c) { return classes_[uf_.find(c)].type; }
  /// The nodes of class c (canonical after rebuild()).
  const std::vector<ENode>& nodes(ClassId c) { return classes_[uf_.find(c)].nodes; }

  /// The canonical ids of all classes, ascending.
  std::vector<ClassId> class_ids();

  /// Number of live classes and of distinct nodes (exact after rebuild()).
  size_t class_count() const { return live_classes_; }
  size_t node_count() const { return memo_.size(); }
  bool clean() const { return pending_.empty(); }

 private:
  struct EClass {
    TypeId type = 0;
    std::vector<ENode> nodes;
    std::vector<std::pair<ENode, ClassId>> parents;  ///< nodes that use this class, and their class
  };
  void canonicalize(ENode& node);
  /// Re-canonicalises the parents of one merged class, merging congruent ones; the classes
  /// owning those parents go to `touched` (their node lists need canonicalising too).
  void repair(ClassId c, Rebuilt& out, std::vector<ClassId>& touched);

  UnionFind uf_;
  std::vector<EClass> classes_;  ///< by id; meaningful at canonical ids
  std::unordered_map<ENode, ClassId, ENodeHash> memo_;
  std::vector<ClassId> pending_;  ///< classes whose parents need repair
  size_t live_classes_ = 0;
};

}  // namespace scalify::egraph
