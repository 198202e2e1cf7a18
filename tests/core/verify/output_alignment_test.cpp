// Output alignment: which distributed output stands for which reference output.
#include "verify/output_alignment.h"

#include <catch2/catch.hpp>

#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

TEST_CASE("outputs: by position when every position fits, aligned by shape otherwise", "[verify]") {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  const ir::Module ref = test::parse_module(R"hlo(HloModule r
ENTRY e {
  w = f32[10] parameter(0)
  y = s64[32] parameter(1)
  x = f32[32,10] parameter(2)
  ROOT t = (f32[10], s64[32], f32[32,10]) tuple(w, y, x)
})hlo");
  const ir::Module same = test::parse_module(R"hlo(HloModule d
ENTRY e {
  w = f32[10] parameter(0)
  y = s64[16] parameter(1)
  x = f32[16,10] parameter(2)
  ROOT t = (f32[10], s64[16], f32[16,10]) tuple(w, y, x)
})hlo");
  CHECK(verify::infer_output_bindings(ref, same, mesh).empty());

  // The labels are not returned: the data-parallel output 1 is the reference's output 2.
  const ir::Module fewer = test::parse_module(R"hlo(HloModule d
ENTRY e {
  w = f32[10] parameter(0)
  x = f32[16,10] parameter(1)
  ROOT t = (f32[10], f32[16,10]) tuple(w, x)
})hlo");
  const auto b = verify::infer_output_bindings(ref, fewer, mesh);
  REQUIRE(b.size() == 3);
  CHECK(b[0].dist_index == 0);
  CHECK_FALSE(b[1].dist_index.has_value());
  CHECK(b[2].dist_index == 1);

  // Nothing fits a position of another element type.
  const ir::Module other = test::parse_module(R"hlo(HloModule d
ENTRY e {
  w = s32[10] parameter(0)
  ROOT t = (s32[10]) tuple(w)
})hlo");
  for (const auto& o : verify::infer_output_bindings(ref, other, mesh)) {
    CHECK_FALSE(o.dist_index.has_value());
  }
}

TEST_CASE("No output with a counterpart: nothing is proven, and the stop reason says so",
          "[check]") {
  const std::string ref =
      "HloModule r\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT y = f32[4] negate(x)\n}\n";
  const std::string dist =
      "HloModule d\nENTRY e {\n  x = f32[4] parameter(0)\n  c = f32[3] constant({1,2,3})\n"
      "  ROOT y = f32[3] negate(c)\n}\n";
  auto r =
      verify::check(test::parse_module(ref, "ref.hlo"), test::parse_module(dist, "dist.hlo"), {});
  REQUIRE(r);
  CHECK(r->verdict != verify::Verdict::kEquivalent);
  CHECK(r->stats.stop_reason == "no output to prove");
  for (const std::string& n : r->notes) CHECK(n.find("before the goals were proven") == n.npos);
}
