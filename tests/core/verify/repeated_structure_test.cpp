// Cutting by repeated structure: a generated Llama stack with its metadata stripped (as a
// torch-xla dump names no layers) is cut where its layers repeat, proven part by part, and a
// planted bug is reported as the whole program's check reports it.
#include "verify/repeated_structure.h"

#include <catch2/catch.hpp>
#include <regex>
#include <string>

#include "modelgen/llama_generator.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;
using verify::Verdict;

namespace {

/// The text without any `metadata={…}` (no layer scopes, no source lines).
std::string stripped(const std::string& hlo) {
  static const std::regex metadata(R"(, metadata=\{[^}]*\})");
  return std::regex_replace(hlo, metadata, "");
}

struct Pair {
  ir::Module ref, dist;
};

Pair tiny_pair(int layers, const std::string& bug = "") {
  modelgen::GenOptions o;
  o.model = *modelgen::llama_preset("tiny");
  o.model.layers = layers;
  o.tp = 2;
  if (!bug.empty()) o.bug = *modelgen::parse_bug(bug);
  auto pair = modelgen::generate_llama(o);
  REQUIRE(pair);
  return {test::parse_module(stripped(pair->ref_hlo), "ref.hlo"),
          test::parse_module(stripped(pair->dist_hlo), "dist.hlo")};
}

}  // namespace

TEST_CASE("repeated structure: a layer stack without scopes is cut into equal blocks",
          "[verify][partition]") {
  const Pair p = tiny_pair(6);
  for (const ir::Module* m : {&p.ref, &p.dist}) {
    const auto parts = verify::partition_by_repetition(*m);
    REQUIRE(parts.size() >= 5);  // the prologue may hold the first layer's head
    size_t blocks = 0, block_size = 0;
    for (const verify::Part& part : parts) {
      CHECK(part.by_structure);
      if (part.key == verify::Part::kPrologue || part.key == verify::Part::kEpilogue) continue;
      CHECK(part.key == static_cast<int64_t>(blocks));
      CHECK(part.label == "block " + std::to_string(blocks));
      if (blocks++ == 0) block_size = part.members.size();
      CHECK(part.members.size() == block_size);
    }
    CHECK(blocks >= 5);
    // partition_layers falls back to it when nothing names a layer.
    CHECK(verify::partition_layers(*m).size() == parts.size());
  }
}

TEST_CASE("repeated structure: nothing repeats in a one-layer program", "[verify][partition]") {
  const ir::Module m = test::parse_module(R"(HloModule m
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] exponential(a)
  c = f32[4] negate(b)
  d = f32[4] add(b, c)
  e = f32[4] multiply(d, a)
  f = f32[4] tanh(e)
  g = f32[4] sqrt(f)
  ROOT h = f32[4] subtract(g, a)
}
)");
  CHECK(verify::partition_by_repetition(m).empty());
}

TEST_CASE(
    "repeated structure: proven part by part, a bug reported as the whole program's check "
    "reports it",
    "[verify][partition][layered]") {
  const Pair ok = tiny_pair(6);
  auto r = verify::check(ok.ref, ok.dist, {});
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  CHECK(r->stats.parts >= 5);
  CHECK(r->stats.memo_hits >= 3);  // the repeated blocks are checked once
  bool said = false;
  for (const std::string& n : r->notes)
    said = said || n.find("cut where the instructions repeat") != std::string::npos;
  CHECK(said);

  for (const std::string bug : {"missing-allreduce@3", "allgather-wrong-dim@1"}) {
    INFO(bug);
    const Pair bad = tiny_pair(6, bug);
    verify::CheckRequest whole;
    whole.by_layers = false;
    const auto layered = verify::check(bad.ref, bad.dist, {});
    const auto flat = verify::check(bad.ref, bad.dist, whole);
    REQUIRE(layered);
    REQUIRE(flat);
    CHECK(layered->verdict == Verdict::kDivergent);
    CHECK(layered->verdict == flat->verdict);
    REQUIRE(layered->divergence);
    REQUIRE(flat->divergence);
    CHECK(layered->divergence->dist_node == flat->divergence->dist_node);
    CHECK(layered->divergence->reason == flat->divergence->reason);
  }
}
