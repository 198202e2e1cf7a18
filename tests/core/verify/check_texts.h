// Helpers for checker tests written as HLO text: check two programs, look for a note, re-check
// the proof.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "hlo/printer.h"
#include "proofcheck/proof_check.h"
#include "proofcheck/proof_file.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify::test {

/// A reducer for the distributed programs of these tests.
inline const std::string kSumComputation =
    "sum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";

/// A reference that a row-parallel program computes: tanh of a matmul.
inline const std::string kDotTanhRef = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,6] tanh(d)
}
)";

/// A reference for elementwise programs over a split parameter: exp of an 8 x 4 matrix.
inline const std::string kExpRef = R"(HloModule r
ENTRY e {
  p0 = f32[8,4] parameter(0)
  ROOT e = f32[8,4] exponential(p0)
}
)";

/// `check(ref, dist)` with everything inferred, the texts labelled ref.hlo and dist.hlo.
inline verify::CheckResult check_texts(const std::string& dist, const std::string& ref) {
  auto r = verify::check(parse_module(ref, "ref.hlo"), parse_module(dist, "dist.hlo"), {});
  REQUIRE(r);
  return *r;
}

/// Whether some note of `r` contains `words`.
inline bool noted(const verify::CheckResult& r, const std::string& words) {
  for (const std::string& n : r.notes) {
    if (n.find(words) != std::string::npos) return true;
  }
  return false;
}

/// What `proof verify`'s independent checker says of result `r` of checking `dist` against
/// `ref` (both as HLO text).
inline proofcheck::ProofCheckReport recheck(const std::string& ref, const std::string& dist,
                                            const verify::CheckResult& r) {
  const proofcheck::ProofFile proof{"ref.hlo", hlo::print_module(parse_module(ref)), "dist.hlo",
                                    hlo::print_module(parse_module(dist)), r};
  auto report = proofcheck::check_proof(proof);
  REQUIRE(report);
  return *report;
}

/// Requires `proof verify`'s checker to accept result `r` of checking `dist` against `ref`,
/// showing its reason when it does not.
inline void check_proof_accepted(const std::string& ref, const std::string& dist,
                                 const verify::CheckResult& r) {
  const proofcheck::ProofCheckReport report = recheck(ref, dist, r);
  INFO(report.why);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
}

}  // namespace scalify::test
