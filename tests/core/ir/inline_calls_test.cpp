// Inlining calls and fusions: the ENTRY runs the bodies' ops under their call's name, nested
// calls included, the users read the body's root; and the checker proves (or finds the bug in)
// a distributed program whose ops sit in fusions and calls. Loops with a constant trip count
// unroll and conditionals with a constant selector become their branch, computing what the
// original computes (checked with the interpreter); what depends on the data stays.
#include "ir/inline_calls.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "core/verify/check_texts.h"
#include "eval/evaluator.h"
#include "eval/random_values.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

namespace {

/// tanh of a matmul (check_texts.h).
const std::string& kRef = test::kDotTanhRef;

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

TEST_CASE("inline_calls: tuple parameters and nested tuples are kept apart", "[ir]") {
  // A tuple parameter of arrays becomes one parameter per element (`p.0`, `p.1`, numbered in
  // place, each with its element's sharding); an element taken out of a nested tuple, or of a
  // copy of one, is that element.
  const ir::Module m = test::parse_module(R"(HloModule m
ENTRY e {
  p = (f32[2], f32[3]) parameter(0), sharding={{replicated}, {devices=[2]0,1}}
  q = f32[4] parameter(1)
  a = f32[2] get-tuple-element(p), index=0
  b = f32[3] get-tuple-element(p), index=1
  t = ((f32[2], f32[3]), f32[4]) tuple(p, q)
  c = ((f32[2], f32[3]), f32[4]) copy(t)
  inner = (f32[2], f32[3]) get-tuple-element(c), index=0
  b2 = f32[3] get-tuple-element(inner), index=1
  ROOT r = (f32[2], f32[3], f32[3], f32[4]) tuple(a, b, b2, q)
}
)");
  const auto flat = ir::inline_calls(m);
  REQUIRE(flat);
  const ir::Computation& e = flat->entry();
  std::vector<std::pair<std::string, int64_t>> params;
  for (ir::InstrId id : e.parameters()) params.emplace_back(e[id].name, e[id].parameter_number);
  CHECK(params == std::vector<std::pair<std::string, int64_t>>{{"p.0", 0}, {"p.1", 1}, {"q", 2}});
  REQUIRE(e[*e.find("p.1")].sharding());
  CHECK(e[*e.find("p.1")].sharding()->to_string() == "{devices=[2]0,1}");
  const ir::Instruction& root = e[e.root];
  REQUIRE(root.operands.size() == 4);
  CHECK(e[root.operands[1]].name == "p.1");
  CHECK(e[root.operands[2]].name == "p.1");  // through the nested tuple and its copy
  CHECK(e[root.operands[3]].name == "q");
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

namespace {

/// A scan over `layers` stacked weights, the loop counting `from` up by `step` while below
/// `to` (all three as HLO operands of the counter's type), with a nested loop of two squarings
/// in every iteration.
std::string scan(const std::string& from, const std::string& to, const std::string& step) {
  return R"(HloModule scan

square {
  q = (s32[], f32[2,3]) parameter(0)
  j = s32[] get-tuple-element(q), index=0
  v = f32[2,3] get-tuple-element(q), index=1
  vv = f32[2,3] multiply(v, v)
  c1 = s32[] constant(1)
  j1 = s32[] add(j, c1)
  ROOT r = (s32[], f32[2,3]) tuple(j1, vv)
}

square_cond {
  q = (s32[], f32[2,3]) parameter(0)
  j = s32[] get-tuple-element(q), index=0
  c2 = s32[] constant(2)
  ROOT lt = pred[] compare(j, c2), direction=LT
}

body {
  p = (s32[], f32[2,3], f32[4,3,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[2,3] get-tuple-element(p), index=1
  ws = f32[4,3,3] get-tuple-element(p), index=2
  zero = s32[] constant(0)
  wd = f32[1,3,3] dynamic-slice(ws, i, zero, zero), dynamic_slice_sizes={1,3,3}
  w = f32[3,3] reshape(wd)
  a = f32[2,3] dot(h, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[2,3] tanh(a)
  inner = (s32[], f32[2,3]) tuple(zero, g)
  sq = (s32[], f32[2,3]) while(inner), condition=square_cond, body=square
  o = f32[2,3] get-tuple-element(sq), index=1
  step = s32[] )" +
         step + R"(
  next = s32[] add(i, step)
  ROOT t = (s32[], f32[2,3], f32[4,3,3]) tuple(next, o, ws)
}

cond {
  p = (s32[], f32[2,3], f32[4,3,3]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] )" +
         to + R"(
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  x = f32[2,3] parameter(0)
  ws = f32[4,3,3] parameter(1)
  k = s32[] parameter(2)
  start = s32[] )" +
         from + R"(
  init = (s32[], f32[2,3], f32[4,3,3]) tuple(start, x, ws)
  loop = (s32[], f32[2,3], f32[4,3,3]) while(init), condition=cond, body=body
  ROOT out = f32[2,3] get-tuple-element(loop), index=1
}
)";
}

/// `m` and `flat` evaluated on the same random arguments agree.
void same_values(const ir::Module& m, const ir::Module& flat) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 3; ++trial) {
    std::vector<eval::Value> args;
    for (ir::InstrId p : m.entry().parameters()) {
      args.push_back(eval::random_value(m.entry()[p].type, rng));
    }
    const auto want = eval::evaluate(m, m.entry_id, args);
    const auto got = eval::evaluate(flat, flat.entry_id, args);
    REQUIRE(want);
    REQUIRE(got);
    CHECK(got->tensor().data == want->tensor().data);
  }
}

std::vector<std::string> names(const ir::Computation& c) {
  std::vector<std::string> out;
  for (const ir::Instruction& x : c.instructions) out.push_back(x.name);
  return out;
}

