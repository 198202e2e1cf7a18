// A spec written back as JSON reads back as the same spec.
#include "verify/spec_json.h"

#include <catch2/catch.hpp>

using namespace scalify;

TEST_CASE("spec JSON: a spec reads back from what spec_to_json writes", "[verify][spec]") {
  const char* text =
      "{\"mesh\": {\"dp\": 2, \"tp\": 4},\n"
      " \"parameters\": [{\"dist\": \"p7.28\", \"ref\": \"p7.28\", \"layout\": \"shard(1,tp)\"},\n"
      "                {\"dist\": 3, \"ref\": null},\n"
      "                {\"dist\": \"p9\", \"ref\": 2},\n"
      "                {\"dist\": \"p16\", \"layout\": \"shard(0,dp)+partial(sum,tp)\"}],\n"
      " \"outputs\": [{\"ref_index\": 0, \"dist_index\": 1, \"layout\": \"rep\"},\n"
      "             {\"ref_index\": 1, \"dist_index\": null}],\n"
      " \"strict\": true}";
  auto spec = verify::parse_spec(text, "spec.json");
  REQUIRE(spec);
  const std::string written = verify::spec_to_json(*spec).dump();
  auto back = verify::parse_spec(written, "again.json");
  REQUIRE(back);
  CHECK(verify::spec_to_json(*back).dump() == written);
  CHECK(back->mesh->to_string() == "dp=2,tp=4");
  REQUIRE(back->parameters.size() == 4);
  CHECK(back->parameters[1].dist.number == 3);
  CHECK(back->parameters[1].no_ref);
  CHECK(back->parameters[2].ref->number == 2);
  CHECK_FALSE(back->parameters[2].layout);
  CHECK(back->parameters[3].layout->to_string(back->layout_mesh) == "shard(0,dp)+partial(sum,tp)");
  CHECK_FALSE(back->outputs[1].dist_index);
  CHECK(back->strict == true);

  // Layouts read against the caller's mesh: that mesh is written, so the text stands alone.
  const verify::Mesh tp2 = *verify::Mesh::parse("tp=2");
  const std::string one = "{\"parameters\": [{\"dist\": \"w\", \"layout\": \"shard(1,tp)\"}]}";
  auto no_mesh = verify::parse_spec(one, "s.json", &tp2);
  REQUIRE(no_mesh);
  CHECK(verify::spec_to_json(*no_mesh).dump() ==
        "{\"mesh\":{\"tp\":2},\"parameters\":[{\"dist\":\"w\",\"layout\":\"shard(1,tp)\"}]}");
  CHECK(verify::parse_spec(verify::spec_to_json(*no_mesh).dump(), "t.json"));
}
