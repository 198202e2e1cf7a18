// Tuples, called computations (call, map, while, conditional), custom calls, and the errors:
// bad arguments, unsupported ops, runaway loops, with positions.
#include <catch2/catch.hpp>

#include "core/eval/eval_test_support.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {

using V = std::vector<double>;

// state = (i, acc); while i < 5: acc += i; i += 1.
const char* const kLoop =
    "cond {\n  s = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
    "  n = s32[] constant(5)\n  ROOT lt = pred[] compare(i, n), direction=LT\n}\n\n"
    "body {\n  s = (s32[], f32[]) parameter(0)\n  i = s32[] get-tuple-element(s), index=0\n"
    "  acc = f32[] get-tuple-element(s), index=1\n  fi = f32[] convert(i)\n"
    "  acc2 = f32[] add(acc, fi)\n  one = s32[] constant(1)\n  i2 = s32[] add(i, one)\n"
    "  ROOT t = (s32[], f32[]) tuple(i2, acc2)\n}\n\n";

}  // namespace

TEST_CASE("control: tuple and get-tuple-element", "[eval]") {
  const Value r = eval_ok(module_with("  a = f32[2] parameter(0)\n  b = s32[] constant(3)\n"
                                      "  t = (f32[2], s32[]) tuple(a, b)\n"
                                      "  x = s32[] get-tuple-element(t), index=1\n"
                                      "  ROOT r = (s32[], (f32[2], s32[])) tuple(x, t)"),
                          {tensor({2}, {1, 2})});
  CHECK(r.to_string() == "(3, ({1, 2}, 3))");
}

TEST_CASE("control: call and fusion evaluate their computation", "[eval]") {
  const std::string sq = "sq {\n  x = f32[2] parameter(0)\n  ROOT m = f32[2] multiply(x, x)\n}\n\n";
  CHECK(data(eval_ok(module_with("  a = f32[2] parameter(0)\n"
                                 "  ROOT r = f32[2] call(a), to_apply=sq",
                                 sq),
                     {tensor({2}, {3, -4})})) == V{9, 16});
  CHECK(data(eval_ok(module_with("  a = f32[2] parameter(0)\n"
                                 "  ROOT r = f32[2] fusion(a), kind=kLoop, calls=sq",
                                 sq),
                     {tensor({2}, {3, -4})})) == V{9, 16});
}

TEST_CASE("control: map applies a computation per element", "[eval]") {
  const std::string f =
      "f {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  m = f32[] multiply(x, y)\n"
      "  one = f32[] constant(1)\n  ROOT r = f32[] add(m, one)\n}\n\n"
      "sub {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
      "  ROOT r = f32[] subtract(x, y)\n}\n\n";
  const std::vector<Value> args{tensor({3}, {1, 2, 3}), tensor({3}, {4, 5, 6})};
  CHECK(data(eval_ok(module_with("  a = f32[3] parameter(0)\n  b = f32[3] parameter(1)\n"
                                 "  ROOT r = f32[3] map(a, b), dimensions={0}, to_apply=f",
                                 f),
                     args)) == V{5, 11, 19});
  CHECK(data(eval_ok(module_with("  a = f32[3] parameter(0)\n  b = f32[3] parameter(1)\n"
                                 "  ROOT r = f32[3] map(a, b), dimensions={0}, to_apply=sub",
                                 f),
                     args)) == V{-3, -3, -3});
}

TEST_CASE("control: a while loop sums 0..4", "[eval]") {
  const Value r =
      eval_ok(module_with("  zero = s32[] constant(0)\n  z = f32[] constant(0)\n"
                          "  init = (s32[], f32[]) tuple(zero, z)\n"
                          "  ROOT w = (s32[], f32[]) while(init), condition=cond, "
                          "body=body",
                          kLoop));
  CHECK(r.to_string() == "(5, 10)");
}

TEST_CASE("control: a loop that does not end is stopped and reported", "[eval]") {
  const std::string forever =
      "c {\n  s = f32[] parameter(0)\n  ROOT t = pred[] constant(true)\n}\n\n"
      "b {\n  s = f32[] parameter(0)\n  ROOT n = f32[] negate(s)\n}\n\n";
  const std::string text = module_with(
      "  z = f32[] constant(1)\n  ROOT w = f32[] while(z), condition=c, body=b", forever);
  const Diagnostic d = eval_error(text);
  CHECK(d.message == "'w': the loop did not finish within 10000 iterations");
  CHECK(d.pos.line == 15);
  EvalOptions few;
  few.max_while_iterations = 3;
  CHECK_THAT(eval_error(text, {}, few).message, Catch::Contains("within 3 iterations"));
}

