// EGraph: hash-consed e-nodes in e-classes under a union-find, with deferred rebuilding, a
// tensor-type analysis that refuses to merge values of different types, an optional
// constant-folding analysis, and a log of every union with its reason (for proofs).
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "egraph/enode.h"
#include "egraph/hash_cons.h"
#include "egraph/id_vector.h"
#include "egraph/parent_lists.h"
#include "egraph/union_find.h"
#include "support/large_vector.h"

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
  /// fold() needs every child constant (kNoConstant otherwise): the e-graph then skips the
  /// call for the many nodes with a non-constant child.
  bool strict = false;
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
  /// found without calling it (one hash-cons probe either way).
  template <class TypeOf>
  ClassId add_node_typed(ENode node, const TypeOf& type_of) {
    if (explanations_) {
      ENode exact = node;
      canonicalize(node);
      if (auto existing = memo_.find(node)) {
        if (exact_[*existing].children == exact.children) return *existing;
        return add_alias(std::move(exact), std::move(node), *existing);
      }
      exact_.push_back(std::move(exact));  // the new id's, made below
    } else {
      canonicalize(node);
    }
    const auto fresh = static_cast<ClassId>(uf_.size());
    const ClassId holder = memo_.insert(fresh, std::move(node));
    if (holder != fresh) {
      if (explanations_) exact_.pop_back();  // (unreachable: memo_.find just missed)
      return holder;
    }
    const ClassId id = open_class();
    classes_[id].type = type_of(memo_.key(id));
    fold_new(id);
    return id;
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
  /// rebuild() but for the node lists, which stay stale (so rebuild() must still follow
  /// before matching). A runner applying many unions calls it every few thousand of them:
  /// the repairs then meet the classes, nodes and hash-cons slots that those unions have just
  /// touched while they are still in cache, and nodes added later find canonical keys. (On
  /// egg's second workload, run to 1.4 M e-nodes, that took about a sixth off.) The e-graph
  /// after rebuild() is the same: the same terms and equalities, closed under congruence.
  Rebuilt restore_congruence();
  /// Merges made since congruence was last restored.
  size_t unrepaired_merges() const { return merged_.size(); }

  ClassId find(ClassId c) { return uf_.find(c); }
  ClassId find(ClassId c) const { return uf_.find_const(c); }
  TypeId type_of(ClassId c) const { return classes_[find(c)].type; }
  /// The constant class c is known to hold (kNoConstant if none; see ConstantFolding).
  uint32_t constant_of(ClassId c) const { return classes_[find(c)].constant; }
  /// The nodes of class c, canonical and sorted by (op, payload, children), while the e-graph
  /// is clean (after rebuild(); adding nodes keeps it clean, merging does not).
  /// The span is valid until the next change to the e-graph.
  std::span<const ENode> nodes(ClassId c) const {
    const uint32_t list = classes_[find(c)].nodes;
    if (list == kNoList) return {};
    const NodeRange range = node_ranges_[list];
    return {node_store_.data() + range.begin, range.end - range.begin};
  }
  /// The nodes of class c with operator `op` (a part of nodes(c)). Most classes hold a few
  /// operators: a mask of them answers "none" without reading the nodes.
  std::span<const ENode> nodes(ClassId c, Symbol op) const {
    const uint32_t list = classes_[find(c)].nodes;
    if (list == kNoList) return {};
    const NodeRange range = node_ranges_[list];
    if ((range.ops & op_bit(op)) == 0) return {};
    const ENode* first = node_store_.data() + range.begin;
    const ENode* last = node_store_.data() + range.end;
    first = std::lower_bound(first, last, op, [](const ENode& n, Symbol s) { return n.op < s; });
    const ENode* end = first;
    while (end != last && end->op == op) ++end;
    return {first, end};
  }
  /// The node a node id was added as. With explanations, exactly (its children are the ids of
  /// exact subterms); without, its children may since have been replaced by equal classes.
  const ENode& node_of_id(ClassId id) const { return explanations_ ? exact_[id] : memo_.key(id); }

  /// The canonical ids of all classes, ascending.
  std::vector<ClassId> class_ids() const;

  void set_constant_folding(ConstantFolding folding) { folding_ = std::move(folding); }
  /// Declares operators associative and commutative: their nodes keep sorted operands (set
  /// before adding nodes; see Vocabulary::commutative_symbols()).
  void set_commutative(std::span<const Symbol> ops) {
    for (Symbol s : ops) {
      if (ac_.size() <= s) ac_.resize(s + 1, false);
      ac_[s] = true;
    }
  }
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
  bool clean() const {
    return merged_.empty() && pending_.empty() && analysis_pending_.empty() && !lists_stale_;
  }
  /// The touch log, for matching only what may have changed (see runner.cpp): while it is on,
  /// the e-graph notes every class that gains a node, a merge or a constant. Turning it on or
  /// off empties it.
  void log_touches(bool on) {
    log_touches_ = on;
    touched_.clear();
  }
  /// The classes noted since the last call (as ids: some may since have been merged).
  LargeVector<ClassId> take_touched() { return std::exchange(touched_, {}); }
  /// Calls f with the class of every node that uses class c (with repeats).
  template <class F>
  void for_each_parent_class(ClassId c, F&& f) const {
    parents_.for_each(classes_[find(c)].parents, [&](ClassId p) { f(find(p)); });
  }

  /// With explanations, every union performed, in order, with its reason (the proof forest
  /// explain() walks); without, none are kept.
  const std::vector<UnionRecord>& unions() const { return unions_; }
  /// Conflicts met outside rebuild() and merge() results (inside the analysis), to report.
  std::vector<Conflict> take_analysis_conflicts() { return std::exchange(analysis_conflicts_, {}); }

 private:
  static constexpr uint32_t kNoList = 0xffffffffu;
  /// 24 bytes per id (every node starts as its own class): the lists live apart, by index.
  struct EClass {
    TypeId type = 0;
    uint32_t constant = kNoConstant;
    ParentLists::Chain parents;  ///< the ids of the nodes that use this class
    uint32_t parent_count = 0;   ///< as of the last collect_parents()
    uint32_t nodes = kNoList;    ///< in node_ranges_
  };
  /// A merge, and which sides lacked a constant before it.
  struct Merged {
    ClassId root, gone;
    bool root_lacked_constant, gone_lacked_constant;
  };
  void canonicalize(ENode& node) {
    for (ClassId& c : node.children) c = uf_.find(c);
    sort_if_ac(node);
  }
  /// Operands of an associative-commutative operator are kept sorted: one node per multiset.
  void sort_if_ac(ENode& node) const {
    if (node.op < ac_.size() && ac_[node.op]) std::sort(node.children.begin(), node.children.end());
  }
  /// Makes the id and class of the node just inserted in the memo under the next id (with
  /// explanations, its exact node is already in exact_).
  ClassId open_class();
  /// Gives the new class `id` its constant, if its node folds to one.
  void fold_new(ClassId id);
  /// A new id for `node` (canonically `canonical`), equal by congruence to the stored node
  /// `existing` (explanations only).
  ClassId add_alias(ENode node, ENode canonical, ClassId existing);
  uint32_t make_constant(const ENode& node);
  void set_constant(ClassId root, uint32_t constant);
  /// egg's `modify`: a constant class gets its constant leaf (merged with `folded`, the node
  /// whose folding found the constant, if any) and loses its non-leaf nodes.
  void settle_constant(ClassId c, std::optional<ClassId> folded);
  /// Whether class c shows only its leaves to matching (see ConstantFolding::prune).
  bool pruned(const EClass& c) const {
    return c.constant != kNoConstant && folding_ && folding_->prune;
  }
  /// Files the nodes added and the merges logged since the last call: parents go to their
  /// classes' lists, those of merged-away classes to pending_ (and, where a class learned a
  /// constant, to analysis_pending_). Deferred to rebuild() so that adding and merging touch
  /// no lists, and so that the lists are walked in a loop that can load them ahead.
  void collect_parents();
  /// Re-canonicalizes the hash-cons entry of node `id` (a pending parent), merging its class
  /// with that of an equal node found there.
  void repair(ClassId id, Rebuilt& out);
  /// Whether `id` lost its hash-cons entry to a congruent node of a class it could not join.
  bool is_orphan(ClassId id) const;
  /// Rebuilds every class's node list from the hash-cons.
  void rebuild_node_lists();

  UnionFind uf_;
  IdVector<EClass> classes_;        ///< by id; meaningful at canonical ids
  std::vector<bool> has_constant_;  ///< by id: classes_[id].constant != kNoConstant
  ParentLists parents_;
  /// Every class's node list, one after the other (its range by EClass::nodes): one array,
  /// remade whole by rebuild_node_lists(), rather than a vector per class.
  std::vector<ENode, LargeArrayAllocator<ENode>> node_store_;
  struct NodeRange {
    uint32_t begin = 0, end = 0;
    uint64_t ops = 0;  ///< op_bit() of every operator in the range
  };
  static uint64_t op_bit(Symbol op) { return uint64_t{1} << (op & 63); }
  std::vector<NodeRange> node_ranges_;
  /// Canonical node -> the id of the node that holds it; also every id's node (its last
  /// canonical form), the one copy the e-graph keeps besides class node lists.
  HashCons memo_;
  std::vector<ENode> exact_;  ///< with explanations: every id's node as added
  ClassId filed_ = 0;  ///< ids below are in their children's parent lists (collect_parents())
  LargeVector<Merged> merged_;             ///< since the last collect_parents()
  LargeVector<ClassId> pending_;           ///< node ids whose children changed class
  std::vector<ClassId> analysis_pending_;  ///< node ids whose children's constants changed
  /// Ids whose congruence merge was refused (a type conflict): out of the hash-cons, but
  /// still nodes of their class.
  std::vector<ClassId> orphans_;
  std::vector<UnionRecord> unions_;
  std::vector<Conflict> analysis_conflicts_;
  std::optional<ConstantFolding> folding_;
  size_t live_classes_ = 0;
  /// Merges made the class node lists stale: rebuild() remakes them all at once, and until
  /// then adding a node does not maintain them.
  bool lists_stale_ = false;
  bool explanations_ = false;
  bool log_touches_ = false;
  LargeVector<ClassId> touched_;  ///< the touch log (see log_touches())
  void touch(ClassId c) {
    if (log_touches_) touched_.push_back(c);
  }
  std::vector<bool> ac_;  ///< by symbol: associative-commutative
};

}  // namespace scalify::egraph
