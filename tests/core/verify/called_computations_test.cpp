// Ops known by the computation they call (a sort's comparator, a reduce-window's body, an
// argmax's reducer) are the same function in both programs when their computations compute the
// same thing: they are proven, also through the dims a shard passes. A different computation is
// `inconclusive` (it may compute the same values another way), a sort along the sharded dim is a
// divergence, and token plumbing, nested tuples and copies of tuples never crash or mislead.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

/// The calls of both programs: an ascending comparator, a max body, and an argmax reducer.
const std::string kCallees = R"(
less {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT
}

greater {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}

max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}

argmax {
  va = f32[] parameter(0)
  ia = s32[] parameter(1)
  vb = f32[] parameter(2)
  ib = s32[] parameter(3)
  ge = pred[] compare(va, vb), direction=GE
  v = f32[] select(ge, va, vb)
  i = s32[] select(ge, ia, ib)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
)";

/// Rows of x[ROWS,8] (ranks 1: the reference; 2: the rows split over tp) sorted by `comparator`
/// along `sort_dim`, their 2-wide running max, and each row's argmax.
std::string program(int ranks, const std::string& comparator = "less", int sort_dim = 1) {
  const std::string rows = std::to_string(4 / ranks);
  const std::string sorted_dims = rows + ",8";
  std::string text = "HloModule calls";
  if (ranks > 1) text += ", num_partitions=" + std::to_string(ranks);
  text += "\n" + kCallees + R"(
ENTRY e {
  x = f32[)" +
          sorted_dims +
          R"(] parameter(0)
  s = f32[)" +
          sorted_dims + "] sort(x), dimensions={" + std::to_string(sort_dim) +
          "}, to_apply=" + comparator +
          R"(
  ninf = f32[] constant(-inf)
  w = f32[)" +
          rows +
          R"(,7] reduce-window(s, ninf), window={size=1x2}, to_apply=max
  iota = s32[)" +
          sorted_dims +
          R"(] iota(), iota_dimension=1
  zero = s32[] constant(0)
  am = (f32[)" +
          rows + "], s32[" + rows +
          R"(]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
  best = s32[)" +
          rows +
          R"(] get-tuple-element(am), index=1
  ROOT out = (f32[)" +
          rows + ",7], s32[" + rows + R"(]) tuple(w, best)
}
)";
  return text;
}

using test::noted;
const auto check = test::check_texts;

}  // namespace

TEST_CASE("called computations: a row-sharded sort, reduce-window and argmax are proven",
          "[verify]") {
  const std::string ref = program(1), dist = program(2);
  const verify::CheckResult r = check(dist, ref);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  REQUIRE(r.goals.size() == 2);
  for (const auto& g : r.goals) {
    CHECK(g.proven);
    REQUIRE(g.layout);
    CHECK(g.layout->to_string(r.mesh) == "shard(0,tp)");
  }
  CHECK(test::recheck(ref, dist, r).outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
}

TEST_CASE("called computations: a sort along the sharded dim is a divergence at the sort",
          "[verify]") {
  // Each rank sorts its own rows' columns... of the transposed view: dim 0, which is split.
  const verify::CheckResult r = check(program(2, "less", 0), program(1, "less", 0));
  CHECK(r.verdict == verify::Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "s");
  CHECK_THAT(r.divergence->reason, Catch::Contains("shard(0,tp)"));
}

TEST_CASE("called computations: an argmax over a vocab shard is a divergence at the argmax",
          "[verify]") {
  // Each rank picks the best of its own columns: the classic sampling bug under a
  // vocab-parallel head (the logits were never gathered).
  auto argmax = [](int ranks) {
    const std::string cols = std::to_string(8 / ranks);
    return "HloModule am" + (ranks > 1 ? ", num_partitions=" + std::to_string(ranks) : "") + "\n" +
           kCallees + R"(
ENTRY e {
  x = f32[3,)" +
           cols + R"(] parameter(0)
  iota = s32[3,)" +
           cols + R"(] iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  am = (f32[3], s32[3]) reduce(x, iota, ninf, zero), dimensions={1}, to_apply=argmax
  ROOT best = s32[3] get-tuple-element(am), index=1
}
)";
  };
  const verify::CheckResult r = check(argmax(2), argmax(1));
  CHECK(r.verdict == verify::Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "am");
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("shard(1,tp)") && Catch::Contains("runs along dimension 1"));
}

TEST_CASE("called computations: another comparator is not proven, and not blamed", "[verify]") {
  // A descending sort is another function; the checker cannot tell that from a comparator
  // written differently, so it says what it could not follow instead of naming a bug.
  const verify::CheckResult r = check(program(2, "greater"), program(1, "less"));
  CHECK(r.verdict == verify::Verdict::kInconclusive);
  CHECK_FALSE(r.divergence);
}

TEST_CASE("called computations: a computation that communicates is not taken as a function",
          "[verify]") {
  const std::string text = R"(HloModule impure, num_partitions=2

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

reduced {
  p = f32[] parameter(0)
  ROOT r = f32[] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
}

ENTRY e {
  x = f32[4] parameter(0)
  ROOT m = f32[4] map(x), dimensions={0}, to_apply=reduced
}
)";
  const verify::CheckResult r = check(text, text);
  CHECK(r.verdict != verify::Verdict::kEquivalent);
  CHECK(noted(r, "calls a computation that communicates (`all-reduce`)"));
}

TEST_CASE("called computations: tokens, nested tuples and copies of tuples", "[verify]") {
  // Found by checking each of XLA's bulk test modules against itself: an empty tuple operand
  // crashed the checker, and a token was reported as a divergence.
  const std::string nested = R"(HloModule nested
ENTRY e {
  p0 = f32[2] parameter(0)
  p1 = f32[3] parameter(1)
  et = () tuple()
  t0 = (f32[2], (), f32[3]) tuple(p0, et, p1)
  t1 = ((f32[2], (), f32[3]), f32[2]) tuple(t0, p0)
  c = ((f32[2], (), f32[3]), f32[2]) copy(t1)
  g0 = (f32[2], (), f32[3]) get-tuple-element(c), index=0
  a = f32[3] get-tuple-element(g0), index=2
  b = f32[2] get-tuple-element(c), index=1
  ROOT r = (f32[3], f32[2], ()) tuple(a, b, et)
}
)";
  const verify::CheckResult n = check(nested, nested);
  CHECK(n.verdict == verify::Verdict::kEquivalent);

  const std::string tokens = R"(HloModule tokens
ENTRY e {
  t = token[] after-all()
  in = (f32[8], token[]) infeed(t)
  ROOT x = f32[8] get-tuple-element(in), index=0
}
)";
  const verify::CheckResult t = check(tokens, tokens);
  CHECK(t.verdict == verify::Verdict::kInconclusive);
  CHECK_FALSE(t.divergence);
  CHECK(noted(t, "returns a token[] (not modelled)"));
}

}  // namespace scalify