TEST_CASE("control: conditional by pred and by index (out of range: the last branch)", "[eval]") {
  const std::string branches =
      "neg {\n  x = f32[] parameter(0)\n  ROOT r = f32[] negate(x)\n}\n\n"
      "same {\n  x = f32[] parameter(0)\n  ROOT r = f32[] copy(x)\n}\n\n"
      "twice {\n  x = f32[] parameter(0)\n  ROOT r = f32[] add(x, x)\n}\n\n";
  const std::string by_pred = module_with(
      "  p = pred[] parameter(0)\n  x = f32[] constant(3)\n  y = f32[] constant(5)\n"
      "  ROOT r = f32[] conditional(p, x, y), true_computation=neg, false_computation=twice",
      branches);
  CHECK(data(eval_ok(by_pred, {tensor({}, {1})})) == V{-3});
  CHECK(data(eval_ok(by_pred, {tensor({}, {0})})) == V{10});
  const std::string by_index = module_with(
      "  i = s32[] parameter(0)\n  x = f32[] constant(3)\n"
      "  ROOT r = f32[] conditional(i, x, x, x), branch_computations={neg, same, twice}",
      branches);
  CHECK(data(eval_ok(by_index, {tensor({}, {0})})) == V{-3});
  CHECK(data(eval_ok(by_index, {tensor({}, {1})})) == V{3});
  CHECK(data(eval_ok(by_index, {tensor({}, {7})})) == V{6});
  CHECK(data(eval_ok(by_index, {tensor({}, {-1})})) == V{6});
}

TEST_CASE("control: identity custom calls pass through, others are refused", "[eval]") {
  CHECK(
      data(eval_ok(module_with("  a = f32[2] parameter(0)\n"
                               "  ROOT r = f32[2] custom-call(a), custom_call_target=\"Sharding\", "
                               "sharding={replicated}"),
                   {tensor({2}, {1, 2})})) == V{1, 2});
  const Diagnostic d =
      eval_error(module_with("  a = f32[2] parameter(0)\n"
                             "  ROOT r = f32[2] custom-call(a), custom_call_target=\"MyKernel\""),
                 {tensor({2}, {1, 2})});
  CHECK_THAT(d.message, Catch::StartsWith("'r': evaluation of 'custom-call' is not supported: "
                                          "custom call target \"MyKernel\""));
}

TEST_CASE("errors: unsupported ops, collectives and the rank-dependent ops", "[eval]") {
  const std::string cmp =
      "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT r = pred[] compare(a, b), direction=LT\n}\n\n";
  const Diagnostic sort =
      eval_error(module_with("  a = f32[3] parameter(0)\n"
                             "  ROOT r = f32[3] sort(a), dimensions={0}, to_apply=lt",
                             cmp),
                 {tensor({3}, {3, 1, 2})});
  CHECK(sort.message == "'r': evaluation of 'sort' is not supported");
  CHECK(sort.pos.line == 11);
  CHECK(sort.pos.col == 3);
  const std::string add =
      "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT r = f32[] add(a, b)\n}\n\n";
  CHECK_THAT(eval_error(module_with("  a = f32[2] parameter(0)\n"
                                    "  ROOT r = f32[2] all-reduce(a), replica_groups={}, "
                                    "to_apply=add",
                                    add),
                        {tensor({2}, {1, 2})})
                 .message,
             Catch::Contains("'all-reduce' is not supported: collectives"));
  CHECK_THAT(eval_error(module_with("  ROOT r = u32[] partition-id()")).message,
             Catch::Contains("depends on the rank"));
  // An unsupported op that the ROOT does not need is never evaluated.
  CHECK(data(eval_ok(module_with("  a = f32[3] parameter(0)\n"
                                 "  unused = f32[3] sort(a), dimensions={0}, to_apply=lt\n"
                                 "  ROOT r = f32[3] negate(a)",
                                 cmp),
                     {tensor({3}, {3, 1, 2})})) == V{-3, -1, -2});
}

