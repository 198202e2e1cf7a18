// Two programs fed the same input in different shapes (one flattens its images before the step,
// the other inside it), and a collective over every device that nothing counts.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

const std::string kFlatRef = R"(HloModule r
ENTRY e {
  x = f32[4,6] parameter(0)
  w = f32[6,3] parameter(1)
  ROOT d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";

/// The images arrive as f32[4,2,3] and are flattened inside; `view` is how.
std::string images_dist(const std::string& view) {
  return R"(HloModule d
ENTRY e {
  img = f32[4,2,3] parameter(0)
  w = f32[6,3] parameter(1)
  )" + view +
         R"(
  ROOT d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
}

}  // namespace

TEST_CASE("an input given in another shape with the same elements is the reference's, reshaped",
          "[verify]") {
  const std::string dist = images_dist("x = f32[4,6] reshape(img)");
  const auto r = test::check_texts(dist, kFlatRef);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  REQUIRE(r.bijection.size() == 2);
  const auto& img = r.bijection[0];
  CHECK(img.dist == "img");
  CHECK(img.ref == "x");
  CHECK(img.reshape == std::vector<int64_t>{4, 2, 3});
  CHECK_THAT(img.why, Catch::Contains("read as f32[4,2,3] (a reshape of f32[4,6])"));
  test::check_proof_accepted(kFlatRef, dist, r);

  // Flattened in another order, the rows mix the two programs' elements differently.
  const std::string swapped =
      images_dist("t = f32[4,3,2] transpose(img), dimensions={0,2,1}\n  x = f32[4,6] reshape(t)");
  const auto bad = test::check_texts(swapped, kFlatRef);
  REQUIRE(bad.verdict == Verdict::kDivergent);
  CHECK((bad.divergence->dist_node == "t" || bad.divergence->dist_node == "x"));
}

TEST_CASE("a collective over every device that nothing counts asks for the mesh", "[verify]") {
  // replica_groups={} with no num_partitions or replica_count: one device is assumed, and the
  // note says so rather than that nothing communicates.
  const std::string dist = R"(HloModule d
)" + test::kSumComputation +
                           R"(
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,6] all-reduce(d), replica_groups={}, to_apply=sum
  ROOT t = f32[4,6] tanh(s)
}
)";
  const auto r = test::check_texts(dist, test::kDotTanhRef);
  CHECK(r.mesh.device_count() == 1);
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(test::noted(r, "s spans every device (replica_groups={}), but neither the header"));
  CHECK(test::noted(r, "give them with --mesh"));
}

TEST_CASE("a constant factor the reference does not apply is reported at the constant",
          "[verify]") {
  const std::string dist = R"(HloModule d
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  half = f32[] constant(0.5)
  h = f32[4,6] broadcast(half), dimensions={}
  m = f32[4,6] multiply(d, h)
  ROOT t = f32[4,6] tanh(m)
}
)";
  const auto r = test::check_texts(dist, test::kDotTanhRef);
  REQUIRE(r.verdict == Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "half");
  CHECK_THAT(r.divergence->reason, Catch::Contains("a value the reference never computes"));
}
