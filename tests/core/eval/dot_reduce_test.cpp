// dot, reduce (fast and slow combiners, variadic), reduce-window and convolution.
#include <catch2/catch.hpp>

#include "core/eval/eval_test_support.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {

using V = std::vector<double>;

const char* const kMax =
    "max {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  ROOT s = f32[] maximum(x, y)\n}\n\n";
// Not a single binary op of the parameters, so reductions call it per element.
const char* const kSlowMax =
    "slow_max {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
    "  m = f32[] maximum(y, x)\n  ROOT c = f32[] copy(m)\n}\n\n";

}  // namespace

TEST_CASE("dot: matrix product, contracting dims in any position", "[eval]") {
  const Value mm =
      eval_ok(module_with("  a = f32[2,3] parameter(0)\n  b = f32[3,2] parameter(1)\n"
                          "  ROOT r = f32[2,2] dot(a, b), lhs_contracting_dims={1}, "
                          "rhs_contracting_dims={0}"),
              {tensor({2, 3}, {1, 2, 3, 4, 5, 6}), tensor({3, 2}, {1, 0, 0, 1, 1, 1})});
  CHECK(data(mm) == V{4, 5, 10, 11});
  // a^T b^T: contracting dim 0 of a and dim 1 of b.
  const Value tt =
      eval_ok(module_with("  a = f32[3,2] parameter(0)\n  b = f32[2,3] parameter(1)\n"
                          "  ROOT r = f32[2,2] dot(a, b), lhs_contracting_dims={0}, "
                          "rhs_contracting_dims={1}"),
              {tensor({3, 2}, {1, 4, 2, 5, 3, 6}), tensor({2, 3}, {1, 0, 1, 0, 1, 1})});
  CHECK(data(tt) == V{4, 5, 10, 11});
  // No contraction at all: an outer product.
  CHECK(data(eval_ok(module_with("  a = f32[2] parameter(0)\n  b = f32[3] parameter(1)\n"
                                 "  ROOT r = f32[2,3] dot(a, b)"),
                     {tensor({2}, {1, 2}), tensor({3}, {1, 10, 100})})) ==
        V{1, 10, 100, 2, 20, 200});
}

TEST_CASE("dot: batch dimensions come first, then lhs free, then rhs free", "[eval]") {
  // lhs [b=2, m=2, k=3], rhs [k=3, b=2, n=4]: batch dim 1 of rhs, contracting dim 0.
  const Value lhs = iota({2, 2, 3});
  const Value rhs = iota({3, 2, 4});
  const Value r = eval_ok(
      module_with("  a = f32[2,2,3] parameter(0)\n  b = f32[3,2,4] parameter(1)\n"
                  "  ROOT r = f32[2,2,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={1}, "
                  "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
      {lhs, rhs});
  REQUIRE(r.tensor().dims == std::vector<int64_t>{2, 2, 4});
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t m = 0; m < 2; ++m) {
      for (int64_t n = 0; n < 4; ++n) {
        double want = 0;
        for (int64_t k = 0; k < 3; ++k) {
          want += static_cast<double>(6 * b + 3 * m + k) * static_cast<double>(8 * k + 4 * b + n);
        }
        const std::vector<int64_t> at{b, m, n};
        CHECK(r.tensor().at(at) == want);
      }
    }
  }
  // By hand: r[1,0,0] = sum_k (6+k)(8k+4) = 6*4 + 7*12 + 8*20 = 268.
  CHECK(r.tensor().at(std::vector<int64_t>{1, 0, 0}) == 268);
}

TEST_CASE("dot: integer results wrap to their type", "[eval]") {
  CHECK(data(eval_ok(module_with("  a = s8[2] parameter(0)\n  b = s8[2] parameter(1)\n"
                                 "  ROOT r = s8[] dot(a, b), lhs_contracting_dims={0}, "
                                 "rhs_contracting_dims={0}"),
                     {tensor({2}, {100, 100}), tensor({2}, {1, 1})})) == V{-56});
}

