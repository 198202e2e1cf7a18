// Elementwise ops: float and integer arithmetic, logic, shifts, compare, convert, select, clamp.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/eval/eval_test_support.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {

/// `ROOT r = TYPE op(a, b)` (or op(a) when `b` is empty) on parameters of `in` type.
std::string op_module(const std::string& op, const std::string& in, const std::string& out,
                      bool binary = true) {
  return module_with("  a = " + in + " parameter(0)\n" +
                     (binary ? "  b = " + in + " parameter(1)\n" : "") + "  ROOT r = " + out + " " +
                     op + (binary ? "(a, b)" : "(a)"));
}

std::vector<double> binary(const std::string& op, const std::string& type, std::vector<double> x,
                           std::vector<double> y, const std::string& out_type = "") {
  const auto n = static_cast<int64_t>(x.size());
  const std::string t = type + "[" + std::to_string(n) + "]";
  const std::string o = (out_type.empty() ? type : out_type) + "[" + std::to_string(n) + "]";
  return data(eval_ok(op_module(op, t, o), {tensor({n}, x), tensor({n}, y)}));
}

std::vector<double> unary(const std::string& op, const std::string& type, std::vector<double> x,
                          const std::string& out_type = "") {
  const auto n = static_cast<int64_t>(x.size());
  const std::string t = type + "[" + std::to_string(n) + "]";
  const std::string o = (out_type.empty() ? type : out_type) + "[" + std::to_string(n) + "]";
  return data(eval_ok(op_module(op, t, o, false), {tensor({n}, x)}));
}

using V = std::vector<double>;

}  // namespace

TEST_CASE("elementwise: float binary ops", "[eval]") {
  const V x{1, -2, 3.5, 0}, y{2, 3, -1.5, 4};
  CHECK(binary("add", "f32", x, y) == V{3, 1, 2, 4});
  CHECK(binary("subtract", "f32", x, y) == V{-1, -5, 5, -4});
  CHECK(binary("multiply", "f32", x, y) == V{2, -6, -5.25, 0});
  check_close(binary("divide", "f32", x, y), {0.5, -2.0 / 3.0, -7.0 / 3.0, 0});
  CHECK(binary("maximum", "f32", x, y) == V{2, 3, 3.5, 4});
  CHECK(binary("minimum", "f32", x, y) == V{1, -2, -1.5, 0});
  check_close(binary("power", "f32", x, y), {1, -8, std::pow(3.5, -1.5), 0});
  CHECK(binary("remainder", "f32", {7.5, -7.5, 1}, {2, 2, 3}) == V{1.5, -1.5, 1});
  check_close(binary("atan2", "f32", {1, -1}, {1, 0}), {M_PI / 4, -M_PI / 2});
  // NaN propagates through maximum and minimum.
  CHECK(std::isnan(binary("maximum", "f32", {NAN}, {1})[0]));
  CHECK(std::isnan(binary("minimum", "f32", {1}, {NAN})[0]));
}

TEST_CASE("elementwise: float unary ops", "[eval]") {
  CHECK(unary("negate", "f32", {1.5, -2}) == V{-1.5, 2});
  CHECK(unary("abs", "f32", {1.5, -2}) == V{1.5, 2});
  CHECK(unary("floor", "f32", {-1.25, 1.75}) == V{-2, 1});
  CHECK(unary("ceil", "f32", {-1.25, 1.75}) == V{-1, 2});
  CHECK(unary("round-nearest-afz", "f32", {2.5, -2.5, 0.4}) == V{3, -3, 0});
  CHECK(unary("round-nearest-even", "f32", {2.5, 3.5, -2.5, 0.6}) == V{2, 4, -2, 1});
  CHECK(unary("sign", "f32", {-3, 0, 0.5}) == V{-1, 0, 1});
  CHECK(unary("sqrt", "f32", {4, 2.25}) == V{2, 1.5});
  CHECK(unary("rsqrt", "f32", {4, 0.25}) == V{0.5, 2});
  check_close(unary("cbrt", "f32", {-8, 27}), {-2, 3});
  CHECK(unary("logistic", "f32", {0})[0] == 0.5);
  CHECK(unary("erf", "f32", {0})[0] == 0);
  CHECK(unary("copy", "f32", {1, 2}) == V{1, 2});
  const V x{0.5, -1.25, 2};
  check_close(unary("exponential", "f32", x), {std::exp(0.5), std::exp(-1.25), std::exp(2)});
  check_close(unary("exponential-minus-one", "f32", x),
              {std::expm1(0.5), std::expm1(-1.25), std::expm1(2)});
  check_close(unary("log", "f32", {1, M_E, 0.5}), {0, 1, std::log(0.5)});
  check_close(unary("log-plus-one", "f32", {0, M_E - 1}), {0, 1});
  check_close(unary("tanh", "f32", x), {std::tanh(0.5), std::tanh(-1.25), std::tanh(2)});
  check_close(unary("sine", "f32", {0, M_PI / 2}), {0, 1});
  check_close(unary("cosine", "f32", {0, M_PI}), {1, -1});
  check_close(unary("tan", "f32", {0, M_PI / 4}), {0, 1});
  check_close(unary("logistic", "f32", {2}), {1 / (1 + std::exp(-2.0))});
  check_close(unary("erf", "f32", {1}), {std::erf(1.0)});
  CHECK(std::isnan(unary("log", "f32", {-1})[0]));
  CHECK(unary("is-finite", "f32", {1, INFINITY, NAN, -INFINITY}, "pred") == V{1, 0, 0, 0});
}

