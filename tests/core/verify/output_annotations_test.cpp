// What a distributed program says of its own outputs: a ROOT's `sharding=` is the layout its
// caller will read the output in. An output proven in another layout (summed over the wrong
// axis, returned before its all-reduce) is a divergence at the node that produces it; an
// annotation the mesh cannot read leaves the goal unproven; one that makes the output no split
// of the reference's (a program not partitioned yet, whose annotations are requests) says
// nothing.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

namespace scalify {
namespace {

using verify::Mesh;
using verify::Verdict;

const std::string kDotRef = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  ROOT d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

/// Row-parallel on tp=2: the product's partial sums, all-reduced or not, the ROOT annotated
/// with `root_sharding` (nothing when empty).
std::string row_parallel(bool reduced, const std::string& root_sharding) {
  const std::string annotation = root_sharding.empty() ? "" : ", sharding=" + root_sharding;
  return "HloModule d, num_partitions=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4,4] parameter(0), sharding={devices=[1,2]0,1}
  w = f32[4,6] parameter(1), sharding={devices=[2,1]0,1}
  p = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0})" +
         (reduced ? "\n  s = f32[4,6] all-reduce(p), replica_groups={{0,1}}, to_apply=sum\n"
                    "  ROOT o = f32[4,6] copy(s)" +
                        annotation
                  : "\n  ROOT o = f32[4,6] copy(p)" + annotation) +
         "\n}\n";
}

verify::CheckResult check_on(const std::string& dist, const std::string& ref, const char* mesh) {
  verify::CheckRequest request;
  request.mesh = *Mesh::parse(mesh);
  auto r = verify::check(test::parse_module(ref), test::parse_module(dist), request);
  REQUIRE(r);
  return *r;
}

}  // namespace

TEST_CASE(
    "output annotations: an output its annotation calls whole but returned as partial "
    "sums is a divergence",
    "[verify]") {
  // Without an annotation, partial sums returned for the caller to combine are proven so.
  const verify::CheckResult plain = test::check_texts(row_parallel(false, ""), kDotRef);
  CHECK(plain.verdict == Verdict::kEquivalent);
  CHECK(test::noted(plain, "is returned as partial(sum,tp)"));
  // Said to be replicated, they are the missing all-reduce.
  const verify::CheckResult r = test::check_texts(row_parallel(false, "{replicated}"), kDotRef);
  CHECK(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "o");
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("the output is partial(sum,tp) of the reference output, but its "
                             "sharding={replicated} says rep"));
  REQUIRE(r.goals.size() == 1);
  CHECK_THAT(r.goals[0].why_not, Catch::Contains("as its sharding={replicated} says"));
  // All-reduced, the annotation holds.
  const std::string reduced = row_parallel(true, "{replicated}");
  const verify::CheckResult ok = test::check_texts(reduced, kDotRef);
  CHECK(ok.verdict == Verdict::kEquivalent);
  test::check_proof_accepted(kDotRef, reduced, ok);
}

TEST_CASE("output annotations: an output split over the wrong mesh axis is a divergence",
          "[verify]") {
  // dp=2 x tp=2: the rows of x split over dp, so the product's rows are too; the ROOT says
  // they are split over tp (devices listed tp-major).
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  ROOT t = f32[4,8] tanh(x)
}
)";
  auto dist = [](const std::string& root) {
    return R"(HloModule d, num_partitions=4
ENTRY e {
  x = f32[2,8] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  ROOT t = f32[2,8] tanh(x), sharding=)" +
           root + "\n}\n";
  };
  const std::string right = dist("{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  const verify::CheckResult ok = check_on(right, ref, "dp=2,tp=2");
  CHECK(ok.verdict == Verdict::kEquivalent);
  const verify::CheckResult r =
      check_on(dist("{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dim_replicate}"), ref, "dp=2,tp=2");
  CHECK(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "t");
  CHECK_THAT(r.divergence->reason, Catch::Contains("the output is shard(0,dp)"));
  CHECK_THAT(r.divergence->reason, Catch::Contains("says shard(0,tp)"));
}

TEST_CASE(
    "output annotations: one the mesh cannot read leaves the goal unproven; a request "
    "says nothing",
    "[verify]") {
  const std::string& ref = test::kExpRef;
  auto dist = [](const std::string& root) {
    return R"(HloModule d, num_partitions=4
ENTRY e {
  p0 = f32[2,4] parameter(0)
  ROOT e = f32[2,4] exponential(p0), sharding=)" +
           root + "\n}\n";
  };
  // Device 3 said to hold the output's first block, on a mesh given in the iota order.
  const verify::CheckResult r = check_on(dist("{devices=[4,1]3,2,1,0}"), ref, "tp=4");
  CHECK(r.verdict == Verdict::kInconclusive);
  REQUIRE(r.goals.size() == 1);
  CHECK_FALSE(r.goals[0].proven);
  CHECK_THAT(r.goals[0].why_not, Catch::Contains("its device order is not the mesh's"));
  // Inferred, the mesh takes that order, and the output is proven in it.
  const verify::CheckResult ordered = test::check_texts(dist("{devices=[4,1]3,2,1,0}"), ref);
  CHECK(ordered.verdict == Verdict::kEquivalent);
  CHECK(ordered.mesh.to_string() == "tp=4 devices=[3,2,1,0]");
  // `{replicated}` on a quarter of the reference's rows is no layout of them: a request of a
  // program not partitioned yet, not held against the output.
  CHECK(check_on(dist("{replicated}"), ref, "tp=4").verdict == Verdict::kEquivalent);
}

}  // namespace scalify