TEST_CASE("reduce: over two dimensions, fast and slow combiners agree", "[eval]") {
  // sum over dims {0,2} of x[i,j,k] = 12i + 4j + k: 60 + 32 j.
  const Value sum =
      eval_ok(module_with("  p = f32[2,3,4] parameter(0)\n  z = f32[] constant(0)\n"
                          "  ROOT r = f32[3] reduce(p, z), dimensions={0,2}, to_apply=add",
                          kAdd),
              {iota({2, 3, 4})});
  CHECK(data(sum) == V{60, 92, 124});
  const Value x = tensor({2, 3}, {1, 7, -2, 4, 0, 9});
  for (const char* f : {"max", "slow_max"}) {
    const Value r =
        eval_ok(module_with("  p = f32[2,3] parameter(0)\n  z = f32[] constant(-inf)\n"
                            "  ROOT r = f32[2] reduce(p, z), dimensions={1}, to_apply=" +
                                std::string(f),
                            std::string(kMax) + kSlowMax),
                {x});
    CHECK(data(r) == V{7, 9});
  }
  // Reducing every dimension gives a scalar; the initial value takes part.
  CHECK(data(eval_ok(module_with("  p = f32[2,2] parameter(0)\n  z = f32[] constant(10)\n"
                                 "  ROOT r = f32[] reduce(p, z), dimensions={0,1}, to_apply=add",
                                 kAdd),
                     {tensor({2, 2}, {1, 2, 3, 4})})) == V{20});
}

TEST_CASE("reduce: integer sums wrap; a called combiner gives the same numbers", "[eval]") {
  const std::string adders =
      "add8 {\n  x = s8[] parameter(0)\n  y = s8[] parameter(1)\n  ROOT s = s8[] add(y, x)\n}\n\n"
      "slow_add8 {\n  x = s8[] parameter(0)\n  y = s8[] parameter(1)\n"
      "  s = s8[] add(x, y)\n  ROOT c = s8[] copy(s)\n}\n\n";
  for (const char* f : {"add8", "slow_add8"}) {
    const Value r = eval_ok(module_with("  p = s8[4] parameter(0)\n  z = s8[] constant(0)\n"
                                        "  ROOT r = s8[] reduce(p, z), dimensions={0}, to_apply=" +
                                            std::string(f),
                                        adders),
                            {tensor({4}, {100, 100, 100, -1})});
    CHECK(data(r) == V{43});  // 299 wraps to 43
  }
}

TEST_CASE("reduce: variadic (argmax of values and indices)", "[eval]") {
  const std::string argmax =
      "argmax {\n  a = f32[] parameter(0)\n  i = s32[] parameter(1)\n"
      "  b = f32[] parameter(2)\n  j = s32[] parameter(3)\n"
      "  ge = pred[] compare(a, b), direction=GE\n"
      "  v = f32[] select(ge, a, b)\n  k = s32[] select(ge, i, j)\n"
      "  ROOT t = (f32[], s32[]) tuple(v, k)\n}\n\n";
  const Value r =
      eval_ok(module_with("  p = f32[2,3] parameter(0)\n  idx = s32[2,3] iota(), iota_dimension=1\n"
                          "  lo = f32[] constant(-inf)\n  none = s32[] constant(-1)\n"
                          "  ROOT r = (f32[2], s32[2]) reduce(p, idx, lo, none), dimensions={1}, "
                          "to_apply=argmax",
                          argmax),
              {tensor({2, 3}, {1, 7, -2, 9, 0, 9})});
  CHECK(data(r, 0) == V{7, 9});
  CHECK(data(r, 1) == V{1, 0});  // the first of equal maxima (GE keeps the accumulator)
}

