// collective-permute as a layout change: values moved along an axis where they are replicated
// are what each rank held; partial sums exchanged one-to-one within their axis still sum to the
// reference value; both proven, and re-checked by the proof checker. A permutation that leaves a
// rank without a value is a divergence; shards passed around a ring are not modelled
// (inconclusive, never blamed).
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

namespace scalify {
namespace {

const std::string& kSum = test::kSumComputation;
const std::string& kRef = test::kDotTanhRef;

/// Row-parallel on tp=2 (a partial sum), the partial sums permuted by `pairs` before the
/// all-reduce.
std::string partial_permuted(const std::string& pairs) {
  return "HloModule d, num_partitions=2\n" + kSum + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  p = f32[4,6] collective-permute(d), source_target_pairs=)" +
         pairs + R"(
  s = f32[4,6] all-reduce(p), replica_groups={{0,1}}, to_apply=sum
  ROOT t = f32[4,6] tanh(s)
}
)";
}

}  // namespace

TEST_CASE("collective-permute: partial sums exchanged one-to-one still sum to the reference",
          "[verify]") {
  const std::string dist = partial_permuted("{{0,1},{1,0}}");
  const verify::CheckResult r = test::check_texts(dist, kRef);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  test::check_proof_accepted(kRef, dist, r);
  // Rank 0 receives nothing (it would hold zeros) and rank 1 twice.
  const verify::CheckResult lost = test::check_texts(partial_permuted("{{0,1},{1,1}}"), kRef);
  CHECK(lost.verdict == verify::Verdict::kDivergent);
  REQUIRE(lost.divergence);
  CHECK(lost.divergence->dist_node == "p");
  CHECK_THAT(lost.divergence->reason, Catch::Contains("without a value"));
}

TEST_CASE("collective-permute: along a replicated axis, shards on another axis are kept",
          "[verify]") {
  // dp=2 x tp=2 (device = 2*dp + tp): the columns of w split over dp (the first axis they
  // fit), everything replicated over tp; the permutation swaps the tp replicas, which hold the
  // same blocks.
  const std::string dist = R"(HloModule d, num_partitions=4
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,3] parameter(1)
  d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  p = f32[4,3] collective-permute(d), source_target_pairs={{0,1},{1,0},{2,3},{3,2}}
  ROOT t = f32[4,3] tanh(p)
}
)";
  verify::CheckRequest request;
  request.mesh = *verify::Mesh::parse("dp=2,tp=2");
  auto r = verify::check(test::parse_module(kRef, "ref.hlo"), test::parse_module(dist, "dist.hlo"),
                         request);
  REQUIRE(r);
  CHECK(r->verdict == verify::Verdict::kEquivalent);
  REQUIRE(r->goals.size() == 1);
  REQUIRE(r->goals[0].layout);
  CHECK(r->goals[0].layout->to_string(r->mesh) == "shard(1,dp)");
  test::check_proof_accepted(kRef, dist, *r);
}

TEST_CASE("collective-permute: a shard passed along a ring is a shard of the rotated value",
          "[verify]") {
  // Column-parallel on tp=2, the ranks' blocks swapped before the output: each rank returns
  // the other's columns, which is the permute's fault; swapped back, it is right again.
  const std::string swapped = R"(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,3] parameter(1)
  d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  p = f32[4,3] collective-permute(d), source_target_pairs={{0,1},{1,0}}
  ROOT t = f32[4,3] tanh(p)
}
)";
  const verify::CheckResult r = test::check_texts(swapped, kRef);
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "t");
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("'p' (`collective-permute`) is one op too many"));
  std::string back = swapped;
  const std::string root = "  ROOT t = f32[4,3] tanh(p)";
  back.replace(back.find(root), root.size(),
               "  q = f32[4,3] collective-permute(p), source_target_pairs={{0,1},{1,0}}\n"
               "  ROOT t = f32[4,3] tanh(q)");
  const verify::CheckResult twice = test::check_texts(back, kRef);
  CHECK(twice.verdict == verify::Verdict::kEquivalent);
  test::check_proof_accepted(kRef, back, twice);
}

}  // namespace scalify
