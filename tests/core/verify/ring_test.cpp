// Rings (windowed einsums, as XLA's SPMD partitioner writes an all-gather fused into a matmul):
// each rank multiplies the row block it holds, writes the product at that block's place in a
// full-size buffer, and passes the block to the next rank with a collective-permute. After n
// steps every rank holds the whole product. The checker reads a passed block as a shard of the
// value rotated by k blocks (rule `ring-step`), the writes as a ring's assembly (rule
// `ring-assembly`); `proof verify` re-checks both. The programs are also run rank by rank
// (tests/support/rank_simulator.h), so that the correct ring computes the reference's numbers
// and each planted mistake does not.
#include <catch2/catch.hpp>
#include <random>

#include "check_texts.h"
#include "eval/evaluator.h"
#include "eval/mesh.h"
#include "support/rank_simulator.h"

using namespace scalify;
using verify::Verdict;

namespace {

const std::string kRef = R"(HloModule r
ENTRY e {
  x = f32[8,4] parameter(0)
  w = f32[4,6] parameter(1)
  ROOT y = f32[8,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

/// What a ring program may get wrong.
struct RingOptions {
  std::string pairs = "{0,3},{1,0},{2,1},{3,2}";  ///< rank t receives from rank t + 1
  std::string table = "{0, 2, 4, 6}";             ///< block k's row offset
  int steps = 4;                                  ///< blocks written
  int permute_source = -1;                        ///< the step whose block is passed on twice
};

/// The ring on 4 ranks, unrolled: step k multiplies x_k (block r + k on rank r), writes the
/// product at row table[(r + k) mod 4] and passes x_k on.
std::string ring(const RingOptions& o = {}) {
  std::string text = R"(HloModule d, num_partitions=4
ENTRY e {
  x0 = f32[2,4] parameter(0), sharding={devices=[4,1]<=[4]}
  w = f32[4,6] parameter(1), sharding={replicated}
  zero = f32[] constant(0)
  acc0 = f32[8,6] broadcast(zero), dimensions={}
  table = s32[4] constant()" +
                     o.table + R"()
  pid = u32[] partition-id()
  four = u32[] constant(4)
  z = s32[] constant(0)
)";
  for (int k = 0; k < o.steps; ++k) {
    const std::string s = std::to_string(k), p = std::to_string(k - 1);
    if (k > 0) {
      const std::string from = k - 1 == o.permute_source ? std::to_string(k - 2) : p;
      text += "  x" + s + " = f32[2,4] collective-permute(x" + from + "), channel_id=" + s +
              ", source_target_pairs={" + o.pairs + "}\n";
    }
    text += "  c" + s + " = f32[2,6] dot(x" + s +
            ", w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n";
    text += "  k" + s + " = u32[] constant(" + s + ")\n";
    text += "  i" + s + " = u32[] add(pid, k" + s + ")\n";
    text += "  m" + s + " = u32[] remainder(i" + s + ", four)\n";
    text += "  t" + s + " = s32[1] dynamic-slice(table, m" + s + "), dynamic_slice_sizes={1}\n";
    text += "  o" + s + " = s32[] reshape(t" + s + ")\n";
    text += std::string(k + 1 == o.steps ? "  ROOT " : "  ") + "acc" + std::to_string(k + 1) +
            " = f32[8,6] dynamic-update-slice(acc" + s + ", c" + s + ", o" + s + ", z)\n";
  }
  return text + "}\n";
}

/// Whether the program, run on 4 ranks, gives every rank the reference's product.
bool computes_reference(const std::string& dist) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  eval::Tensor x{{8, 4}, std::vector<double>(32)}, w{{4, 6}, std::vector<double>(24)};
  for (double& v : x.data) v = u(rng);
  for (double& v : w.data) v = u(rng);
  const std::vector<eval::Value> args{eval::Value(x), eval::Value(w)};
  auto expected = eval::evaluate(test::parse_module(kRef), 0, args);
  REQUIRE(expected);
  std::vector<std::vector<eval::Value>> per_rank;
  for (int64_t r = 0; r < 4; ++r) {
    per_rank.push_back({eval::Value(eval::mesh::chunk(x, 0, 2 * r, 2)), eval::Value(w)});
  }
  auto ranks = test::simulate_ranks(test::parse_module(dist), 4, per_rank);
  REQUIRE(ranks);
  bool all = true;
  for (const eval::Value& v : *ranks) {
    for (size_t i = 0; i < v.tensor().data.size(); ++i) {
      all = all && std::abs(v.tensor().data[i] - expected->tensor().data[i]) < 1e-9;
    }
  }
  return all;
}

}  // namespace

TEST_CASE("a ring that gathers the rows of a matmul is proven, and the proof re-checked",
          "[check][ring]") {
  REQUIRE(computes_reference(ring()));
  const verify::CheckResult r = test::check_texts(ring(), kRef);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(r.goals[0].layout->to_string(r.mesh) == "rep");
  test::check_proof_accepted(kRef, ring(), r);
  // The assembly's steps in another order are no proof.
  verify::CheckResult tampered = r;
  for (verify::DerivedFact& f : tampered.derivation) {
    if (f.rule == "ring-assembly") std::swap(f.premises[0], f.premises[1]);
  }
  CHECK(test::recheck(kRef, ring(), tampered).outcome ==
        proofcheck::ProofCheckReport::Outcome::kRejected);
}

TEST_CASE("a ring's mistakes are found at the write that goes wrong", "[check][ring]") {
  struct Bug {
    const char* what;
    RingOptions options;
    const char* node;
    const char* reason;
  };
  const Bug bugs[] = {
      {"blocks passed the other way",
       {.pairs = "{0,1},{1,2},{2,3},{3,0}"},
       "acc2",
       "device 0 holds block 3 and writes it at offset 2"},
      {"offsets out of order", {.table = "{0, 4, 2, 6}"}, "acc1", "not where"},
      {"a step missing", {.steps = 3}, "acc3", "never written"},
      {"a block passed on twice", {.permute_source = 2}, "acc4", "not where"},
  };
  for (const Bug& b : bugs) {
    INFO(b.what);
    const std::string dist = ring(b.options);
    CHECK_FALSE(computes_reference(dist));
    const verify::CheckResult r = test::check_texts(dist, kRef);
    REQUIRE(r.verdict == Verdict::kDivergent);
    CHECK(r.divergence->dist_node == b.node);
    CHECK_THAT(r.divergence->reason, Catch::Contains(b.reason));
  }
}

TEST_CASE("a ring written as a while loop is proven through its unrolled steps", "[check][ring]") {
  const std::string loop = R"(HloModule windowed, num_partitions=4
body {
  param = (f32[2,4], f32[4,6], f32[8,6], u32[]) parameter(0)
  x = f32[2,4] get-tuple-element(param), index=0
  w = f32[4,6] get-tuple-element(param), index=1
  acc = f32[8,6] get-tuple-element(param), index=2
  i = u32[] get-tuple-element(param), index=3
  d = f32[2,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  half = f32[] constant(0.5)
  hb = f32[2,6] broadcast(half), dimensions={}
  c = f32[2,6] multiply(d, hb)
  table = s32[4] constant({0, 2, 4, 6})
  pid = u32[] partition-id()
  s = u32[] add(i, pid)
  four = u32[] constant(4)
  m = u32[] remainder(s, four)
  t = s32[1] dynamic-slice(table, m), dynamic_slice_sizes={1}
  o = s32[] reshape(t)
  z = s32[] constant(0)
  acc2 = f32[8,6] dynamic-update-slice(acc, c, o, z)
  next = f32[2,4] collective-permute(x), channel_id=1, source_target_pairs={{0,3},{1,0},{2,1},{3,2}}
  one = u32[] constant(1)
  i2 = u32[] add(i, one)
  ROOT out = (f32[2,4], f32[4,6], f32[8,6], u32[]) tuple(next, w, acc2, i2)
}
cond {
  param = (f32[2,4], f32[4,6], f32[8,6], u32[]) parameter(0)
  i = u32[] get-tuple-element(param), index=3
  four = u32[] constant(4)
  ROOT lt = pred[] compare(i, four), direction=LT
}
ENTRY e {
  x = f32[2,4] parameter(0), sharding={devices=[4,1]<=[4]}
  w = f32[4,6] parameter(1), sharding={replicated}
  zero = f32[] constant(0)
  acc = f32[8,6] broadcast(zero), dimensions={}
  i0 = u32[] constant(0)
  init = (f32[2,4], f32[4,6], f32[8,6], u32[]) tuple(x, w, acc, i0)
  loop = (f32[2,4], f32[4,6], f32[8,6], u32[]) while(init), condition=cond, body=body
  ROOT y = f32[8,6] get-tuple-element(loop), index=2
}
)";
  // The blocks are scaled on the way (elementwise, by a number): still the rotated product.
  const std::string scaled_ref = R"(HloModule r
ENTRY e {
  x = f32[8,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[8,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  half = f32[] constant(0.5)
  hb = f32[8,6] broadcast(half), dimensions={}
  ROOT y = f32[8,6] multiply(d, hb)
}
)";
  const verify::CheckResult r = test::check_texts(loop, scaled_ref);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  test::check_proof_accepted(scaled_ref, loop, r);
  // Against the unscaled product it is no proof.
  CHECK(test::check_texts(loop, kRef).verdict == Verdict::kDivergent);
}

TEST_CASE("each rank slicing the block r + k of a replicated value holds a rotated shard",
          "[check][ring]") {
  // An all-gather written as a ring over a replicated input's slices: step k takes block
  // (r + k) mod 4 with a dynamic-slice and writes it at its place.
  std::string dist = R"(HloModule d, num_partitions=4
ENTRY e {
  x = f32[8,4] parameter(0), sharding={replicated}
  zero = f32[] constant(0)
  acc0 = f32[8,4] broadcast(zero), dimensions={}
  pid = u32[] partition-id()
  four = u32[] constant(4)
  two = u32[] constant(2)
  z = u32[] constant(0)
)";
  for (int k = 0; k < 4; ++k) {
    const std::string s = std::to_string(k);
    dist += "  k" + s + " = u32[] constant(" + s + ")\n  i" + s + " = u32[] add(pid, k" + s +
            ")\n  m" + s + " = u32[] remainder(i" + s + ", four)\n  o" + s + " = u32[] multiply(m" +
            s + ", two)\n  b" + s + " = f32[2,4] dynamic-slice(x, o" + s +
            ", z), dynamic_slice_sizes={2,4}\n  " + (k == 3 ? "ROOT " : "") + "acc" +
            std::to_string(k + 1) + " = f32[8,4] dynamic-update-slice(acc" + s + ", b" + s + ", o" +
            s + ", z)\n";
  }
  dist += "}\n";
  const std::string ref =
      "HloModule r\nENTRY e {\n  x = f32[8,4] parameter(0)\n  ROOT c = "
      "f32[8,4] copy(x)\n}\n";
  const verify::CheckResult r = test::check_texts(dist, ref);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  test::check_proof_accepted(ref, dist, r);
}
