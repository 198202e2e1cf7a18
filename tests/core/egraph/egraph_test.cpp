// EGraph: hash-consing, merges, congruence after rebuild, and the type analysis.
#include "egraph/egraph.h"

#include <catch2/catch.hpp>
#include <random>

using namespace scalify::egraph;

namespace {

constexpr Symbol kA = 1, kB = 2, kC = 3, kF = 10, kG = 11, kAdd = 12;
constexpr TypeId kF32 = 1, kS32 = 2;

ENode leaf(Symbol s, uint32_t payload = 0) { return ENode{s, payload, {}}; }
ENode app(Symbol s, std::vector<ClassId> children) { return ENode{s, 0, std::move(children)}; }

}  // namespace

TEST_CASE("e-graph: equal nodes are stored once", "[egraph]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  CHECK(g.add(leaf(kA), kF32) == a);
  CHECK(g.add(leaf(kA, 7), kF32) != a);  // the payload distinguishes nodes
  const ClassId ab = g.add(app(kAdd, {a, b}), kF32);
  CHECK(g.add(app(kAdd, {a, b}), kF32) == ab);
  CHECK(g.add(app(kAdd, {b, a}), kF32) != ab);  // no commutativity unless a rule says so
  CHECK(g.lookup(app(kAdd, {a, b})) == ab);
  CHECK_FALSE(g.lookup(app(kF, {a})).has_value());
  CHECK(g.class_count() == 5);
  CHECK(g.node_count() == 5);
}

TEST_CASE("e-graph: rebuild restores congruence, transitively", "[egraph]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId fa = g.add(app(kF, {a}), kF32);
  const ClassId fb = g.add(app(kF, {b}), kF32);
  const ClassId gfa = g.add(app(kG, {fa}), kF32);
  const ClassId gfb = g.add(app(kG, {fb}), kF32);
  REQUIRE_FALSE(g.merge(a, b).has_value());
  CHECK_FALSE(g.clean());
  const auto rebuilt = g.rebuild();
  CHECK(g.clean());
  CHECK(rebuilt.congruence_merges == 2);  // f(a)=f(b), then g(f(a))=g(f(b))
  CHECK(rebuilt.conflicts.empty());
  CHECK(g.find(fa) == g.find(fb));
  CHECK(g.find(gfa) == g.find(gfb));
  CHECK(g.class_count() == 3);
  CHECK(g.node_count() == 4);  // a, b, f(a|b), g(f)
  CHECK(g.nodes(fa).size() == 1);
  CHECK(g.nodes(a).size() == 2);
  // Adding f(b) again finds the merged class.
  CHECK(g.add(app(kF, {b}), kF32) == g.find(fa));
}

TEST_CASE("e-graph: merging values of different types is refused and reported", "[egraph]") {
  EGraph g;
  const ClassId x = g.add(leaf(kA), kF32);
  const ClassId y = g.add(leaf(kB), kS32);
  const auto conflict = g.merge(x, y);
  REQUIRE(conflict.has_value());
  CHECK(conflict->type_a == kF32);
  CHECK(conflict->type_b == kS32);
  CHECK(g.find(x) != g.find(y));
  CHECK(g.class_count() == 2);
}

TEST_CASE("e-graph: congruence between nodes given different types is reported", "[egraph]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId fa = g.add(app(kF, {a}), kF32);
  const ClassId fb = g.add(app(kF, {b}), kS32);  // inconsistent: f(b) cannot be s32 if f(a) is f32
  REQUIRE_FALSE(g.merge(a, b).has_value());
  const auto rebuilt = g.rebuild();
  REQUIRE(rebuilt.conflicts.size() == 1);
  CHECK(g.find(fa) != g.find(fb));
}

TEST_CASE("e-graph: a cycle through merges stays consistent", "[egraph]") {
  // x = f(x): merging a term with its own application (an infinite term) must terminate.
  EGraph g;
  const ClassId x = g.add(leaf(kA), kF32);
  const ClassId fx = g.add(app(kF, {x}), kF32);
  const ClassId ffx = g.add(app(kF, {fx}), kF32);
  REQUIRE_FALSE(g.merge(x, fx).has_value());
  g.rebuild();
  CHECK(g.find(ffx) == g.find(x));
  CHECK(g.class_count() == 1);
  CHECK(g.nodes(x).size() == 2);  // a, f(self)
}

