// Values, tolerant comparison, random values and constant literals.
#include "eval/value.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>

#include "eval/literal.h"
#include "eval/random_values.h"

using namespace scalify;
using namespace scalify::eval;
using ir::DType;
using ir::Type;

TEST_CASE("tensor: element count, row-major index, strides and index iteration", "[eval]") {
  const Tensor t{{2, 3}, {0, 1, 2, 3, 4, 5}};
  CHECK(t.element_count() == 6);
  CHECK(t.rank() == 2);
  const std::vector<int64_t> at{1, 2};
  CHECK(t.linear_index(at) == 5);
  CHECK(t.at(std::vector<int64_t>{1, 0}) == 3.0);
  CHECK(t.shape_string() == "[2,3]");
  CHECK(Tensor::scalar(7).element_count() == 1);
  CHECK(Tensor::filled({2, 0}, 1.0).data.empty());
  CHECK(row_major_strides(std::vector<int64_t>{2, 3, 4}) == std::vector<int64_t>{12, 4, 1});

  const std::vector<int64_t> dims{2, 2};
  std::vector<int64_t> i{0, 0};
  std::vector<std::vector<int64_t>> seen;
  do {
    seen.push_back(i);
  } while (next_index(i, dims));
  CHECK(seen == std::vector<std::vector<int64_t>>{{0, 0}, {0, 1}, {1, 0}, {1, 1}});
  CHECK(i == std::vector<int64_t>{0, 0});
}

TEST_CASE("value: tuples, shapes and printing", "[eval]") {
  const Value v = Value::tuple({Tensor::scalar(1), Tensor{{2, 2}, {1, 2, 3, 4.5}}});
  REQUIRE(v.is_tuple());
  CHECK(v.elements().size() == 2);
  CHECK(v.shape_string() == "([], [2,2])");
  CHECK(v.to_string() == "(1, {{1, 2}, {3, 4.5}})");
  CHECK(Value().to_string() == "0");
  const Value nan = Tensor{{3}, {std::nan(""), -INFINITY, 0.1}};
  CHECK(nan.to_string() == "{nan, -inf, 0.1}");
  const Value long_one = Tensor::filled({100}, 2.0);
  CHECK(long_one.to_string(3) == "{2, 2, 2, ...}");
}

TEST_CASE("all_close: tolerances, NaN, and the first mismatch explained", "[eval]") {
  std::string why;
  const Value a = Tensor{{2, 2}, {1, 2, 3, 4}};
  CHECK(all_close(a, Tensor{{2, 2}, {1, 2, 3, 4 + 1e-9}}, 1e-6, 0, &why));
  CHECK_FALSE(all_close(a, Tensor{{2, 2}, {1, 2, 3.5, 4}}, 1e-6, 1e-6, &why));
  CHECK(why == "element [1,0]: 3 vs 3.5 (difference 0.5)");
  CHECK_FALSE(all_close(a, Tensor{{4}, {1, 2, 3, 4}}, 1e-6, 1e-6, &why));
  CHECK(why == "shapes [2,2] vs [4]");

  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(all_close(Tensor{{2}, {nan, INFINITY}}, Tensor{{2}, {nan, INFINITY}}, 0, 0, &why));
  CHECK_FALSE(all_close(Tensor{{1}, {INFINITY}}, Tensor{{1}, {-INFINITY}}, 1, 1, &why));
  CHECK(why == "element [0]: inf vs -inf");
  CHECK_FALSE(all_close(Tensor{{1}, {nan}}, Tensor{{1}, {1}}, 1, 1, &why));

  const Value t1 = Value::tuple({Tensor::scalar(1), Value::tuple({Tensor{{2}, {1, 2}}})});
  const Value t2 = Value::tuple({Tensor::scalar(1), Value::tuple({Tensor{{2}, {1, 3}}})});
  CHECK_FALSE(all_close(t1, t2, 0, 0, &why));
  CHECK(why == "tuple element 1, tuple element 0: element [1]: 2 vs 3 (difference 1)");
  CHECK_FALSE(all_close(t1, Tensor::scalar(1), 0, 0, &why));
  CHECK(why == "a tuple ([], ([2])) vs a tensor []");
  CHECK(all_close(t1, t1, 0, 0));
}

