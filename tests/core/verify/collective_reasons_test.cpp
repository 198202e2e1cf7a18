// The reasons a collective that does not combine what its operand holds is reported with: an
// all-reduce whose reduction is not the partial values' own (a max where the ranks hold partial
// sums), and a sum over copies of one replicated value.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

using namespace scalify;

namespace {

const std::string kMaxComputation =
    "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] maximum(a, "
    "b)\n}\n";

/// The row-parallel program of kDotTanhRef, its all-reduce reducing by `reducer`.
std::string row_parallel(const std::string& reducer) {
  return "HloModule d, num_partitions=2\n" + test::kSumComputation + kMaxComputation +
         R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,6] all-reduce(d), replica_groups={{0,1}}, to_apply=)" +
         reducer + R"(
  ROOT t = f32[4,6] tanh(s)
}
)";
}

}  // namespace

TEST_CASE("collective reasons: the wrong reduction, a sum of copies", "[verify]") {
  const std::string& ref = test::kDotTanhRef;
  // The correct program first, so that the failures below are the reducer's.
  REQUIRE(test::check_texts(row_parallel("sum"), ref).verdict == verify::Verdict::kEquivalent);

  const verify::CheckResult max = test::check_texts(row_parallel("max"), ref);
  REQUIRE(max.verdict == verify::Verdict::kDivergent);
  REQUIRE(max.divergence);
  CHECK(max.divergence->dist_node == "s");
  CHECK(max.divergence->reason ==
        "its operand is partial(sum,tp): `all-reduce` takes the maximum of the ranks' values "
        "over tp, which does not combine it into the whole value");

  // Summing a value every rank holds whole counts it once per rank (x cannot be a partial sum
  // held by one rank, an assumption the check would state: exp is not linear).
  const std::string copies =
      "HloModule d, num_partitions=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4] parameter(0)
  e = f32[4] exponential(x)
  s = f32[4] all-reduce(e), replica_groups={{0,1}}, to_apply=sum
  ROOT t = f32[4] tanh(s)
}
)";
  const verify::CheckResult twice = test::check_texts(
      copies,
      "HloModule r\nENTRY e {\n  x = f32[4] parameter(0)\n  e = f32[4] exponential(x)\n  ROOT t = "
      "f32[4] tanh(e)\n}\n");
  REQUIRE(twice.verdict == verify::Verdict::kDivergent);
  REQUIRE(twice.divergence);
  CHECK(twice.divergence->dist_node == "s");
  CHECK(twice.divergence->reason ==
        "its operand is rep on tp: `all-reduce` sums 2 equal copies, and nothing after it "
        "divides by 2 (the reference value is counted 2 times)");
}

TEST_CASE(
    "a sum of equal copies divided by their number is the value (data parallel on one "
    "batch)",
    "[verify]") {
  // Every rank computes the same gradient (the ranks were given the same batch) and averages
  // it with the others: all_reduce(SUM) then scale 1/N, as torch-xla's reduce_gradients does.
  const std::string ref =
      "HloModule r\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT t = f32[4] tanh(x)\n}\n";
  auto averaged = [](const std::string& scale) {
    return "HloModule d\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4] parameter(0)
  s = f32[4] all-reduce(x), replica_groups={}, to_apply=sum
  c = f32[] constant()" +
           scale + R"()
  b = f32[4] broadcast(c), dimensions={}
  m = f32[4] multiply(s, b)
  ROOT t = f32[4] tanh(m)
}
)";
  };
  // Nothing counts the devices but the scale: 1/4 says four.
  const verify::CheckResult mean = test::check_texts(averaged("0.25"), ref);
  CHECK(mean.mesh.to_string() == "dp=4");
  CHECK(test::noted(mean,
                    "s sums over every device (replica_groups={}) and m scales the sum "
                    "by 1/4 (a mean over 4 devices)"));
  REQUIRE(mean.verdict == verify::Verdict::kEquivalent);
  test::check_proof_accepted(ref, averaged("0.25"), mean);

  // On a mesh of 2 given by the user, a scale of 1/4 halves the value.
  verify::CheckRequest on_two;
  on_two.mesh = *verify::Mesh::parse("dp=2");
  const auto halved = verify::check(test::parse_module(ref, "ref.hlo"),
                                    test::parse_module(averaged("0.25"), "dist.hlo"), on_two);
  REQUIRE(halved);
  CHECK(halved->verdict == verify::Verdict::kDivergent);
  REQUIRE(halved->divergence);
  INFO(halved->divergence->dist_node << ": " << halved->divergence->reason);
  CHECK(halved->divergence->dist_node == "c");
}

