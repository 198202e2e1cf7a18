// Convolutions under data and tensor parallelism: the batch split (data parallel), the output
// features split with the kernel (column parallel) and the input features split in both
// operands then all-reduced (row parallel) are proven and their proofs re-checked; a row-parallel
// convolution without its all-reduce, and one over a split spatial dim (no halo exchange), are
// divergences.
#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"

namespace scalify {
namespace {

/// tanh(conv(x, k)) over a 1-D signal: x [batch, length, in], k [3, in, out], window 3.
/// `reduce` all-reduces the convolution first (row parallel).
std::string conv(int ranks, int batch, int length, int in, int out, bool reduce = false) {
  const std::string n = std::to_string(ranks);
  const std::string y = "f32[" + std::to_string(batch) + "," + std::to_string(length - 2) + "," +
                        std::to_string(out) + "]";
  std::string text = "HloModule cv" + (ranks > 1 ? ", num_partitions=" + n : "") + "\n";
  if (reduce) {
    text += test::kSumComputation;
  }
  text += "ENTRY e {\n  x = f32[" + std::to_string(batch) + "," + std::to_string(length) + "," +
          std::to_string(in) + "] parameter(0)\n  k = f32[3," + std::to_string(in) + "," +
          std::to_string(out) + "] parameter(1)\n  c = " + y +
          " convolution(x, k), window={size=3}, dim_labels=b0f_0io->b0f\n";
  if (reduce) text += "  s = " + y + " all-reduce(c), replica_groups={{0,1}}, to_apply=sum\n";
  text += "  ROOT r = " + y + " tanh(" + (reduce ? "s" : "c") + ")\n}\n";
  return text;
}

const std::string kRef = conv(1, 4, 8, 6, 4);

}  // namespace

TEST_CASE("convolution: data, column and row parallel are proven, and re-checked", "[verify]") {
  struct Case {
    const char* what;
    std::string dist;
    const char* layout;
  };
  const Case cases[] = {{"batch split", conv(2, 2, 8, 6, 4), "shard(0,tp)"},
                        {"output features split", conv(2, 4, 8, 6, 2), "shard(2,tp)"},
                        {"input features split, all-reduced", conv(2, 4, 8, 3, 4, true), "rep"}};
  for (const Case& c : cases) {
    INFO(c.what);
    const verify::CheckResult r = test::check_texts(c.dist, kRef);
    CHECK(r.verdict == verify::Verdict::kEquivalent);
    REQUIRE(r.goals.size() == 1);
    REQUIRE(r.goals[0].layout);
    CHECK(r.goals[0].layout->to_string(r.mesh) == c.layout);
    CHECK(test::recheck(kRef, c.dist, r).outcome ==
          proofcheck::ProofCheckReport::Outcome::kAccepted);
  }
}

TEST_CASE("convolution: a missing all-reduce and a split spatial dim are divergences", "[verify]") {
  const verify::CheckResult partial = test::check_texts(conv(2, 4, 8, 3, 4), kRef);
  CHECK(partial.verdict == verify::Verdict::kDivergent);
  REQUIRE(partial.divergence);
  CHECK(partial.divergence->dist_node == "r");
  CHECK_THAT(partial.divergence->reason, Catch::Contains("partial(sum,tp)"));
  // Each rank convolves its half of the signal without its neighbour's edge.
  const std::string halves = conv(2, 4, 5, 6, 4);
  const verify::CheckResult spatial = test::check_texts(halves, conv(1, 4, 10, 6, 4));
  CHECK(spatial.verdict == verify::Verdict::kDivergent);
  REQUIRE(spatial.divergence);
  CHECK(spatial.divergence->dist_node == "c");
}

}  // namespace scalify
