// Gradient accumulation in data parallel: each rank adds its local mean gradient to its own
// accumulator, then the accumulators are all-reduced and halved. An accumulator input is then
// `partial(mean,dp)` of the reference's (the ranks' values average to it), which the checker
// carries as the partial sum of n times it (rule mean-as-sum), re-checked by `proof verify`.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"
#include "verify/spec.h"

using namespace scalify;

namespace {

const std::string kRef = "HloModule r\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[8,4] parameter(0)
  acc = f32[4] parameter(1)
  zero = f32[] constant(0)
  s = f32[4] reduce(x, zero), dimensions={0}, to_apply=sum
  eighth = f32[] constant(0.125)
  e8 = f32[4] broadcast(eighth), dimensions={}
  g = f32[4] multiply(s, e8)
  ROOT next = f32[4] add(acc, g)
}
)";

/// The data-parallel step: the local mean over 4 rows, added to the rank's accumulator, summed
/// over the ranks and scaled by `scale` (0.5 is right).
std::string dist(const std::string& scale) {
  return "HloModule d, replica_count=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  acc = f32[4] parameter(1)
  zero = f32[] constant(0)
  s = f32[4] reduce(x, zero), dimensions={0}, to_apply=sum
  quarter = f32[] constant(0.25)
  q4 = f32[4] broadcast(quarter), dimensions={}
  g = f32[4] multiply(s, q4)
  local = f32[4] add(acc, g)
  total = f32[4] all-reduce(local), replica_groups={{0,1}}, to_apply=sum
  half = f32[] constant()" +
         scale + R"()
  h4 = f32[4] broadcast(half), dimensions={}
  ROOT next = f32[4] multiply(total, h4)
}
)";
}

verify::CheckResult check_with_spec(const std::string& dist_text, const std::string& spec_text) {
  auto spec = verify::parse_spec(spec_text, "spec.json");
  REQUIRE(spec);
  verify::CheckRequest request;
  request.spec = &*spec;
  auto r = verify::check(test::parse_module(kRef, "ref.hlo"),
                         test::parse_module(dist_text, "dist.hlo"), request);
  REQUIRE(r);
  return *r;
}

const std::string kSpec = R"json({"mesh": {"dp": 2},
 "parameters": [{"dist": "x", "ref": "x", "layout": "shard(0,dp)"},
                {"dist": "acc", "ref": "acc", "layout": "partial(mean,dp)"}]})json";

}  // namespace

TEST_CASE("accumulated means: an accumulator of local means is a partial mean of the reference's",
          "[verify]") {
  const verify::CheckResult r = check_with_spec(dist("0.5"), kSpec);
  INFO((r.divergence ? r.divergence->reason : r.stats.stop_reason));
  REQUIRE(r.verdict == verify::Verdict::kEquivalent);
  bool carried = false;
  for (const verify::DerivedFact& f : r.derivation) carried = carried || f.rule == "mean-as-sum";
  CHECK(carried);
  // `proof verify` re-checks the mean-as-sum fact; the last step, halving the sum
  // 2 acc + s/4 into acc + s/8, is the checker's rewriting, which it does not replay.
  const proofcheck::ProofCheckReport report = test::recheck(kRef, dist("0.5"), r);
  INFO(report.why);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kNotCheckable);
  CHECK_THAT(report.why, Catch::Contains("by rewriting, not replayed"));
  // A tampered mean-as-sum fact (the mean kept as a mean) is rejected.
  verify::CheckResult tampered = r;
  for (verify::DerivedFact& f : tampered.derivation) {
    if (f.rule == "mean-as-sum") f.layout = tampered.derivation[f.premises.at(0)].layout;
  }
  const proofcheck::ProofCheckReport bad = test::recheck(kRef, dist("0.5"), tampered);
  CHECK(bad.outcome == proofcheck::ProofCheckReport::Outcome::kRejected);
  CHECK_THAT(bad.why, Catch::Contains("becomes a partial sum"));

  // The sum not halved, or the accumulator taken as a partial sum: never equivalent.
  CHECK(check_with_spec(dist("1"), kSpec).verdict != verify::Verdict::kEquivalent);
  const std::string as_sum = R"json({"mesh": {"dp": 2},
 "parameters": [{"dist": "x", "ref": "x", "layout": "shard(0,dp)"},
                {"dist": "acc", "ref": "acc", "layout": "partial(sum,dp)"}]})json";
  CHECK(check_with_spec(dist("0.5"), as_sum).verdict != verify::Verdict::kEquivalent);
}

TEST_CASE("accumulated means: two accumulators are inferred as partial means together",
          "[verify]") {
  // Without a spec: each accumulator alone as a partial sum or mean still meets the other's
  // parts counted twice; the search moves both to partial means and states the contract.
  const std::string ref = "HloModule r\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[8,4] parameter(0)
  acc = f32[4] parameter(1)
  acc2 = f32[4] parameter(2)
  zero = f32[] constant(0)
  s = f32[4] reduce(x, zero), dimensions={0}, to_apply=sum
  eighth = f32[] constant(0.125)
  e8 = f32[4] broadcast(eighth), dimensions={}
  g = f32[4] multiply(s, e8)
  next = f32[4] add(acc, g)
  ROOT next2 = f32[4] add(acc2, next)
}
)";
  const std::string dist = "HloModule d, replica_count=2\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[4,4] parameter(0)
  acc = f32[4] parameter(1)
  acc2 = f32[4] parameter(2)
  zero = f32[] constant(0)
  s = f32[4] reduce(x, zero), dimensions={0}, to_apply=sum
  quarter = f32[] constant(0.25)
  q4 = f32[4] broadcast(quarter), dimensions={}
  g = f32[4] multiply(s, q4)
  local = f32[4] add(acc, g)
  local2 = f32[4] add(acc2, local)
  total = f32[4] all-reduce(local2), replica_groups={{0,1}}, to_apply=sum
  half = f32[] constant(0.5)
  h4 = f32[4] broadcast(half), dimensions={}
  ROOT next2 = f32[4] multiply(total, h4)
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  INFO((r.divergence ? r.divergence->reason : r.stats.stop_reason));
  REQUIRE(r.verdict == verify::Verdict::kEquivalent);
  size_t means = 0;
  for (const verify::Assumption& a : r.assumptions) {
    if (a.layout.to_string(r.mesh).starts_with("partial(mean")) ++means;
  }
  CHECK(means == 2);
}
