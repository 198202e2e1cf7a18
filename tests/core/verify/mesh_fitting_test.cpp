// Meshes as the program's shardings lay them out. A program partitioned over the device array
// 3, 2, 1, 0 (its shardings say `devices=[4,1]3,2,1,0`) keeps block 0 of a `shard(0,tp)` on
// device 3: the checker reads the order from the program, proves what the program computes
// under it, blames a gather in another order, and never guesses a layout from the shapes against
// what an annotation says. A JAX program over a 2 x 4 mesh says `num_partitions=8` and tiles
// `devices=[2,4]<=[8]`: the checker reads two axes.
#include "verify/mesh_fitting.h"

#include <catch2/catch.hpp>

#include "core/verify/check_texts.h"
#include "verify/check_json.h"
#include "verify/spec.h"
#include "verify/spec_json.h"

namespace scalify {
namespace {

using verify::Mesh;
using verify::Verdict;

const std::string& kRef = test::kExpRef;

/// exp of a parameter annotated as split over tp=4 in the order `devices`, gathered over
/// `groups`.
std::string gathered(const std::string& devices, const std::string& groups) {
  return R"(HloModule d, num_partitions=4
ENTRY e {
  p0 = f32[2,4] parameter(0), sharding={devices=[4,1])" +
         devices + R"(}
  e = f32[2,4] exponential(p0)
  ROOT ag = f32[8,4] all-gather(e), dimensions={0}, replica_groups=)" +
         groups + R"(
}
)";
}

}  // namespace

TEST_CASE("mesh device order: positions, coordinates, groups and text", "[verify]") {
  const auto m = Mesh::parse("tp=4 devices=[3,2,1,0]");
  REQUIRE(m);
  CHECK(m->to_string() == "tp=4 devices=[3,2,1,0]");
  CHECK(m->device_at(0) == 3);
  CHECK(m->position_of(3) == 0);
  CHECK(m->coordinate(3, 0) == 0);
  CHECK(m->coordinate(0, 0) == 3);
  const ir::ReplicaGroups reversed{{{3, 2, 1, 0}}, std::nullopt};
  const ir::ReplicaGroups numbered{{{0, 1, 2, 3}}, std::nullopt};
  CHECK(m->axes_of(reversed) == std::vector<size_t>{0});
  CHECK_FALSE(m->axes_of(numbered));  // a gather would permute the blocks
  CHECK(m->axes_of(numbered, false) == std::vector<size_t>{0});  // a sum does not care
  // The iota order is no order at all; what is not a permutation is refused.
  CHECK(Mesh::parse("tp=4 devices=[0,1,2,3]")->to_string() == "tp=4");
  CHECK(*Mesh::parse("tp=4 devices=[0,1,2,3]") == *Mesh::parse("tp=4"));
  CHECK_FALSE(Mesh::parse("tp=4 devices=[0,1,1,3]"));
  CHECK_FALSE(Mesh::parse("tp=4 devices=[0,1,2]"));
  CHECK_FALSE(Mesh::parse("tp=4 devices=[a,b]"));
  CHECK_FALSE(Mesh::parse("tp=4 order=[3,2,1,0]"));
  CHECK_FALSE(Mesh::parse("tp=4 "));
  CHECK_FALSE(Mesh::parse("tp=4 devices=[]"));
  CHECK_FALSE(Mesh::parse("tp=4 devices=[3,2,1,0"));
  // Groups naming devices the mesh does not have are no axes of it.
  CHECK_FALSE(m->axes_of(ir::ReplicaGroups{{{3, 2}, {99, 0}}, std::nullopt}));
  // Two axes: positions row-major, the device at each given.
  const auto two = Mesh::parse("dp=2,tp=2 devices=[1,0,3,2]");
  REQUIRE(two);
  CHECK(two->coordinate(1, 0) == 0);
  CHECK(two->coordinate(1, 1) == 0);
  CHECK(two->coordinate(2, 1) == 1);
  CHECK(two->axes_of(ir::ReplicaGroups{{{1, 0}, {3, 2}}, std::nullopt}) == std::vector<size_t>{1});
}

