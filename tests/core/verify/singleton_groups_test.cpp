// Collectives over groups of one device return their operands. torch-xla writes them on one
// device (ZeRO's gradient reduce-scatter with one rank), threading a scalar through the tuple: a
// program checked against itself is equivalent, and in a distributed program such a collective
// keeps its operand's layout (a partial value it leaves uncombined is a divergence, as for
// all-reduce).
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

namespace scalify {
namespace {

const std::string& kSum = test::kSumComputation;

/// A step that scatters its gradient (and a scalar riding along) over groups of one device.
const std::string kStep = "HloModule step\n" + kSum + R"(ENTRY e {
  w = f32[4,4] parameter(0)
  g = f32[4,4] parameter(1)
  t = f32[] parameter(2)
  rs = (f32[4,4], f32[]) reduce-scatter(g, t), replica_groups={{0}}, dimensions={0}, to_apply=sum
  gs = f32[4,4] get-tuple-element(rs), index=0
  ag = f32[4,4] all-gather(gs), replica_groups={{0}}, dimensions={0}
  sq = f32[4,4] multiply(ag, ag)
  ROOT u = f32[4,4] subtract(w, sq)
}
)";

}  // namespace

TEST_CASE("groups of one: a program scattering over them is equivalent to itself", "[verify]") {
  const verify::CheckResult r = test::check_texts(kStep, kStep);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  CHECK(r.mesh.device_count() == 1);
}

TEST_CASE(
    "groups of one: a distributed gather over them keeps the layout, a scatter of a "
    "partial value is a divergence",
    "[verify]") {
  const std::string& ref = test::kDotTanhRef;
  auto dist = [&](const std::string& collective) {
    return "HloModule d, num_partitions=2\n" + kSum + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,6] all-reduce(d), replica_groups={{0,1}}, to_apply=sum
  )" + collective +
           R"(
  ROOT t = f32[4,6] tanh(n)
}
)";
  };
  const std::string kept =
      dist("n = f32[4,6] all-gather(s), replica_groups={{0},{1}}, dimensions={0}");
  const verify::CheckResult r = test::check_texts(kept, ref);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  test::check_proof_accepted(ref, kept, r);
  // Scattering the partial sums over groups of one combines nothing.
  const std::string uncombined = "HloModule d, num_partitions=2\n" + kSum + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n = f32[4,6] reduce-scatter(d), replica_groups={{0},{1}}, dimensions={0}, to_apply=sum
  ROOT t = f32[4,6] tanh(n)
}
)";
  const verify::CheckResult u = test::check_texts(uncombined, ref);
  CHECK(u.verdict == verify::Verdict::kDivergent);
  REQUIRE(u.divergence);
  CHECK(u.divergence->dist_node == "n");
  CHECK_THAT(u.divergence->reason, Catch::Contains("groups of one device and does nothing"));
}

}  // namespace scalify
