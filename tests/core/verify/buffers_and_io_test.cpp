// What a program does besides computing values from values: a bitcast reinterprets a buffer, so
// what it computes depends on the layouts on both sides; an outfeed sends values out, which no
// output shows. Neither may let a wrong program be called equivalent.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"
#include "ir/type.h"

namespace scalify {
namespace {

/// A one-device program reading x = f32[4,8] and returning `body`'s `out`.
std::string program(const std::string& body) {
  return "HloModule m\n\nENTRY e {\n  x = f32[4,8]{1,0} parameter(0)\n" + body + "}\n";
}

verify::CheckResult check(const std::string& dist, const std::string& ref) {
  verify::CheckRequest one_device;
  one_device.mesh = *verify::Mesh::parse("tp=1");
  auto r = verify::check(test::parse_module(ref, "ref.hlo"), test::parse_module(dist, "dist.hlo"),
                         one_device);
  REQUIRE(r);
  return *r;
}

}  // namespace

TEST_CASE("a bitcast is a reshape only when both layouts keep row-major order", "[ir]") {
  auto type = [](std::vector<int64_t> dims, std::vector<int64_t> minor_to_major) {
    ir::Type t = ir::Type::array(ir::DType::kF32, std::move(dims));
    t.set_layout(ir::Layout{std::move(minor_to_major), ""});
    return t;
  };
  CHECK(ir::row_major(ir::Type::array(ir::DType::kF32, {4, 8})));
  CHECK(ir::row_major(type({4, 8}, {1, 0})));
  CHECK(ir::row_major(type({4, 1, 8}, {1, 2, 0})));  // a dim of size 1 anywhere
  CHECK_FALSE(ir::row_major(type({4, 8}, {0, 1})));
  ir::Type tiled = type({4, 8}, {1, 0});
  tiled.set_layout(ir::Layout{{1, 0}, "T(8,128)"});
  CHECK_FALSE(ir::row_major(tiled));
  CHECK(ir::bitcast_is_reshape(type({4, 8}, {1, 0}), type({32}, {0})));
  CHECK_FALSE(ir::bitcast_is_reshape(type({4, 8}, {1, 0}), type({8, 4}, {0, 1})));
  CHECK_FALSE(ir::bitcast_is_reshape(type({4, 8}, {1, 0}), ir::Type::array(ir::DType::kS32, {32})));
}

TEST_CASE("a bitcast that moves elements is not taken for a reshape", "[verify]") {
  const std::string reshape = program("  ROOT out = f32[8,4]{1,0} reshape(x)\n");
  const std::string transpose =
      program("  ROOT out = f32[8,4]{1,0} transpose(x), dimensions={1,0}\n");
  // Row-major on both sides: the bitcast is the reshape, and the proof re-checks.
  const std::string same_order = program("  ROOT out = f32[8,4]{1,0} bitcast(x)\n");
  const verify::CheckResult same = check(same_order, reshape);
  CHECK(same.verdict == verify::Verdict::kEquivalent);
  CHECK(test::recheck(reshape, same_order, same).outcome ==
        proofcheck::ProofCheckReport::Outcome::kAccepted);
  // The result column-major: element (i, j) is x's (j, i), a transpose, never the reshape.
  const std::string moved = program("  ROOT out = f32[8,4]{0,1} bitcast(x)\n");
  CHECK(check(moved, reshape).verdict != verify::Verdict::kEquivalent);
  // It is the transpose, and the proof checker agrees.
  const verify::CheckResult as_transpose = check(moved, transpose);
  CHECK(as_transpose.verdict == verify::Verdict::kEquivalent);
  CHECK(test::recheck(transpose, moved, as_transpose).outcome ==
        proofcheck::ProofCheckReport::Outcome::kAccepted);
  // The proof checker does not read it as a reshape either.
  verify::CheckResult forged = same;
  CHECK(test::recheck(reshape, moved, forged).outcome !=
        proofcheck::ProofCheckReport::Outcome::kAccepted);
}

TEST_CASE("a program that sends values out is not proven by its outputs", "[verify]") {
  const std::string io = program(
      "  tok = token[] after-all()\n"
      "  t = (f32[4,8]) tuple(x)\n"
      "  sent = token[] outfeed(t, tok), outfeed_shape=(f32[4,8])\n"
      "  ROOT out = f32[4,8] negate(x)\n");
  const verify::CheckResult r = check(io, io);
  CHECK(r.verdict == verify::Verdict::kInconclusive);
  REQUIRE(r.goals.size() == 1);
  CHECK(r.goals[0].proven);  // the output is proven, the outfeed is not
  CHECK(test::noted(r, "not supported: the reference's sent (`outfeed`) sends values out"));
  // A result that claims equivalence anyway is rejected by the proof checker.
  verify::CheckResult forged = r;
  forged.verdict = verify::Verdict::kEquivalent;
  const proofcheck::ProofCheckReport report = test::recheck(io, io, forged);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kRejected);
  CHECK_THAT(report.why, Catch::Contains("sent sends values out of the program"));
}

}  // namespace scalify