TEST_CASE("elementwise: integer arithmetic wraps, divides toward zero, by zero as XLA", "[eval]") {
  CHECK(binary("divide", "s32", {7, -7, 7, -7, 5}, {2, 2, -2, -2, 0}) == V{3, -3, -3, 3, -1});
  CHECK(binary("remainder", "s32", {7, -7, 7, -7, 5}, {2, 2, -2, -2, 0}) == V{1, -1, 1, -1, 5});
  CHECK(binary("divide", "u32", {7, 5}, {2, 0}) == V{3, 4294967295.0});
  CHECK(binary("divide", "s32", {-2147483648.0}, {-1}) == V{-2147483648.0});
  CHECK(binary("remainder", "s32", {-2147483648.0}, {-1}) == V{0});
  CHECK(binary("add", "s8", {100, -100}, {100, -100}) == V{-56, 56});
  CHECK(binary("subtract", "u8", {3}, {5}) == V{254});
  CHECK(binary("multiply", "s8", {16, -16}, {16, 8}) == V{0, -128});
  CHECK(binary("power", "s32", {3, 2, -1, 1, -1, 2}, {4, -1, -3, -2, 2, 31}) ==
        V{81, 0, -1, 1, 1, -2147483648.0});
  CHECK(binary("maximum", "s32", {-3, 4}, {2, 1}) == V{2, 4});
  CHECK(unary("negate", "u8", {1}) == V{255});
  CHECK(unary("abs", "s8", {-128, -5}) == V{-128, 5});
  CHECK(unary("sign", "s32", {-7, 0, 9}) == V{-1, 0, 1});
}

TEST_CASE("elementwise: logic and shifts on integers and pred", "[eval]") {
  CHECK(binary("and", "s32", {12, -1}, {10, 6}) == V{8, 6});
  CHECK(binary("or", "s32", {12}, {10}) == V{14});
  CHECK(binary("xor", "s32", {12}, {10}) == V{6});
  CHECK(unary("not", "s32", {5, -1}) == V{-6, 0});
  CHECK(unary("not", "u8", {5}) == V{250});
  CHECK(binary("and", "pred", {1, 1, 0}, {1, 0, 0}) == V{1, 0, 0});
  CHECK(binary("or", "pred", {1, 1, 0}, {1, 0, 0}) == V{1, 1, 0});
  CHECK(binary("xor", "pred", {1, 1, 0}, {1, 0, 0}) == V{0, 1, 0});
  CHECK(unary("not", "pred", {1, 0}) == V{0, 1});
  CHECK(binary("shift-left", "s8", {1, 1, 3, 1}, {7, 8, 2, -1}) == V{-128, 0, 12, 0});
  CHECK(binary("shift-right-logical", "s8", {-128, 64, -1}, {1, 3, 8}) == V{64, 8, 0});
  CHECK(binary("shift-right-arithmetic", "s8", {-128, 64, -1, -7}, {1, 3, 9, 1}) ==
        V{-64, 8, -1, -4});
  CHECK(binary("shift-right-arithmetic", "u8", {128}, {1}) == V{192});
  CHECK(unary("popcnt", "s32", {-1, 6}) == V{32, 2});
  CHECK(unary("count-leading-zeros", "s32", {1, 0, -1}) == V{31, 32, 0});
}