TEST_CASE("random values: ranges per element type, determinism, tuples", "[eval]") {
  std::mt19937_64 rng(7);
  const Type f32 = Type::array(DType::kF32, {50, 20});
  const Value f = random_value(f32, rng);
  REQUIRE(f.tensor().dims == std::vector<int64_t>{50, 20});
  for (double x : f.tensor().data) {
    CHECK(x >= -2.0);
    CHECK(x <= 2.0);
    CHECK(x != 0.0);
  }
  auto all_within = [&](DType t, double lo, double hi) {
    const Value v = random_value(Type::array(t, {200}), rng);
    bool saw_lo = false, saw_hi = false;
    for (double x : v.tensor().data) {
      if (x < lo || x > hi || x != std::trunc(x)) return false;
      saw_lo |= x == lo;
      saw_hi |= x == hi;
    }
    return saw_lo && saw_hi;  // 200 draws cover these small ranges
  };
  CHECK(all_within(DType::kS32, -3, 3));
  CHECK(all_within(DType::kU8, 0, 5));
  CHECK(all_within(DType::kPred, 0, 1));
  CHECK(all_within(DType::kU1, 0, 1));
  CHECK(all_within(DType::kS2, -2, 1));

  std::mt19937_64 a(42), b(42);
  const Type tuple =
      Type::tuple({Type::array(DType::kBF16, {3}), Type::array(DType::kS8, {}), Type::token()});
  const Value va = random_value(tuple, a);
  CHECK(va == random_value(tuple, b));
  REQUIRE(va.is_tuple());
  CHECK(va.shape_string() == "([3], [], ())");
}

TEST_CASE("literals: nesting, splats, pred, special values, comments, tuples", "[eval]") {
  auto read = [](std::string_view text, const Type& t) {
    auto v = parse_literal(text, t);
    if (!v) FAIL(v.error().message);
    return std::move(*v);
  };
  CHECK(read("{{1, 2}, {3, 4}}", Type::array(DType::kF32, {2, 2})).tensor().data ==
        std::vector<double>{1, 2, 3, 4});
  CHECK(read("-2.5e1", Type::array(DType::kF32, {})).tensor().data == std::vector<double>{-25});
  CHECK(read("3", Type::array(DType::kS32, {2, 2})).tensor().data ==
        std::vector<double>{3, 3, 3, 3});
  CHECK(read("{true, false}", Type::array(DType::kPred, {2})).tensor().data ==
        std::vector<double>{1, 0});
  const Value special = read("{inf, -inf, nan, 0x10}", Type::array(DType::kF32, {4}));
  CHECK(special.tensor().data[0] == INFINITY);
  CHECK(special.tensor().data[1] == -INFINITY);
  CHECK(std::isnan(special.tensor().data[2]));
  CHECK(special.tensor().data[3] == 16);
  CHECK(read("{ /*index=0*/1, 2 }", Type::array(DType::kS32, {2})).tensor().data ==
        std::vector<double>{1, 2});
  CHECK(read("300", Type::array(DType::kS8, {})).tensor().data[0] == 44);  // wraps to s8
  CHECK(read("{}", Type::array(DType::kF32, {0})).tensor().data.empty());
  const Value t = read("({1, 2}, 3)",
                       Type::tuple({Type::array(DType::kF32, {2}), Type::array(DType::kS32, {})}));
  CHECK(t.to_string() == "({1, 2}, 3)");

  auto error = [](std::string_view text, const Type& ty) {
    auto v = parse_literal(text, ty);
    REQUIRE_FALSE(v.has_value());
    return v.error().message;
  };
  CHECK_THAT(error("{...}", Type::array(DType::kF32, {8})), Catch::Contains("elided"));
  CHECK_THAT(error("{1, 2}", Type::array(DType::kF32, {3})),
             Catch::Contains("dimension 0 has 2 elements, the type says 3"));
  CHECK_THAT(error("{1, x}", Type::array(DType::kF32, {2})), Catch::Contains("'x'"));
  CHECK_THAT(error("{1, 2} 3", Type::array(DType::kF32, {2})), Catch::Contains("after"));
}
