// The term bridge: how HLO instructions become e-graph terms.
#include "verify/term_bridge.h"

#include <catch2/catch.hpp>

#include "test_support.h"

using namespace scalify;

TEST_CASE("splats of one number in two element types are two values, each typed as written",
          "[verify][bridge]") {
  // f32[4] and s64[4] splats of 2 were once one e-node (the number 2 has no element type), so
  // one of them carried the other's type, and a rule equating it with a value of its own type
  // was reported as an unsound union (BERT's dropout and position arithmetic, once mutated).
  const ir::Module m = test::parse_module(R"(HloModule splats
ENTRY e {
  two.f = f32[] constant(2)
  splat.f = f32[4]{0} broadcast(two.f), dimensions={}
  two.i = s64[] constant(2)
  splat.i = s64[4]{0} broadcast(two.i), dimensions={}
  ROOT out = (f32[4]{0}, s64[4]{0}) tuple(splat.f, splat.i)
})");
  egraph::EGraph g;
  egraph::Vocabulary vocab;
  verify::TypeTable types;
  verify::TermBridge bridge(g, vocab, types);
  const ir::Computation& e = m.entry();
  auto encode = [&](const char* name, std::vector<egraph::ClassId> operands) {
    const ir::Instruction& x = e[*e.find(name)];
    auto r = bridge.encode(m, x, operands, x.type, "ref");
    REQUIRE(r);
    return g.find(*r.id);
  };
  const egraph::ClassId two_f = encode("two.f", {}), two_i = encode("two.i", {});
  CHECK(two_f == two_i);  // one number
  CHECK(g.type_of(two_f) == verify::TypeTable::kNumber);
  const egraph::ClassId splat_f = encode("splat.f", {two_f}), splat_i = encode("splat.i", {two_i});
  CHECK(splat_f != splat_i);
  CHECK(types.type(g.type_of(splat_f))->to_string(false) == "f32[4]");
  CHECK(types.type(g.type_of(splat_i))->to_string(false) == "s64[4]");
}
