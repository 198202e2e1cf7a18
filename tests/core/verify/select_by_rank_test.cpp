// select(partition-id == c, x, 0): the ranks of one coordinate keep x and the others zeros, a
// partial sum that an all-reduce makes whole (how torch-xla's FSDP gathers a weight too small to
// split: rank 0 holds the one row, the other rank only padding). Proven for a replicated x and
// for such a padded shard, with the partition id written as the op or passed as a parameter
// (torch-xla on Neuron); re-checked by the proof checker; the wrong rank, the wrong comparison
// and a missing all-reduce are not proven.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

namespace scalify {
namespace {

const std::string kRef = R"(HloModule r
ENTRY e {
  x = f32[4,5] parameter(0)
  w = f32[1,5] parameter(1)
  row = f32[5] reshape(w)
  wb = f32[4,5] broadcast(row), dimensions={1}
  xw = f32[4,5] multiply(x, wb)
  ROOT y = f32[4,5] tanh(xw)
}
)";

/// Each rank holds a [1,5] block of w padded to two rows (rank 0 the row, rank 1 padding);
/// the ranks `keep` (a comparison of the partition id with 0) keep theirs, the others zeros,
/// and an all-reduce (unless `reduce` is false) sums them. `pid` is how the partition id is
/// read: "op" (partition-id()) or "parameter" (a parameter named partition-id.2).
std::string fsdp(const std::string& keep, const std::string& pid = "parameter",
                 bool reduce = true) {
  // (A module that writes the op says how many partitions it runs on.)
  std::string t = std::string(pid == "op" ? "HloModule d, num_partitions=2" : "HloModule d") +
                  "\n" + test::kSumComputation +
                  "ENTRY e {\n"
                  "  x = f32[4,5] parameter(0), sharding={replicated}\n"
                  "  w = f32[1,5] parameter(1), sharding={devices=[2,1]0,1}\n";
  t += pid == "op" ? "  partition-id.2 = u32[] partition-id()\n"
                   : "  partition-id.2 = u32[] parameter(2)\n";
  t += "  zero_id = u32[] constant(0)\n"
       "  mine = pred[] compare(partition-id.2, zero_id), direction=" +
       keep +
       "\n"
       "  mine_b = pred[1,5] broadcast(mine), dimensions={}\n"
       "  zero = f32[] constant(0)\n"
       "  zeros = f32[1,5] broadcast(zero), dimensions={}\n"
       "  kept = f32[1,5] select(mine_b, w, zeros)\n";
  t += reduce ? "  whole = f32[1,5] all-reduce(kept), replica_groups={{0,1}}, to_apply=sum\n"
              : "  whole = f32[1,5] copy(kept)\n";
  t += "  row = f32[5] reshape(whole)\n"
       "  wb = f32[4,5] broadcast(row), dimensions={1}\n"
       "  xw = f32[4,5] multiply(x, wb)\n"
       "  ROOT y = f32[4,5] tanh(xw)\n}\n";
  return t;
}

}  // namespace

TEST_CASE("select by rank: rank 0's padded block, gathered by an all-reduce, is the weight",
          "[verify]") {
  for (const std::string pid : {"parameter", "op"}) {
    INFO(pid);
    const std::string dist = fsdp("EQ", pid);
    const verify::CheckResult r = test::check_texts(dist, kRef);
    REQUIRE(r.verdict == verify::Verdict::kEquivalent);
    REQUIRE(r.bijection.size() >= 2);
    CHECK(r.bijection[1].layout.to_string(r.mesh) == "shard(0,tp,pad 1)");
    CHECK(test::noted(r, "partition-id.2 is read as the device's partition id") ==
          (pid == "parameter"));
    test::check_proof_accepted(kRef, dist, r);
  }
}

TEST_CASE("select by rank: the padding's rank, every rank, or no all-reduce is not the weight",
          "[verify]") {
  // Rank 1 holds only padding; NE keeps rank 1's.
  const verify::CheckResult padding = test::check_texts(fsdp("NE"), kRef);
  REQUIRE(padding.verdict == verify::Verdict::kDivergent);
  REQUIRE(padding.divergence);
  CHECK(padding.divergence->dist_node == "kept");
  CHECK_THAT(padding.divergence->reason,
             Catch::Contains("the ranks of coordinate 1 keep it: they keep only padding"));
  // GE holds on both ranks: each keeps its own block, and the all-reduce adds the padding in.
  const verify::CheckResult both = test::check_texts(fsdp("GE"), kRef);
  CHECK(both.verdict != verify::Verdict::kEquivalent);
  // Without the all-reduce, rank 1 multiplies by zeros.
  const verify::CheckResult alone = test::check_texts(fsdp("EQ", "parameter", false), kRef);
  CHECK(alone.verdict == verify::Verdict::kDivergent);
}

TEST_CASE("select by rank: a replicated bias kept by rank 0 alone is a partial sum", "[verify]") {
  // The in-graph form of a loader that puts a row-parallel bias on one rank: added to the
  // partial sums before the all-reduce, it is counted once.
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  b = f32[6] parameter(2)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,6] broadcast(b), dimensions={1}
  ROOT y = f32[4,6] add(d, bb)
}
)";
  const std::string dist = "HloModule d, num_partitions=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  b = f32[6] parameter(2)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  id = u32[] partition-id()
  zero_id = u32[] constant(0)
  first = pred[] compare(id, zero_id), direction=EQ
  first_b = pred[6] broadcast(first), dimensions={}
  zero = f32[] constant(0)
  zeros = f32[6] broadcast(zero), dimensions={}
  kept = f32[6] select(first_b, b, zeros)
  bb = f32[4,6] broadcast(kept), dimensions={1}
  part = f32[4,6] add(d, bb)
  ROOT y = f32[4,6] all-reduce(part), replica_groups={{0,1}}, to_apply=sum
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  CHECK(r.assumptions.empty());  // the program itself keeps the bias on one rank
  test::check_proof_accepted(ref, dist, r);
}

}  // namespace scalify