TEST_CASE("reduce-window: sums, padding, strides, 2-d max pooling", "[eval]") {
  const Value x = tensor({4}, {1, 2, 3, 4});
  CHECK(data(eval_ok(module_with("  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[3] reduce-window(p, z), window={size=2}, "
                                 "to_apply=add",
                                 kAdd),
                     {x})) == V{3, 5, 7});
  CHECK(data(eval_ok(module_with("  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[5] reduce-window(p, z), window={size=2 pad=1_1}, "
                                 "to_apply=add",
                                 kAdd),
                     {x})) == V{1, 3, 5, 7, 4});
  CHECK(data(eval_ok(module_with("  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[2] reduce-window(p, z), window={size=3 stride=2 "
                                 "pad=0_1}, to_apply=add",
                                 kAdd),
                     {x})) == V{6, 7});
  // Window dilation 2: elements 0 and 2, then 1 and 3.
  CHECK(data(eval_ok(
            module_with("  p = f32[4] parameter(0)\n  z = f32[] constant(0)\n"
                        "  ROOT r = f32[2] reduce-window(p, z), window={size=2 rhs_dilate=2}, "
                        "to_apply=add",
                        kAdd),
            {x})) == V{4, 6});
  const Value pool =
      eval_ok(module_with("  p = f32[4,4] parameter(0)\n  z = f32[] constant(-inf)\n"
                          "  ROOT r = f32[2,2] reduce-window(p, z), window={size=2x2 stride=2x2}, "
                          "to_apply=max",
                          kMax),
              {iota({4, 4})});
  CHECK(data(pool) == V{5, 7, 13, 15});
}

TEST_CASE("convolution: 1-d with padding, and depthwise with feature groups", "[eval]") {
  const Value in = tensor({1, 5, 1}, {1, 2, 3, 4, 5});
  const Value kernel = tensor({3, 1, 1}, {1, 0, -1});
  CHECK(data(eval_ok(module_with("  x = f32[1,5,1] parameter(0)\n  w = f32[3,1,1] parameter(1)\n"
                                 "  ROOT r = f32[1,3,1] convolution(x, w), window={size=3}, "
                                 "dim_labels=b0f_0io->b0f"),
                     {in, kernel})) == V{-2, -2, -2});
  CHECK(data(eval_ok(module_with("  x = f32[1,5,1] parameter(0)\n  w = f32[3,1,1] parameter(1)\n"
                                 "  ROOT r = f32[1,5,1] convolution(x, w), window={size=3 "
                                 "pad=1_1}, dim_labels=b0f_0io->b0f"),
                     {in, kernel})) == V{-2, -2, -2, -2, 4});
  // Two channels, each convolved with its own kernel: a sum and a difference.
  const Value x2 = tensor({1, 3, 2}, {1, 10, 2, 20, 3, 30});
  const Value w2 = tensor({2, 1, 2}, {1, 1, 1, -1});
  CHECK(data(eval_ok(module_with("  x = f32[1,3,2] parameter(0)\n  w = f32[2,1,2] parameter(1)\n"
                                 "  ROOT r = f32[1,2,2] convolution(x, w), window={size=2}, "
                                 "dim_labels=b0f_0io->b0f, feature_group_count=2"),
                     {x2, w2})) == V{3, -10, 5, -10});
  // 2-d, batch 1, NCHW-style labels, stride 2: sums of 2x2 blocks.
  const Value img = iota({1, 1, 4, 4});
  const Value ones = tensor({1, 1, 2, 2}, {1, 1, 1, 1});
  CHECK(data(eval_ok(module_with("  x = f32[1,1,4,4] parameter(0)\n"
                                 "  w = f32[1,1,2,2] parameter(1)\n"
                                 "  ROOT r = f32[1,1,2,2] convolution(x, w), "
                                 "window={size=2x2 stride=2x2}, dim_labels=bf01_oi01->bf01"),
                     {img, ones})) == V{10, 18, 42, 50});
}
