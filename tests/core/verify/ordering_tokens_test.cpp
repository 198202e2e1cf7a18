// torch-xla threads a scalar (its ordering token) through its tuple collectives: the arrays are
// gathered as ever, the token's value is not modelled — an output made of it is never proven.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

const std::string kRef = R"(HloModule r
ENTRY e {
  x = f32[4,3] parameter(0)
  ROOT y = f32[4,3] negate(x)
}
)";

/// Each rank negates its rows and gathers them, threading a token through the all-gather;
/// `token_out` also returns the token.
std::string gathered(bool token_out) {
  return std::string(R"(HloModule d
ENTRY e {
  x = f32[2,3] parameter(0)
  t = f32[] parameter(1)
  n = f32[2,3] negate(x)
  ag = (f32[4,3], f32[]) all-gather(n, t), replica_groups={{0,1}}, dimensions={0}
  y = f32[4,3] get-tuple-element(ag), index=0
  tk = f32[] get-tuple-element(ag), index=1
)") + (token_out ? "  ROOT o = (f32[4,3], f32[]) tuple(y, tk)\n}\n"
                 : "  ROOT o = f32[4,3] copy(y)\n}\n");
}

}  // namespace

TEST_CASE("An ordering token beside a gathered array: the array is proven", "[check]") {
  const verify::CheckResult r = test::check_texts(gathered(false), kRef);
  CHECK(r.verdict == Verdict::kEquivalent);
}

TEST_CASE("An ordering token returned as an output is never proven", "[check]") {
  const std::string ref = R"(HloModule r
ENTRY e {
  x = f32[4,3] parameter(0)
  t = f32[] parameter(1)
  y = f32[4,3] negate(x)
  ROOT o = (f32[4,3], f32[]) tuple(y, t)
}
)";
  const verify::CheckResult r = test::check_texts(gathered(true), ref);
  CHECK(r.verdict != Verdict::kEquivalent);
  CHECK(r.verdict != Verdict::kDivergent);  // not modelled is not wrong
}
