// UnionFind: the equivalence relation under the e-graph.
#include "egraph/union_find.h"

#include <catch2/catch.hpp>
#include <random>

using scalify::egraph::ClassId;
using scalify::egraph::UnionFind;

TEST_CASE("union-find: singletons, unions, canonical ids", "[egraph][union_find]") {
  UnionFind uf;
  const ClassId a = uf.make_set(), b = uf.make_set(), c = uf.make_set(), d = uf.make_set();
  CHECK(a == 0);
  CHECK(d == 3);
  CHECK(uf.size() == 4);
  CHECK_FALSE(uf.same(a, b));
  const ClassId ab = uf.unite(a, b);
  CHECK(ab == a);  // equal sizes: the smaller id wins, whatever the argument order
  CHECK(uf.find(b) == a);
  CHECK(uf.unite(d, c) == c);
  CHECK(uf.set_size(d) == 2);
  // The larger set's root survives.
  const ClassId all = uf.unite(d, b);
  CHECK(all == a);
  CHECK(uf.set_size(c) == 4);
  CHECK(uf.unite(a, d) == a);  // already one set
  for (ClassId x : {a, b, c, d}) CHECK(uf.find_const(x) == a);
}

TEST_CASE("union-find agrees with a naive partition on random unions", "[egraph][union_find]") {
  std::mt19937 rng(7);
  const size_t n = 2000;
  UnionFind uf;
  std::vector<size_t> label(n);  // naive: every element carries its set's label
  for (size_t i = 0; i < n; ++i) {
    uf.make_set();
    label[i] = i;
  }
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (int step = 0; step < 3000; ++step) {
    const size_t x = pick(rng), y = pick(rng);
    uf.unite(static_cast<ClassId>(x), static_cast<ClassId>(y));
    const size_t from = label[y], to = label[x];
    if (from != to) {
      for (size_t& l : label) l = l == from ? to : l;
    }
    if (step % 100 == 0) {
      for (int probe = 0; probe < 200; ++probe) {
        const size_t p = pick(rng), q = pick(rng);
        REQUIRE(uf.same(static_cast<ClassId>(p), static_cast<ClassId>(q)) ==
                (label[p] == label[q]));
      }
    }
  }
  // Sizes at the roots add up to n.
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    if (uf.find(static_cast<ClassId>(i)) == i) total += uf.set_size(static_cast<ClassId>(i));
  }
  CHECK(total == n);
}