TEST_CASE("errors: arguments of the wrong number or shape", "[eval]") {
  const std::string text = module_with(
      "  p0 = f32[2,3] parameter(0)\n  p1 = f32[3,2] parameter(1)\n"
      "  ROOT r = f32[2,2] dot(p0, p1), lhs_contracting_dims={1}, "
      "rhs_contracting_dims={0}");
  const Diagnostic shape = eval_error(text, {iota({2, 3}), iota({2, 3})});
  CHECK(shape.message == "argument 1 has shape f32[2,3], parameter 'p1' expects f32[3,2]");
  CHECK(shape.pos.line == 5);
  CHECK_THAT(eval_error(text, {iota({2, 3})}).message,
             Catch::Contains("takes 2 arguments but is given 1"));
  CHECK_THAT(eval_error(text, {iota({2, 3}), Value::tuple({})}).message,
             Catch::Contains("argument 1 has shape ()"));
  EvalOptions named;
  named.file_name = "model.hlo";
  CHECK_THAT(eval_error(text, {iota({2, 3}), iota({2, 3})}, named).format(),
             Catch::StartsWith("model.hlo:5:3: error: argument 1"));
}

TEST_CASE("errors: results beyond the element limit are refused before allocation", "[eval]") {
  EvalOptions small;
  small.max_elements = 100;
  const Diagnostic d = eval_error(
      module_with("  z = f32[] constant(0)\n  ROOT r = f32[20,20] broadcast(z), dimensions={}"), {},
      small);
  CHECK(d.message ==
        "'r': the result f32[20,20] has 400 elements, more than the interpreter's limit of 100");
}

TEST_CASE("errors: recursion (which the reader rejects) stops at the call depth limit", "[eval]") {
  ir::Module m =
      read(module_with("  a = f32[] parameter(0)\n  ROOT r = f32[] call(a), to_apply=f",
                       "f {\n  x = f32[] parameter(0)\n  ROOT c = f32[] call(x), "
                       "to_apply=g\n}\n\n"
                       "g {\n  x = f32[] parameter(0)\n  ROOT n = f32[] negate(x)\n}\n\n"));
  // Make f call itself.
  ir::Computation& f = m.computations[static_cast<size_t>(*m.find_computation("f"))];
  f[f.root].attrs[0].value = ir::ComputationRefs{{"f"}};
  const std::vector<Value> args{Tensor::scalar(1)};
  auto r = evaluate(m, m.entry_id, args);
  REQUIRE_FALSE(r.has_value());
  CHECK_THAT(r.error().message, Catch::Contains("calls nest deeper than 64 levels"));
}

TEST_CASE("errors: a contraction beyond the work limit is refused before it starts", "[eval]") {
  EvalOptions small;
  small.max_work = 1e5;
  const std::string text = module_with(
      "  a = f32[100,100] parameter(0)\n  b = f32[100,100] parameter(1)\n"
      "  ROOT r = f32[100,100] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  const Value x = Tensor::filled({100, 100}, 1.0);
  CHECK_THAT(eval_error(text, {x, x}, small).message,
             Catch::Contains("would exceed its limit of 100000 multiply-adds"));
  CHECK(data(eval_ok(text, {x, x}))[0] == 100);
}

TEST_CASE("evaluate_instruction: one instruction on given operand values", "[eval]") {
  const ir::Module m =
      read(module_with("  p = f32[2] parameter(0)\n  q = f32[2] parameter(1)\n"
                       "  ROOT s = f32[2] subtract(p, q)"));
  const ir::Computation& e = m.entry();
  const ir::Instruction& s = e[*e.find("s")];
  const std::vector<Value> operands{tensor({2}, {5, 6}), tensor({2}, {1, 1})};
  auto r = evaluate_instruction(m, e, s, operands);
  REQUIRE(r.has_value());
  CHECK(data(*r) == V{4, 5});
  const std::vector<Value> wrong{tensor({3}, {5, 6, 7}), tensor({2}, {1, 1})};
  auto bad = evaluate_instruction(m, e, s, wrong);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message == "'s': operand 0 has shape f32[3] but 'p' is declared f32[2]");
  auto param = evaluate_instruction(m, e, e[*e.find("p")], {});
  REQUIRE_FALSE(param.has_value());
  CHECK_THAT(param.error().message, Catch::Contains("a parameter has no value"));
}

TEST_CASE("evaluate: a parameter as ROOT, and constants", "[eval]") {
  CHECK(data(eval_ok(module_with("  ROOT p = f32[2] parameter(0)"), {tensor({2}, {1, 2})})) ==
        V{1, 2});
  CHECK(data(eval_ok(module_with("  ROOT c = s32[2,2] constant({{1, 2}, {3, 4}})"))) ==
        V{1, 2, 3, 4});
}
