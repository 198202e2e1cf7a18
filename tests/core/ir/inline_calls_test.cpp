// Inlining calls and fusions: the ENTRY runs the bodies' ops under their call's name, nested
// calls included, the users read the body's root; and the checker proves (or finds the bug in)
// a distributed program whose ops sit in fusions and calls.
#include "ir/inline_calls.h"

#include <catch2/catch.hpp>

#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

namespace {

constexpr const char* kRef = R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,6] tanh(d)
}
)";

/// The column-parallel half of kRef, its dot in a fusion that calls the tanh.
std::string dist(const char* activation) {
  return std::string(R"(HloModule d, num_partitions=2

act {
  s = f32[4,3] parameter(0)
  ROOT n = f32[4,3] )") +
         activation + R"((s)
}

fused {
  a = f32[4,8] parameter(0)
  b = f32[8,3] parameter(1)
  dd = f32[4,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT tt = f32[4,3] call(dd), to_apply=act
}

ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,3] parameter(1)
  f = f32[4,3] fusion(x, w), kind=kLoop, calls=fused
  ROOT g = f32[4,6] all-gather(f), dimensions={1}, replica_groups={{0,1}}
}
)";
}

}  // namespace

TEST_CASE("inline_calls: fusions and nested calls become the ENTRY's own ops", "[ir]") {
  const ir::Module m = test::parse_module(dist("tanh"));
  const auto flat = ir::inline_calls(m);
  REQUIRE(flat);
  const ir::Computation& e = flat->entry();
  std::vector<std::string> names;
  for (const ir::Instruction& x : e.instructions) names.push_back(x.name);
  CHECK(names == std::vector<std::string>{"x", "w", "f.dd", "f.tt.n", "g"});
  const ir::Instruction& tanh = e[*e.find("f.tt.n")];
  CHECK(tanh.opcode == ir::Opcode::kTanh);
  CHECK(e[tanh.operands[0]].name == "f.dd");
  CHECK(e[e[*e.find("f.dd")].operands[0]].name == "x");  // the body's parameter is the operand
  CHECK(e[e[e.root].operands[0]].name == "f.tt.n");
  CHECK(tanh.pos.line == 5);  // still where the text says it is
  // Nothing to inline: nullopt, and the module is used as it is.
  CHECK_FALSE(ir::inline_calls(test::parse_module(kRef)));
}

TEST_CASE("inline_calls: a call whose body returns its parameter stands for its operand", "[ir]") {
  const ir::Module m = test::parse_module(R"(HloModule m
id {
  p = f32[2] parameter(0)
  ROOT q = f32[2] parameter(1)
}
ENTRY e {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  c = f32[2] call(a, b), to_apply=id
  ROOT n = f32[2] negate(c)
}
)");
  const auto flat = ir::inline_calls(m);
  REQUIRE(flat);
  const ir::Computation& e = flat->entry();
  CHECK(e.size() == 3);
  CHECK(e[e[e.root].operands[0]].name == "b");
}

TEST_CASE("check: ops inside fusions and calls are proven, and a bug inside is found", "[verify]") {
  const ir::Module ref = test::parse_module(kRef);
  auto ok = verify::check(ref, test::parse_module(dist("tanh")), {});
  REQUIRE(ok);
  CHECK(ok->verdict == verify::Verdict::kEquivalent);
  auto bug = verify::check(ref, test::parse_module(dist("exponential")), {});
  REQUIRE(bug);
  REQUIRE(bug->verdict == verify::Verdict::kDivergent);
  CHECK(bug->divergence->dist_node == "f.tt.n");
  CHECK(bug->divergence->dist_line == 5);
}
