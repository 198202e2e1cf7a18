// Patterns: e-matching (nested, non-linear, payload constraints) and instantiation.
#include "egraph/pattern.h"

#include <catch2/catch.hpp>

using namespace scalify::egraph;

namespace {

constexpr Symbol kA = 1, kB = 2, kT = 10, kAdd = 11, kF = 12, kMul = 13;
constexpr TypeId kF32 = 1;

ENode leaf(Symbol s) { return ENode{s, 0, {}}; }
ENode app(Symbol s, std::vector<ClassId> children, uint32_t payload = 0) {
  return ENode{s, payload, std::move(children)};
}
TypeId same_type(const ENode&) { return kF32; }

}  // namespace

TEST_CASE("patterns: a nested pattern matches, and its rewrite merges by congruence",
          "[egraph][pattern]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId ta = g.add(app(kT, {a}), kF32);
  const ClassId tta = g.add(app(kT, {ta}), kF32);
  const ClassId f = g.add(app(kF, {tta}), kF32);
  Pattern p;  // t(t(?x))
  p.op(kT, {p.op(kT, {p.var(0)})});
  const auto matches = search(g, p);
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].root == tta);
  CHECK(matches[0].subst[0] == a);
  // Apply t(t(?x)) => ?x.
  REQUIRE_FALSE(g.merge(matches[0].root, matches[0].subst[0]).has_value());
  g.rebuild();
  CHECK(g.find(tta) == g.find(a));
  CHECK(g.lookup(app(kF, {a})) == g.find(f));  // f(t(t(a))) is now f(a)
  // The pattern now matches in more ways: t(t(a)) = a, so t(t(t(t(a)))) … is in a's class.
  CHECK(search(g, p).size() == 2);  // roots: a's class (t(t(a))) and t(a)'s class (t(t(t(a))))
}

TEST_CASE("patterns: a repeated variable must bind the same class", "[egraph][pattern]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId aa = g.add(app(kAdd, {a, a}), kF32);
  const ClassId ab = g.add(app(kAdd, {a, b}), kF32);
  Pattern p;  // add(?x, ?x)
  const uint32_t x = p.var(0);
  p.op(kAdd, {x, x});
  auto matches = search(g, p);
  REQUIRE(matches.size() == 1);
  CHECK(matches[0].root == aa);
  REQUIRE_FALSE(g.merge(a, b).has_value());
  g.rebuild();
  matches = search(g, p);
  REQUIRE(matches.size() == 1);  // add(a,a) and add(a,b) are one node now
  CHECK(g.find(ab) == g.find(aa));
}

TEST_CASE("patterns: every node of a class is tried; payloads constrain", "[egraph][pattern]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId fa = g.add(app(kF, {a}), kF32);
  const ClassId fb = g.add(app(kF, {b}, 5), kF32);
  REQUIRE_FALSE(g.merge(fa, fb).has_value());
  g.rebuild();
  Pattern any;  // f(?x), any payload
  any.op(kF, {any.var(0)}, std::nullopt);
  CHECK(match_class(g, any, fa).size() == 2);
  Pattern five;  // f[5](?x)
  five.op(kF, {five.var(0)}, 5u);
  const auto only = match_class(g, five, fa);
  REQUIRE(only.size() == 1);
  CHECK(only[0][0] == b);
}

TEST_CASE("patterns: instantiation reuses existing nodes and types new ones", "[egraph][pattern]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId ab = g.add(app(kMul, {a, b}), kF32);
  Pattern swapped;  // mul(?y, ?x)
  swapped.op(kMul, {swapped.var(1), swapped.var(0)});
  Pattern same;  // mul(?x, ?y)
  same.op(kMul, {same.var(0), same.var(1)});
  const Subst s{a, b};
  CHECK(instantiate(g, same, s, same_type) == ab);
  int typed = 0;
  const ClassId ba = instantiate(g, swapped, s, [&](const ENode& n) {
    ++typed;
    CHECK(n.children == std::vector<ClassId>{b, a});
    return kF32;
  });
  CHECK(typed == 1);
  CHECK(ba != ab);
  CHECK(g.lookup(app(kMul, {b, a})) == ba);
}

TEST_CASE("patterns: instantiating only what exists finds held terms and builds nothing",
          "[egraph][pattern]") {
  EGraph g;
  const ClassId a = g.add(leaf(kA), kF32);
  const ClassId b = g.add(leaf(kB), kF32);
  const ClassId ab = g.add(app(kMul, {a, b}), kF32);
  const ClassId t_ab = g.add(app(kT, {ab}), kF32);
  Pattern nested;  // t(mul(?x, ?y))
  nested.op(kT, {nested.op(kMul, {nested.var(0), nested.var(1)})});
  const size_t ids = g.id_count();
  CHECK(instantiate_existing(g, nested, Subst{a, b}) == t_ab);
  CHECK_FALSE(instantiate_existing(g, nested, Subst{b, a}).has_value());  // no mul(b, a)
  CHECK(g.id_count() == ids);
  // Held up to a merge not yet rebuilt: children are looked up by their classes.
  const ClassId c = g.add(leaf(kF), kF32);
  REQUIRE_FALSE(g.merge(a, c).has_value());
  CHECK(instantiate_existing(g, nested, Subst{c, b}) == t_ab);
}
