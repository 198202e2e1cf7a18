// Checking layer by layer: parts, memo hits, chained layouts, planted bugs, cancellation.
#include "verify/layered_check.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "check_texts.h"
#include "support/layered_example.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;
using verify::Verdict;

namespace {

const verify::Mesh kTp2 = *verify::Mesh::parse("tp=2");

}  // namespace

TEST_CASE("layered check: equivalent, identical layers checked once", "[verify][layered]") {
  const ir::Module ref = test::parse_module(test::layered_hlo({6}, 1));
  const ir::Module dist = test::parse_module(test::layered_hlo({6}, 2));
  verify::CheckProgress progress;
  verify::LayeredRequest request;
  request.threads = 2;
  request.progress = &progress;
  const auto r = verify::check_by_layers(ref, dist, kTp2, request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  CHECK(r->stats.parts == 6);
  CHECK(r->stats.memo_hits >= 4);  // layers 0..4 are one program; layer 5 builds the ROOT
  CHECK(progress.done == 6);
  CHECK(progress.total == 6);
  REQUIRE(r->goals.size() == 1);
  CHECK(r->goals[0].proven);
  CHECK(r->goals[0].ref == "r#0");
  // The bijection of the whole program, gathered from the parts.
  REQUIRE(r->bijection.size() == 13);
  CHECK(r->bijection[1].dist == "pa0");
  CHECK(r->bijection[1].layout.to_string(kTp2) == "shard(1,tp)");
  CHECK(r->bijection[2].layout.to_string(kTp2) == "shard(0,tp)");
}

TEST_CASE(
    "layered check: without evidence, the same verdict, goals and bindings, and no "
    "derivation",
    "[verify][layered]") {
  for (int bug_at : {-1, 3}) {
    test::LayeredExample e{6};
    e.drop_all_reduce_at = bug_at;
    const ir::Module ref = test::parse_module(test::layered_hlo({6}, 1));
    const ir::Module dist = test::parse_module(test::layered_hlo(e, 2));
    verify::LayeredRequest with, without;
    with.threads = without.threads = 2;
    without.evidence = false;
    const auto full = verify::check_by_layers(ref, dist, kTp2, with);
    const auto bare = verify::check_by_layers(ref, dist, kTp2, without);
    REQUIRE(full);
    REQUIRE(bare);
    INFO("bug at layer " << bug_at);
    CHECK(bare->verdict == full->verdict);
    CHECK(bare->bijection.size() == full->bijection.size());
    CHECK(bare->assumptions.size() == full->assumptions.size());
    CHECK(bare->notes == full->notes);
    CHECK(bare->divergence.has_value() == full->divergence.has_value());
    if (full->divergence) CHECK(bare->divergence->reason == full->divergence->reason);
    REQUIRE(bare->goals.size() == full->goals.size());
    for (size_t i = 0; i < full->goals.size(); ++i) {
      CHECK(bare->goals[i].proven == full->goals[i].proven);
      CHECK(bare->goals[i].layout == full->goals[i].layout);
      CHECK(bare->goals[i].proof.empty());
    }
    CHECK_FALSE(full->derivation.empty());
    CHECK_FALSE(full->matches.empty());
    CHECK(bare->derivation.empty());
    CHECK(bare->matches.empty());
  }
}

TEST_CASE("layered check: a parameter no layer reads is bound as a whole check binds it",
          "[verify][layered]") {
  // The same unread parameter added to both programs' ENTRY, after their own.
  auto with_unread = [](std::string text) {
    const size_t entry = text.find("\nENTRY ");
    REQUIRE(entry != std::string::npos);
    size_t params = 0;
    for (size_t at = text.find(" parameter(", entry); at != std::string::npos;
         at = text.find(" parameter(", at + 1)) {
      ++params;
    }
    const size_t body = text.find("{\n", entry) + 2;
    text.insert(body, "  unread.1 = f32[3] parameter(" + std::to_string(params) + ")\n");
    return text;
  };
  const ir::Module ref = test::parse_module(with_unread(test::layered_hlo({4}, 1)));
  const ir::Module dist = test::parse_module(with_unread(test::layered_hlo({4}, 2)));
  verify::CheckRequest request;
  request.mesh = kTp2;
  verify::CheckRequest whole = request;
  whole.by_layers = false;
  const auto layered = verify::check(ref, dist, request);
  const auto flat = verify::check(ref, dist, whole);
  REQUIRE(layered);
  REQUIRE(flat);
  CHECK(layered->stats.parts == 4);
  CHECK(layered->verdict == Verdict::kEquivalent);
  CHECK(layered->unmatched_dist_parameters.empty());
  REQUIRE(layered->bijection.size() == flat->bijection.size());
  for (size_t i = 0; i < flat->bijection.size(); ++i) {
    CHECK(layered->bijection[i].dist == flat->bijection[i].dist);
    CHECK(layered->bijection[i].ref == flat->bijection[i].ref);
    CHECK(layered->bijection[i].layout == flat->bijection[i].layout);
  }
  for (const std::string& note : layered->notes)
    CHECK_THAT(note, !Catch::Contains("no counterpart"));
}

TEST_CASE("layered check: a planted bug is found in its layer, by name", "[verify][layered]") {
  for (int at : {0, 3, 5}) {
    test::LayeredExample e{6};
    e.drop_all_reduce_at = at;
    const ir::Module ref = test::parse_module(test::layered_hlo({6}, 1));
    const ir::Module dist = test::parse_module(test::layered_hlo(e, 2));
    auto r = verify::check(ref, dist, {});
    REQUIRE(r);
    INFO("bug at layer " << at);
    CHECK(r->verdict == Verdict::kDivergent);
    REQUIRE(r->divergence);
    CHECK(r->divergence->dist_node == "x" + std::to_string(at) + "_out");
    CHECK_THAT(r->divergence->reason, Catch::Contains("partial(sum,tp)"));
    CHECK(r->divergence->op_name == "model.layers." + std::to_string(at) + ".mlp/aten__mm");
  }
}

TEST_CASE("layered check: the memo carries over between checks and renames its results",
          "[verify][layered]") {
  verify::PartMemo memo;
  verify::CheckRequest request;
  request.memo = &memo;
  const ir::Module ref = test::parse_module(test::layered_hlo({4}, 1));
  auto first = verify::check(ref, test::parse_module(test::layered_hlo({4}, 2)), request);
  REQUIRE(first);
  CHECK(first->verdict == Verdict::kEquivalent);
  // The same model with other names: every part from the memo.
  test::LayeredExample renamed{4};
  renamed.rename = true;
  auto second = verify::check(ref, test::parse_module(test::layered_hlo(renamed, 2)), request);
  REQUIRE(second);
  CHECK(second->verdict == Verdict::kEquivalent);
  CHECK(second->stats.memo_hits == 4);
  CHECK(second->stats.enodes == 0);  // nothing was built
}

TEST_CASE("layered check: a whole-program check agrees, and a cancelled one gives up",
          "[verify][layered]") {
  const ir::Module ref = test::parse_module(test::layered_hlo({3}, 1));
  const ir::Module dist = test::parse_module(test::layered_hlo({3}, 2));
  verify::CheckRequest whole;
  whole.by_layers = false;
  auto r = verify::check(ref, dist, whole);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  CHECK(r->stats.parts == 1);

  std::atomic<bool> cancel{true};
  verify::LayeredRequest request;
  request.cancel = &cancel;
  CHECK_FALSE(verify::check_by_layers(ref, dist, kTp2, request).has_value());

  // check() stops there too: no fall-back to the (uncancellable) whole program.
  verify::CheckRequest cancelled;
  cancelled.cancel = &cancel;
  auto c = verify::check(ref, dist, cancelled);
  REQUIRE(c);
  CHECK(c->verdict == Verdict::kInconclusive);
  CHECK(c->stats.stop_reason == "cancelled");
  CHECK(c->divergence == std::nullopt);
}

TEST_CASE("matches: every distributed node related to a reference node, once",
          "[verify][layered]") {
  const ir::Module ref = test::parse_module(test::layered_hlo({3}, 1));
  const ir::Module dist = test::parse_module(test::layered_hlo({3}, 2));
  for (bool by_layers : {true, false}) {
    verify::CheckRequest request;
    request.by_layers = by_layers;
    auto r = verify::check(ref, dist, request);
    REQUIRE(r);
    INFO("by layers: " << by_layers);
    std::map<std::string, std::string> matched;
    for (const auto& m : r->matches) {
      CHECK(matched.emplace(m.dist, m.ref + " " + m.layout.to_string(kTp2)).second);
    }
    CHECK(matched["pa1"] == "pa1 shard(1,tp)");
    CHECK(matched["x1_up"] == "x1_up shard(1,tp)");
    CHECK(matched["x1_down"] == "x1_down partial(sum,tp)");
    CHECK(matched["x1_sum"] == "x1_down rep");  // the all-reduce holds the reference's sum
    CHECK(matched["x2_out"] == "x2_out rep");
  }
}

TEST_CASE("layered check: parts publish their matches as they finish (results in stages)",
          "[verify][layered]") {
  const ir::Module ref = test::parse_module(test::layered_hlo({4}, 1));
  const ir::Module dist = test::parse_module(test::layered_hlo({4}, 2));
  verify::CheckProgress progress;
  verify::CheckRequest request;
  request.progress = &progress;
  auto r = verify::check(ref, dist, request);
  REQUIRE(r);
  REQUIRE(r->verdict == Verdict::kEquivalent);
  size_t seen = 0;
  const auto staged = progress.staged_since(seen);
  REQUIRE(staged);
  CHECK(seen == staged->matches.size());
  CHECK_FALSE(progress.staged_since(seen));  // nothing new since
  // In the whole program's names, and all of them proven in the end.
  std::set<std::string> final_matches;
  for (const verify::NodeMatch& m : r->matches) final_matches.insert(m.dist);
  for (const verify::NodeMatch& m : staged->matches) {
    INFO(m.dist);
    CHECK(dist.entry().find(m.dist).has_value());
  }
  CHECK(staged->matches.size() >= final_matches.size());
}

namespace {

/// A row-parallel matmul hands its partial sums through `layers` layers that only double them
/// (linear: a partial sum stays one), then all-reduces and takes tanh. Each layer, checked on its
/// own, binds its input as rep first; the layer before it proved a partial sum.
std::string doubling_layers(int layers, bool dist) {
  auto md = [](const std::string& scope) {
    return ", metadata={op_type=\"aten__mul\" op_name=\"" + scope + "/aten__mul\"}";
  };
  std::string s = "HloModule m\n";
  if (dist) s += test::kSumComputation;
  s += "ENTRY e {\n";
  s += dist ? "  x = f32[4,4] parameter(0)\n  w = f32[4,6] parameter(1)\n"
            : "  x = f32[4,8] parameter(0)\n  w = f32[8,6] parameter(1)\n";
  s += "  h0 = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}" +
       md("model.embed") + "\n";
  for (int k = 0; k < layers; ++k) {
    const std::string n = std::to_string(k), scope = "model.layers." + n;
    s += "  two" + n + " = f32[] constant(2)" + md(scope) + "\n";
    s += "  b" + n + " = f32[4,6] broadcast(two" + n + "), dimensions={}" + md(scope) + "\n";
    s += "  h" + std::to_string(k + 1) + " = f32[4,6] multiply(h" + n + ", b" + n + ")" +
         md(scope) + "\n";
  }
  const std::string last = "h" + std::to_string(layers);
  s += dist ? "  s = f32[4,6] all-reduce(" + last + "), replica_groups={{0,1}}, to_apply=sum" +
                  md("model.norm") + "\n  ROOT t = f32[4,6] tanh(s)" + md("model.norm") + "\n"
            : "  ROOT t = f32[4,6] tanh(" + last + ")" + md("model.norm") + "\n";
  return s + "}\n";
}

}  // namespace

TEST_CASE("layered check: repeats bound otherwise than the parts before them are checked again",
          "[verify][layered]") {
  const ir::Module ref = test::parse_module(doubling_layers(5, false));
  const ir::Module dist = test::parse_module(doubling_layers(5, true));
  verify::LayeredRequest request;
  request.threads = 2;
  const auto r = verify::check_by_layers(ref, dist, kTp2, request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  // Five parts (the matmul joins layer 0, the all-reduce and tanh layer 4); layers 2 and 3
  // repeat layer 1, so their modules were let go and are built again to be checked again.
  CHECK(r->stats.parts == 5);
  CHECK(r->stats.memo_hits == 2);
  CHECK(test::noted(*r,
                    "5 parts (layer 0 to layer 4): 3 distinct, 2 from the memo, 3 checked "
                    "again under the bindings of the parts before them"));
  for (const auto& f : r->derivation) {
    if (f.dist == "h3") CHECK(f.layout.to_string(kTp2) == "partial(sum,tp)");
  }
}