TEST_CASE("elementwise: compare in every direction, total order", "[eval]") {
  const V x{1, 2, 3, NAN}, y{2, 2, 2, NAN};
  auto cmp = [&](const std::string& dir, const std::string& extra = "") {
    return data(eval_ok(module_with("  a = f32[4] parameter(0)\n  b = f32[4] parameter(1)\n"
                                    "  ROOT r = pred[4] compare(a, b), direction=" +
                                    dir + extra),
                        {tensor({4}, x), tensor({4}, y)}));
  };
  CHECK(cmp("EQ") == V{0, 1, 0, 0});
  CHECK(cmp("NE") == V{1, 0, 1, 1});
  CHECK(cmp("LT") == V{1, 0, 0, 0});
  CHECK(cmp("LE") == V{1, 1, 0, 0});
  CHECK(cmp("GT") == V{0, 0, 1, 0});
  CHECK(cmp("GE") == V{0, 1, 1, 0});
  CHECK(cmp("EQ", ", type=TOTALORDER") == V{0, 1, 0, 1});  // NaN equals itself
  const Value zeros =
      eval_ok(module_with("  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n"
                          "  ROOT r = pred[2] compare(a, b), direction=LT, type=TOTALORDER"),
              {tensor({2}, {-0.0, -INFINITY}), tensor({2}, {0.0, NAN})});
  CHECK(data(zeros) == V{1, 1});  // -0 < +0 and -inf < NaN in the total order
}

TEST_CASE("elementwise: convert truncates and saturates floats, wraps integers", "[eval]") {
  CHECK(unary("convert", "f32", {2.7, -2.7, 1e10, -1e10, NAN}, "s32") ==
        V{2, -2, 2147483647.0, -2147483648.0, 0});
  CHECK(unary("convert", "f32", {-3.5, 300, 7.9}, "u8") == V{0, 255, 7});
  CHECK(unary("convert", "s32", {300, -1}, "s8") == V{44, -1});
  CHECK(unary("convert", "s32", {-1}, "u32") == V{4294967295.0});
  CHECK(unary("convert", "f32", {0, 3, -0.5}, "pred") == V{0, 1, 1});
  CHECK(unary("convert", "pred", {1, 0}, "f32") == V{1, 0});
  CHECK(unary("convert", "f32", {0.1}, "bf16") == V{0.1});  // no rounding to bf16
}

TEST_CASE("elementwise: select with an array or scalar predicate, clamp", "[eval]") {
  const Value sel =
      eval_ok(module_with("  p = pred[3] parameter(0)\n  a = f32[3] parameter(1)\n"
                          "  b = f32[3] parameter(2)\n"
                          "  ROOT r = f32[3] select(p, a, b)"),
              {tensor({3}, {1, 0, 1}), tensor({3}, {1, 2, 3}), tensor({3}, {10, 20, 30})});
  CHECK(data(sel) == V{1, 20, 3});
  const Value scalar =
      eval_ok(module_with("  p = pred[] parameter(0)\n  a = f32[2] parameter(1)\n"
                          "  b = f32[2] parameter(2)\n  ROOT r = f32[2] select(p, a, b)"),
              {tensor({}, {0}), tensor({2}, {1, 2}), tensor({2}, {3, 4})});
  CHECK(data(scalar) == V{3, 4});
  const Value clamp =
      eval_ok(module_with("  lo = f32[] constant(-1)\n  hi = f32[] constant(2)\n"
                          "  x = f32[4] parameter(0)\n  ROOT r = f32[4] clamp(lo, x, hi)"),
              {tensor({4}, {-5, 0.5, 2, 9})});
  CHECK(data(clamp) == V{-1, 0.5, 2, 2});
  const Value bounds =
      eval_ok(module_with("  lo = f32[2] parameter(0)\n  x = f32[2] parameter(1)\n"
                          "  hi = f32[2] parameter(2)\n  ROOT r = f32[2] clamp(lo, x, hi)"),
              {tensor({2}, {0, 5}), tensor({2}, {-1, 7}), tensor({2}, {1, 6})});
  CHECK(data(bounds) == V{0, 6});
}

TEST_CASE("elementwise: ops that make no sense on a type are reported, not guessed", "[eval]") {
  // The reader rejects this module; read without its shape checks, the interpreter refuses too.
  const std::string text = module_with(
      "  a = f32[2] parameter(0)\n  b = f32[2] parameter(1)\n  ROOT r = f32[2] and(a, b)");
  auto m = hlo::read_module(text, "t.hlo", hlo::ReadOptions{false});
  REQUIRE(m.has_value());
  const std::vector<Value> args{tensor({2}, {1, 2}), tensor({2}, {1, 2})};
  auto r = evaluate(*m, m->entry_id, args);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message ==
        "'r': evaluation of 'and' is not supported: it needs integers or pred");
}
