// UnionFind: the equivalence relation of the e-graph, over dense 32-bit class ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "support/large_vector.h"

namespace scalify::egraph {

/// An e-class id: an index into the union-find, dense from 0.
using ClassId = uint32_t;

/// Disjoint sets with union by size and path halving: find and unite are amortised
/// near-constant. The root of a set is its canonical id.
///
///   UnionFind uf;
///   ClassId a = uf.make_set(), b = uf.make_set(), c = uf.make_set();
///   uf.unite(a, b);
///   uf.same(a, b) && !uf.same(a, c);   // true
///   uf.find(b) == uf.find(a);          // the canonical id of {a, b}
class UnionFind {
 public:
  /// A new singleton set; its id is the number of sets made before it.
  ClassId make_set();
  /// The canonical id of x's set; halves the path it walks (hence not const). Inline: the
  /// e-graph calls it for every child of every node it adds or repairs.
  ClassId find(ClassId x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];  // path halving: every other node skips its parent
      x = parent_[x];
    }
    return x;
  }
  /// The canonical id without touching the structure (for const readers; no compression).
  ClassId find_const(ClassId x) const {
    while (parent_[x] != x) x = parent_[x];
    return x;
  }
  /// Merges the sets of a and b; returns the canonical id of the result (the root of the larger
  /// set, the smaller id on a tie, so that results do not depend on argument order).
  ClassId unite(ClassId a, ClassId b);
  /// Makes root `root` the parent of root `child` (the caller chose the direction; the e-graph
  /// keeps the class with more parents as root, so that fewer parents need repair). Set sizes
  /// count unite()s only: the e-graph, which links, needs none, and they would cost it a cache
  /// miss per merge.
  void link(ClassId root, ClassId child) { parent_[child] = root; }
  bool same(ClassId a, ClassId b) { return find(a) == find(b); }
  /// Hints the processor to load x's entry (for a find soon after).
  void prefetch(ClassId x) const { __builtin_prefetch(&parent_[x]); }
  /// Whether x is the canonical id of its set.
  bool is_root(ClassId x) const { return parent_[x] == x; }
  /// Number of ids made (not of sets).
  size_t size() const { return parent_.size(); }
  /// Number of elements in x's set (if it was made by unite(), see link()).
  uint32_t set_size(ClassId x) {
    const ClassId root = find(x);
    return root < size_.size() ? size_[root] : 1;
  }
  void reserve(size_t n);

 private:
  LargeVector<ClassId> parent_;
  /// Meaningful at roots only; grown by unite() alone (an id beyond it is a singleton), so
  /// that an e-graph, which only links, never writes it.
  LargeVector<uint32_t> size_;
};

}  // namespace scalify::egraph