TEST_CASE("e-graph: congruence agrees with a naive closure on random terms", "[egraph]") {
  std::mt19937 rng(3);
  EGraph g;
  std::vector<ClassId> ids;
  std::vector<ENode> terms;  // term i, with children as indices into `terms`
  for (Symbol s = 0; s < 6; ++s) {
    ids.push_back(g.add(leaf(kC, s), kF32));
    terms.push_back(leaf(kC, s));
  }
  std::uniform_int_distribution<int> op(0, 1);
  for (int i = 0; i < 300; ++i) {
    std::uniform_int_distribution<size_t> pick(0, ids.size() - 1);
    const size_t l = pick(rng), r = pick(rng);
    ENode t = op(rng) ? app(kF, {static_cast<ClassId>(l)})
                      : app(kAdd, {static_cast<ClassId>(l), static_cast<ClassId>(r)});
    ENode n = t;
    for (ClassId& c : n.children) c = ids[c];
    ids.push_back(g.add(n, kF32));
    terms.push_back(t);
  }
  // Naive congruence closure over term indices: repeat until nothing changes.
  std::vector<size_t> rep(terms.size());
  for (size_t i = 0; i < rep.size(); ++i) rep[i] = i;
  auto root = [&](size_t i) {
    while (rep[i] != i) i = rep[i];
    return i;
  };
  std::uniform_int_distribution<size_t> any(0, terms.size() - 1);
  for (int m = 0; m < 20; ++m) {
    const size_t p = any(rng), q = any(rng);
    REQUIRE_FALSE(g.merge(ids[p], ids[q]).has_value());
    rep[root(p)] = root(q);
  }
  g.rebuild();
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < terms.size(); ++i) {
      for (size_t j = i + 1; j < terms.size(); ++j) {
        if (root(i) == root(j) || terms[i].op != terms[j].op ||
            terms[i].payload != terms[j].payload ||
            terms[i].children.size() != terms[j].children.size()) {
          continue;
        }
        bool same = true;
        for (size_t k = 0; k < terms[i].children.size() && same; ++k) {
          same = root(terms[i].children[k]) == root(terms[j].children[k]);
        }
        if (same) {
          rep[root(i)] = root(j);
          changed = true;
        }
      }
    }
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t j = i + 1; j < terms.size(); ++j) {
      REQUIRE((g.find(ids[i]) == g.find(ids[j])) == (root(i) == root(j)));
    }
  }
}

TEST_CASE("e-graph: a class's nodes of one operator, before and after merges", "[egraph]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32), b = g.add(leaf(kB), kF32);
  const ClassId fa = g.add(app(kF, {a}), kF32);
  const ClassId ga = g.add(app(kG, {a}), kF32);
  const ClassId fb = g.add(app(kF, {b}), kF32);
  const Symbol far = kF + 64;  // shares kF's bit in the class's mask of operators
  const ClassId hb = g.add(app(far, {b}), kF32);
  CHECK(g.nodes(fa, kF).size() == 1);
  CHECK(g.nodes(fa, kG).empty());
  g.merge(fa, ga);
  g.merge(fa, fb);
  g.merge(fa, hb);
  g.rebuild();
  CHECK(g.nodes(fa).size() == 4);
  const std::span<const ENode> fs = g.nodes(fa, kF);
  REQUIRE(fs.size() == 2);
  for (const ENode& n : fs) CHECK(n.op == kF);
  CHECK(g.nodes(fa, kG).size() == 1);
  CHECK(g.nodes(fa, far).size() == 1);
  CHECK(g.nodes(fa, kAdd).empty());
  CHECK(g.nodes(a, kF).empty());
}

TEST_CASE("e-graph: congruence restored in batches between merges ends as one rebuild does",
          "[egraph]") {
  // The same terms and merges, in the same order, into two e-graphs: one restores congruence
  // every few merges (as the runner does within an iteration), the other once at the end.
  std::mt19937 rng(11);
  EGraph batched, once;
  std::vector<ClassId> b_ids, o_ids;  // term i's class in each
  for (Symbol s = 0; s < 8; ++s) {
    b_ids.push_back(batched.add(leaf(kC, s), kF32));
    o_ids.push_back(once.add(leaf(kC, s), kF32));
  }
  auto in = [](const std::vector<ClassId>& ids, ENode n) {
    for (ClassId& c : n.children) c = ids[c];
    return n;
  };
  for (int step = 0; step < 2000; ++step) {
    std::uniform_int_distribution<size_t> pick(0, b_ids.size() - 1);
    if (step % 5 == 4) {  // a merge
      const size_t p = pick(rng), q = pick(rng);
      REQUIRE_FALSE(batched.merge(b_ids[p], b_ids[q]));
      REQUIRE_FALSE(once.merge(o_ids[p], o_ids[q]));
      if (batched.unrepaired_merges() >= 7) {
        CHECK(batched.restore_congruence().conflicts.empty());
        CHECK(batched.unrepaired_merges() == 0);
      }
      continue;
    }
    const ClassId l = static_cast<ClassId>(pick(rng)), r = static_cast<ClassId>(pick(rng));
    const ENode t = step % 3 == 0 ? app(kF, {l}) : app(kAdd, {l, r});
    b_ids.push_back(batched.add(in(b_ids, t), kF32));
    o_ids.push_back(once.add(in(o_ids, t), kF32));
  }
  batched.rebuild();
  once.rebuild();
  CHECK(batched.class_count() == once.class_count());
  CHECK(batched.node_count() == once.node_count());
  CHECK(batched.visible_node_count() == once.visible_node_count());
  CHECK(batched.id_count() <= once.id_count());  // (nodes added later met canonical keys)
  for (size_t i = 0; i < b_ids.size(); i += 7) {
    for (size_t j = i + 1; j < b_ids.size(); ++j) {
      REQUIRE((batched.find(b_ids[i]) == batched.find(b_ids[j])) ==
              (once.find(o_ids[i]) == once.find(o_ids[j])));
    }
  }
}
