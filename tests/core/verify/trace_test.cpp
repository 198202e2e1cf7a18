// Tracing a wrong value back to where the two programs first part (checker_trace.cpp): the
// node where a bug shows is often not where it was made.
#include <catch2/catch.hpp>
#include <string>

#include "check_texts.h"
#include "support/read_file.h"
#include "test_support.h"

using namespace scalify;
using verify::Verdict;

namespace {

std::string corpus_text(const std::string& name) {
  auto text = read_whole_file(test::corpus_dir() + "/neuron_torchxla/" + name);
  REQUIRE(text);
  return *text;
}

/// `text` with every `from` replaced by `to` (at least once).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  for (; at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// x * 1 + 0, as a framework writes a scale and a shift.
constexpr const char* kScaleShift = R"hlo(HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  one = f32[] constant(1)
  zero = f32[] constant(0)
  ones = f32[8] broadcast(one), dimensions={}
  zeros = f32[8] broadcast(zero), dimensions={}
  scaled = f32[8] multiply(x, ones)
  ROOT shifted = f32[8] add(scaled, zeros)
})hlo";

// p, s = 1 / p, y = x * s.
constexpr const char* kInverseScale = R"hlo(HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  p = f32[] parameter(1)
  one = f32[] constant(1)
  s = f32[] divide(one, p)
  b = f32[8] broadcast(s), dimensions={}
  ROOT y = f32[8] multiply(x, b)
})hlo";

}  // namespace

TEST_CASE("an op dropped before a reshape is blamed at its user, with the missing op named",
          "[verify][trace]") {
  // GPT-2 tp2: the residual add after the attention's all-reduce dropped; its users read the
  // all-reduce. The layer norm two views later is where the value shows wrong, but the reshape
  // that read the dropped add is where the programs part.
  const std::string ref = corpus_text("gpt2_decode_tp1.hlo");
  const std::string dist =
      replaced(replaced(corpus_text("gpt2_decode_tp2.hlo"), "reshape(f32[768,1,4]{2,1,0} %add.164)",
                        "reshape(f32[768,1,4]{2,1,0} %all-reduce.158)"),
               "f32[768,1,4]{2,1,0} %add.164)", "f32[768,1,4]{2,1,0} %all-reduce.158)");
  const auto r = test::check_texts(dist, ref);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "reshape.165");
  CHECK(r.divergence->ref_node == "reshape.159");
  CHECK(r.divergence->by_value);
  CHECK_THAT(r.divergence->reason, Catch::Contains("'batch-norm-training.171'"));
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("the reference's `add` 'add.158' is missing between them"));
}

TEST_CASE("a constant changed to another the program uses is blamed at the constant",
          "[verify][trace]") {
  // The shift's zero became a one: broadcast(one) is a value the reference has (the scale), so
  // only the add shows a value the reference never computes; walking back alongside the
  // reference's add finds the constant.
  const std::string dist =
      replaced(kScaleShift, "zero = f32[] constant(0)", "zero = f32[] constant(1)");
  const auto r = test::check_texts(dist, kScaleShift);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "zero");
  CHECK(r.divergence->ref_node == "zero");
  CHECK_THAT(r.divergence->reason, Catch::Contains("'shifted'"));
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("this constant differs from the reference's 'zero'"));
}

TEST_CASE("swapped operands of a scalar's arithmetic are blamed where they are swapped",
          "[verify][trace]") {
  // p / 1 is p, a reference value, and so is its broadcast: the multiply shows the bug, the
  // divide made it.
  const std::string dist = replaced(kInverseScale, "divide(one, p)", "divide(p, one)");
  const auto r = test::check_texts(dist, kInverseScale);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "s");
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("operands 0 and 1 are swapped: the reference's 's' reads 'one' as "
                             "operand 0 and 'p' as operand 1"));
}

TEST_CASE("a node the reference has in the same place is not traced past", "[verify][trace]") {
  // The divide's operands swapped as the only change, its value new: it is blamed itself.
  const std::string ref = R"hlo(HloModule m
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  d = f32[8] divide(x, y)
  ROOT e = f32[8] exponential(d)
})hlo";
  const auto r = test::check_texts(replaced(ref, "divide(x, y)", "divide(y, x)"), ref);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "d");
  CHECK_THAT(r.divergence->reason, Catch::Contains("operands 0 and 1 are swapped"));
}
