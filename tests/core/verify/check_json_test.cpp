// A check result's JSON and back: real results survive the round trip whole, and JSON that is not
// a result is refused with the key at fault.
#include "verify/check_json.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

namespace {

/// The tiny Llama pair with `bug` ("" for none), checked.
verify::CheckResult checked_llama(const std::string& bug) {
  modelgen::GenOptions options;
  options.model = *modelgen::llama_preset("tiny");
  options.tp = 2;
  if (!bug.empty()) options.bug = *modelgen::parse_bug(bug);
  auto pair = modelgen::generate_llama(options);
  REQUIRE(pair);
  auto ref = hlo::read_module(pair->ref_hlo, "ref.hlo");
  auto dist = hlo::read_module(pair->dist_hlo, "dist.hlo");
  REQUIRE(ref);
  REQUIRE(dist);
  auto r = verify::check(*ref, *dist, {});
  REQUIRE(r);
  return std::move(*r);
}

}  // namespace

TEST_CASE("check JSON: a real result reads back whole", "[verify][json]") {
  const std::string bug = GENERATE(std::string(), std::string("missing-allreduce@1"));
  CAPTURE(bug);
  const verify::CheckResult r = checked_llama(bug);
  REQUIRE(!r.matches.empty());
  const json::Value written = verify::to_json(r, {.matches = true});
  // Through text, as files keep it.
  auto parsed = json::parse(written.dump(), "result.json");
  REQUIRE(parsed);
  auto back = verify::result_from_json(*parsed, "result.json");
  REQUIRE(back);
  CHECK(verify::to_json(*back, {.matches = true}) == written);
  CHECK(back->matches.size() == r.matches.size());
  CHECK(back->verdict == r.verdict);
  CHECK(back->divergence.has_value() == r.divergence.has_value());
  if (r.divergence) {
    // The missing all-reduce's partial sum begins at a dot before the node it is blamed on.
    CHECK_FALSE(r.divergence->origin_node.empty());
    CHECK(back->divergence->origin_node == r.divergence->origin_node);
  }
  for (size_t i = 0; i < r.goals.size(); ++i) CHECK(back->goals[i].proof == r.goals[i].proof);

  // `check --json` leaves the matches out: read back, there are none.
  CHECK_FALSE(verify::to_json(r).find("matches"));
  auto lean = verify::result_from_json(verify::to_json(r));
  REQUIRE(lean);
  CHECK(lean->matches.empty());
  CHECK(lean->bijection.size() == r.bijection.size());
}

TEST_CASE("check JSON: what is not a result is refused, naming the key", "[verify][json]") {
  const verify::CheckResult r = checked_llama("missing-allreduce@1");
  json::Value v = verify::to_json(r);
  auto refused = [](const json::Value& value) {
    auto back = verify::result_from_json(value, "r.json");
    REQUIRE_FALSE(back);
    return back.error().format();
  };
  CHECK_THAT(refused(json::Value(3)), Catch::Contains("r.json: error: not a check result"));
  CHECK_THAT(refused(json::Object{}), Catch::Contains("mesh: missing"));
  SECTION("a verdict that is none") {
    v["verdict"] = "maybe";
    CHECK_THAT(refused(v), Catch::Contains("verdict: 'maybe' is not a verdict"));
  }
  SECTION("a layout on an axis the mesh lacks") {
    v["bijection"][0]["text"] = "shard(0,pp)";
    CHECK_THAT(refused(v), Catch::Contains("bijection[0].text: 'shard(0,pp)' is not a layout on "
                                           "the mesh tp=2"));
  }
  SECTION("a proof line that is not text") {
    v["goals"][0]["proof"] = json::Array{1};
    CHECK_THAT(refused(v), Catch::Contains("goals[0].proof[0]: expected a string"));
  }
  SECTION("a divergence without its node") {
    REQUIRE(v["divergence"].is_object());
    v["divergence"].as_object().erase("dist_node");
    CHECK_THAT(refused(v), Catch::Contains("divergence.dist_node: missing"));
  }
}