TEST_CASE("mesh device order: read from the program's shardings", "[verify]") {
  const ir::Module reversed = test::parse_module(gathered("3,2,1,0", "{{3,2,1,0}}"));
  std::string why;
  CHECK(verify::fit_mesh(*Mesh::parse("tp=4"), reversed, &why).to_string() ==
        "tp=4 devices=[3,2,1,0]");
  CHECK_THAT(why, Catch::Contains("p0's sharding={devices=[4,1]3,2,1,0} lays out the devices"));
  // A program written for the iota order keeps it.
  const ir::Module iota = test::parse_module(gathered("0,1,2,3", "{{0,1,2,3}}"));
  why.clear();
  CHECK(verify::fit_mesh(*Mesh::parse("tp=4"), iota, &why).to_string() == "tp=4");
  CHECK(why.empty());
}

TEST_CASE("mesh device order: a program over reversed devices is proven", "[verify]") {
  const std::string dist = gathered("3,2,1,0", "{{3,2,1,0}}");
  const verify::CheckResult r = test::check_texts(dist, kRef);
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(r.mesh.to_string() == "tp=4 devices=[3,2,1,0]");
  CHECK(test::noted(r, "as p0's sharding={devices=[4,1]3,2,1,0} lays out the devices"));
  test::check_proof_accepted(kRef, dist, r);
  // The order travels with the result (a saved session, an exported proof).
  const auto back = verify::result_from_json(verify::to_json(r));
  REQUIRE(back);
  CHECK(back->mesh == r.mesh);
}

TEST_CASE("mesh device order: gathering in another order than the shards' is a divergence",
          "[verify]") {
  // Device 3 holds block 0, but the gather concatenates device 0's block first: the rows come
  // out reversed. (Before the device order was modelled, this was called equivalent.)
  const verify::CheckResult r = test::check_texts(gathered("3,2,1,0", "{{0,1,2,3}}"), kRef);
  CHECK(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "ag");
  CHECK_THAT(r.divergence->reason, Catch::Contains("out of the order of their positions"));
}

TEST_CASE("mesh device order: a given mesh the annotation contradicts binds nothing by shape",
          "[verify][soundness]") {
  // With --mesh tp=4 (iota) the annotation cannot be read; guessing shard(0,tp) from the
  // shapes would put block 0 on device 0, against the program's own words.
  verify::CheckRequest request;
  request.mesh = *Mesh::parse("tp=4");
  for (const char* groups : {"{{0,1,2,3}}", "{{3,2,1,0}}"}) {
    INFO(groups);
    auto r = verify::check(test::parse_module(kRef),
                           test::parse_module(gathered("3,2,1,0", groups)), request);
    REQUIRE(r);
    CHECK(r->verdict != Verdict::kEquivalent);
    CHECK(test::noted(*r, "distributed parameter p0 has no counterpart: its sharding="));
    CHECK(test::noted(*r, "it reads on the mesh \"tp=4 devices=[3,2,1,0]\""));
  }
  // Given with the order, it is proven.
  request.mesh = *Mesh::parse("tp=4 devices=[3,2,1,0]");
  auto r = verify::check(test::parse_module(kRef),
                         test::parse_module(gathered("3,2,1,0", "{{3,2,1,0}}")), request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
}

TEST_CASE("mesh device order: two axes, each pair of devices swapped", "[verify]") {
  // dp=2 x tp=2 over the device array [[1,0],[3,2]]: x's columns split over tp, w's rows too
  // (its tiles listed tp-major: 1,3 hold rows 0-3 and 0,2 rows 4-7);
  // the partial products summed over tp (groups {1,0} and {3,2}), the batch split over dp.
  const std::string& ref = test::kDotTanhRef;
  const std::string dist = "HloModule d, num_partitions=4\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[2,4] parameter(0), sharding={devices=[2,2]1,0,3,2}
  w = f32[4,6] parameter(1), sharding={devices=[2,1,2]1,3,0,2 last_tile_dim_replicate}
  d = f32[2,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[2,6] all-reduce(d), replica_groups={{1,0},{3,2}}, to_apply=sum
  ROOT t = f32[2,6] tanh(s)
}
)";
  verify::CheckRequest request;
  request.mesh = *Mesh::parse("dp=2,tp=2 devices=[1,0,3,2]");
  auto r = verify::check(test::parse_module(ref), test::parse_module(dist), request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  test::check_proof_accepted(ref, dist, *r);
}

TEST_CASE("mesh device order: a spec gives it, and writes it back", "[verify][spec]") {
  auto spec =
      verify::parse_spec(R"({"mesh": {"tp": 4}, "mesh_devices": [3, 2, 1, 0]})", "spec.json");
  REQUIRE(spec);
  REQUIRE(spec->mesh);
  CHECK(spec->mesh->to_string() == "tp=4 devices=[3,2,1,0]");
  const json::Value back = verify::spec_to_json(*spec);
  REQUIRE(back.find("mesh_devices"));
  CHECK(back.find("mesh_devices")->size() == 4);
  auto bad = verify::parse_spec(R"({"mesh": {"tp": 4}, "mesh_devices": [3, 2, 1]})", "spec.json");
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().format(), Catch::Contains("spec.json:1:"));
  CHECK_THAT(bad.error().format(), Catch::Contains("lists each of the mesh's 4 devices once"));
  CHECK_FALSE(verify::parse_spec(R"({"mesh_devices": [1, 0]})", "spec.json"));
}