bool has_op(const ir::Computation& c, ir::Opcode op) {
  return std::any_of(c.instructions.begin(), c.instructions.end(),
                     [&](const ir::Instruction& x) { return x.opcode == op; });
}

}  // namespace

TEST_CASE("inline_calls: a loop with a constant trip count is unrolled, nested loops too", "[ir]") {
  // i = 0, 1, 2, 3: four layers, each squaring twice in its own loop.
  const ir::Module m = test::parse_module(scan("constant(0)", "constant(4)", "constant(1)"));
  const auto flat = ir::inline_calls(m);
  REQUIRE(flat);
  const ir::Computation& e = flat->entry();
  CHECK_FALSE(has_op(e, ir::Opcode::kWhile));
  CHECK_FALSE(has_op(e, ir::Opcode::kTuple));  // the state flows element by element
  const auto all = names(e);
  const auto named = [&](const std::string& n) {
    return std::find(all.begin(), all.end(), n) != all.end();
  };
  CHECK(named("loop.iter3.a"));
  CHECK_FALSE(named("loop.iter4.a"));
  CHECK(named("loop.iter0.sq.iter1.vv"));
  CHECK_FALSE(named("loop.iter0.sq.iter2.vv"));
  // The counter is a constant in every iteration: the third layer's weights are ws[2].
  const ir::Instruction& slice = e[*e.find("loop.iter2.wd")];
  const ir::Instruction& offset = e[slice.operands[1]];
  CHECK(offset.opcode == ir::Opcode::kConstant);
  CHECK(offset.literal == "2");
  CHECK(e[e.root].name == "loop.iter3.sq.iter1.vv");
  CHECK(e[*e.find("loop.iter0.a")].pos.line == 28);  // still where the text says it is
  same_values(m, *flat);
  // From a negative start in steps of two: the same folding.
  const ir::Module odd = test::parse_module(scan("constant(-3)", "constant(4)", "constant(2)"));
  const auto odd_flat = ir::inline_calls(odd);
  REQUIRE(odd_flat);
  CHECK(odd_flat->entry().find("loop.iter3.a"));  // -3, -1, 1, 3
  CHECK_FALSE(odd_flat->entry().find("loop.iter4.a"));
  same_values(odd, *odd_flat);
}

TEST_CASE("inline_calls: a loop whose trip count depends on the data stays a loop", "[ir]") {
  // Counting from a parameter: nothing to unroll (the inner loop only runs inside the body).
  const ir::Module from_data = test::parse_module(scan("add(k, k)", "constant(4)", "constant(1)"));
  CHECK_FALSE(ir::inline_calls(from_data));
  // A counter that never reaches the bound: more than 4096 iterations are not unrolled.
  const ir::Module endless = test::parse_module(scan("constant(0)", "constant(4)", "constant(0)"));
  CHECK_FALSE(ir::inline_calls(endless));
}

TEST_CASE("inline_calls: a conditional whose selector is a constant is its branch", "[ir]") {
  const auto program = [](const std::string& selector, const std::string& branches) {
    return R"(HloModule c
neg {
  a = f32[3] parameter(0)
  ROOT n = f32[3] negate(a)
}
exp {
  b = f32[3] parameter(0)
  ROOT x = f32[3] exponential(b)
}
ENTRY e {
  v = f32[3] parameter(0)
  )" + selector +
           R"(
  ROOT c = f32[3] conditional(s, v, v), )" +
           branches + "\n}\n";
  };
  const auto root_name = [](const ir::Module& m) { return m.entry()[m.entry().root].name; };
  const ir::Module taken_true = test::parse_module(
      program("s = pred[] constant(true)", "true_computation=neg, false_computation=exp"));
  const auto flat_true = ir::inline_calls(taken_true);
  REQUIRE(flat_true);
  CHECK(root_name(*flat_true) == "c.n");
  same_values(taken_true, *flat_true);
  // An index out of range takes the last branch, as XLA does.
  const ir::Module out_of_range =
      test::parse_module(program("s = s32[] constant(7)", "branch_computations={neg, exp}"));
  const auto flat_last = ir::inline_calls(out_of_range);
  REQUIRE(flat_last);
  CHECK(root_name(*flat_last) == "c.x");
  same_values(out_of_range, *flat_last);
  // A selector that depends on the data: left alone.
  const ir::Module by_data = test::parse_module(program(
      "z = f32[] constant(0)\n  e0 = f32[1] slice(v), slice={[0:1]}\n  r0 = f32[] reshape(e0)\n"
      "  s = pred[] compare(r0, z), direction=LT",
      "true_computation=neg, false_computation=exp"));
  CHECK_FALSE(ir::inline_calls(by_data));
}

TEST_CASE("inline_calls: XLA's windowed einsum loop unrolls into its two iterations",
          "[ir][corpus]") {
  const std::string path =
      test::corpus_dir() + "/xla/tests_extracted/windowed_einsum_AgLoops_post_spmd.hlo";
  const ir::Module m = test::parse_module(test::read_file(path), path);
  const auto flat = ir::inline_calls(m);
  REQUIRE(flat);
  const ir::Computation& e = flat->entry();
  CHECK_FALSE(has_op(e, ir::Opcode::kWhile));
  // The counter runs 0, 2, 4 (two dots per iteration) against a bound of 4.
  CHECK(e.find("while.iter1.dot.3"));
  CHECK_FALSE(e.find("while.iter2.dot.2"));
  CHECK(e[e.root].name == "while.iter1.dynamic-update-slice.1");
  CHECK(e[e.root].opcode == ir::Opcode::kDynamicUpdateSlice);
}