TEST_CASE("a reference that communicates is noted as no single device's program", "[verify]") {
  const std::string both = "HloModule p, num_partitions=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4] parameter(0)
  s = f32[4] all-reduce(x), replica_groups={{0,1}}, to_apply=sum
  ROOT t = f32[4] tanh(s)
}
)";
  const verify::CheckResult r = test::check_texts(both, both);
  CHECK(r.verdict != verify::Verdict::kEquivalent);
  CHECK(test::noted(r, "REF communicates (its all-reduce 's' exchanges values between devices)"));
  // Over groups of one device, a collective returns its operand: nothing to note.
  const std::string alone = "HloModule p\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4] parameter(0)
  s = f32[4] all-reduce(x), replica_groups={{0}}, to_apply=sum
  ROOT t = f32[4] tanh(s)
}
)";
  const verify::CheckResult one = test::check_texts(alone, alone);
  CHECK(one.verdict == verify::Verdict::kEquivalent);
  CHECK_FALSE(test::noted(one, "REF communicates"));
  // The arguments the wrong way round: the distributed program given as REF.
  const verify::CheckResult swapped = test::check_texts(test::kDotTanhRef, both);
  CHECK(test::noted(swapped, "and DIST does not: are they swapped?"));
}

TEST_CASE("a tuple all-reduce vouches for an operand only through that operand's element",
          "[verify]") {
  // Two row-parallel products reduced together; the second is negated on the way. The first
  // element comes out right, which says nothing of the second.
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  v = f32[8,6] parameter(2)
  d1 = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[4,6] dot(x, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t1 = f32[4,6] tanh(d1)
  t2 = f32[4,6] tanh(d2)
  ROOT r = (f32[4,6], f32[4,6]) tuple(t1, t2)
}
)";
  const std::string dist = "HloModule d, num_partitions=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  v = f32[4,6] parameter(2)
  d1 = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[4,6] dot(x, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  n2 = f32[4,6] negate(d2)
  s = (f32[4,6], f32[4,6]) all-reduce(d1, n2), replica_groups={{0,1}}, to_apply=sum
  g1 = f32[4,6] get-tuple-element(s), index=0
  g2 = f32[4,6] get-tuple-element(s), index=1
  t1 = f32[4,6] tanh(g1)
  t2 = f32[4,6] tanh(g2)
  ROOT r = (f32[4,6], f32[4,6]) tuple(t1, t2)
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "n2");
}

TEST_CASE("collective reasons: partial values of two reductions are not added", "[verify]") {
  // A sum and a maximum over a sharded dim, added before either is all-reduced: the reason
  // says the parts make up their values in different ways (neither operand is replicated).
  const std::string body = R"(
  zero = f32[] constant(0)
  low = f32[] constant(-inf)
  s = f32[4] reduce(x, zero), dimensions={1}, to_apply=sum
  m = f32[4] reduce(x, low), dimensions={1}, to_apply=max
  ROOT a = f32[4] add(s, m)
}
)";
  const std::string ref = "HloModule r\n" + test::kSumComputation + kMaxComputation +
                          "ENTRY e {\n  x = f32[4,8] parameter(0)" + body;
  const std::string dist = "HloModule d, num_partitions=2\n" + test::kSumComputation +
                           kMaxComputation + "ENTRY e {\n  x = f32[4,4] parameter(0)" + body;
  const verify::CheckResult r = test::check_texts(dist, ref);
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "a");
  CHECK(r.divergence->reason ==
        "operand 0 is partial(sum,tp) but operand 1 is partial(max,tp): `add` combines parts "
        "that make up their values in different ways");
}