TEST_CASE("mesh fitting: the axes of a JAX 2 x 4 mesh from its tilings", "[verify]") {
  // Batch over dp (2), the contraction over tp (4): x tiled [2,4] in the iota order, w's rows
  // over tp and replicated over dp (its grid [4,1,2] lists tp-major devices: <=[2,4]T(1,0)).
  const std::string& ref = test::kDotTanhRef;
  const std::string dist = "HloModule d, num_partitions=8\n" + test::kSumComputation + R"(ENTRY e {
  x = f32[2,2] parameter(0), sharding={devices=[2,4]<=[8]}
  w = f32[2,6] parameter(1), sharding={devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}
  d = f32[2,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[2,6] all-reduce(d), replica_groups={{0,1,2,3},{4,5,6,7}}, to_apply=sum
  g = f32[4,6] all-gather(s), dimensions={0}, replica_groups={{0,4},{1,5},{2,6},{3,7}}
  ROOT t = f32[4,6] tanh(g)
}
)";
  std::string why;
  CHECK(verify::fit_mesh(*Mesh::parse("tp=8"), test::parse_module(dist), &why).to_string() ==
        "dp=2,tp=4");
  CHECK_THAT(why, Catch::Contains("x's sharding={devices=[2,4]<=[8]} lays out the devices"));
  const verify::CheckResult r = test::check_texts(dist, ref);
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(r.mesh.to_string() == "dp=2,tp=4");
  test::check_proof_accepted(ref, dist, r);
  // Summing over dp instead of tp leaves the contraction unfinished: found, not proven.
  std::string wrong = dist;
  wrong.replace(wrong.find("{{0,1,2,3},{4,5,6,7}}"), 21, "{{0,4},{1,5},{2,6},{3,7}}");
  const verify::CheckResult w = test::check_texts(wrong, ref);
  CHECK(w.verdict == Verdict::kDivergent);
}

TEST_CASE("mesh fitting: a program that says nothing of its devices keeps the inferred mesh",
          "[verify]") {
  const ir::Module plain = test::parse_module(R"(HloModule d, num_partitions=8
ENTRY e {
  x = f32[2,2] parameter(0)
  ROOT t = f32[2,2] tanh(x)
}
)");
  CHECK(verify::fit_mesh(*Mesh::parse("tp=8"), plain) == *Mesh::parse("tp=8"));
  // A given mesh of two axes is never regrouped, only ordered.
  CHECK(verify::fit_mesh(*Mesh::parse("dp=2,tp=4"), plain) == *Mesh::parse("dp=2,tp=4"));
}

}  // namespace scalify
