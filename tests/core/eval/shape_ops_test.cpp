// Ops that move elements: iota, broadcast, reshape, bitcast, transpose, slice, dynamic slices,
// concatenate, pad, reverse, get-dimension-size.
#include <algorithm>
#include <catch2/catch.hpp>

#include "core/eval/eval_test_support.h"
#include "ir/type.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {
using V = std::vector<double>;
}  // namespace

TEST_CASE("shape ops: iota along either dimension", "[eval]") {
  CHECK(data(eval_ok(module_with("  ROOT r = s32[2,3] iota(), iota_dimension=1"))) ==
        V{0, 1, 2, 0, 1, 2});
  CHECK(data(eval_ok(module_with("  ROOT r = f32[2,3] iota(), iota_dimension=0"))) ==
        V{0, 0, 0, 1, 1, 1});
  const Value r = eval_ok(module_with("  ROOT r = f32[2,3] iota(), iota_dimension=0"));
  CHECK(r.tensor().dims == std::vector<int64_t>{2, 3});
}

TEST_CASE("shape ops: broadcast into leading, trailing and scalar positions", "[eval]") {
  CHECK(data(eval_ok(module_with("  p = f32[3] parameter(0)\n"
                                 "  ROOT r = f32[2,3] broadcast(p), dimensions={1}"),
                     {tensor({3}, {1, 2, 3})})) == V{1, 2, 3, 1, 2, 3});
  CHECK(data(eval_ok(module_with("  p = f32[2] parameter(0)\n"
                                 "  ROOT r = f32[2,3] broadcast(p), dimensions={0}"),
                     {tensor({2}, {1, 2})})) == V{1, 1, 1, 2, 2, 2});
  CHECK(data(eval_ok(module_with("  p = f32[] constant(7)\n"
                                 "  ROOT r = f32[2,2] broadcast(p), dimensions={}"))) ==
        V{7, 7, 7, 7});
  // A 2-d operand whose dimensions land swapped-in-place around a new middle dimension.
  const Value r = eval_ok(module_with("  p = f32[2,3] parameter(0)\n"
                                      "  ROOT r = f32[2,4,3] broadcast(p), dimensions={0,2}"),
                          {iota({2, 3})});
  const std::vector<int64_t> at{1, 3, 2};
  CHECK(r.tensor().at(at) == 5);
}

TEST_CASE("shape ops: reshape keeps the row-major order; bitcast honours layouts", "[eval]") {
  const Value r = eval_ok(
      module_with("  p = f32[2,3] parameter(0)\n  ROOT r = f32[3,2] reshape(p)"), {iota({2, 3})});
  CHECK(r.tensor().dims == std::vector<int64_t>{3, 2});
  CHECK(data(r) == V{0, 1, 2, 3, 4, 5});
  CHECK(data(eval_ok(module_with("  p = f32[2,3] parameter(0)\n  ROOT r = f32[6] bitcast(p)"),
                     {iota({2, 3})})) == V{0, 1, 2, 3, 4, 5});
  // f32[2,3]{0,1} is column-major in memory (0 3 1 4 2 5); read as a row-major [3,2] that is
  // the transpose.
  CHECK(data(eval_ok(module_with("  p = f32[2,3]{0,1} parameter(0)\n"
                                 "  ROOT r = f32[3,2]{1,0} bitcast(p)"),
                     {iota({2, 3})})) == V{0, 3, 1, 4, 2, 5});
}

TEST_CASE("shape ops: a bitcast is the data movement ir::bitcast_steps says, for every layout",
          "[eval]") {
  // The checker and the proof checker model a bitcast as transpose, reshape, transpose
  // (ir::bitcast_steps); the interpreter reads memory through the layouts its own way. Every
  // pair of layouts of an f32[2,3,4] and a few result shapes must agree.
  auto layout_text = [](const std::vector<int64_t>& minor_to_major) {
    std::string t = "{";
    for (size_t k = 0; k < minor_to_major.size(); ++k) {
      t += (k ? "," : "") + std::to_string(minor_to_major[k]);
    }
    return t + "}";
  };
  auto dims_text = [](const std::vector<int64_t>& dims) {
    std::string t;
    for (size_t k = 0; k < dims.size(); ++k) t += (k ? "," : "") + std::to_string(dims[k]);
    return t;
  };
  const std::vector<std::vector<int64_t>> results = {{3, 2, 4}, {4, 6}, {6, 4}, {24}, {2, 12}};
  std::vector<int64_t> in{0, 1, 2};
  size_t pairs = 0;
  do {
    for (const std::vector<int64_t>& out_dims : results) {
      std::vector<int64_t> out(out_dims.size());
      for (size_t k = 0; k < out.size(); ++k) out[k] = static_cast<int64_t>(k);
      do {
        ir::Type from = ir::Type::array(ir::DType::kF32, {2, 3, 4});
        from.set_layout(ir::Layout{in, ""});
        ir::Type to = ir::Type::array(ir::DType::kF32, out_dims);
        to.set_layout(ir::Layout{out, ""});
        const auto steps = ir::bitcast_steps(from, to);
        REQUIRE(steps);
        std::vector<int64_t> memory_in;
        for (int64_t d : steps->to_memory) memory_in.push_back(from.dim(d));
        const std::string x = "  p = f32[2,3,4]" + layout_text(in) + " parameter(0)\n";
        const std::string bitcast =
            x + "  ROOT r = f32[" + dims_text(out_dims) + "]" + layout_text(out) + " bitcast(p)";
        const std::string chain =
            x + "  a = f32[" + dims_text(memory_in) + "] transpose(p), dimensions={" +
            dims_text(steps->to_memory) + "}\n  b = f32[" + dims_text(steps->memory_dims) +
            "] reshape(a)\n  ROOT r = f32[" + dims_text(out_dims) + "] transpose(b), dimensions={" +
            dims_text(steps->from_memory) + "}";
        INFO(bitcast);
        CHECK(data(eval_ok(module_with(bitcast), {iota({2, 3, 4})})) ==
              data(eval_ok(module_with(chain), {iota({2, 3, 4})})));
        ++pairs;
      } while (std::next_permutation(out.begin(), out.end()));
    }
  } while (std::next_permutation(in.begin(), in.end()));
  CHECK(pairs == 6 * (6 + 2 + 2 + 1 + 2));
}

TEST_CASE("shape ops: transpose with a 3-d permutation", "[eval]") {
  const Value r = eval_ok(module_with("  p = f32[2,3,4] parameter(0)\n"
                                      "  ROOT r = f32[4,2,3] transpose(p), dimensions={2,0,1}"),
                          {iota({2, 3, 4})});
  REQUIRE(r.tensor().dims == std::vector<int64_t>{4, 2, 3});
  // r[i,j,k] = p[j,k,i] = 12 j + 4 k + i
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t k = 0; k < 3; ++k) {
        const std::vector<int64_t> at{i, j, k};
        CHECK(r.tensor().at(at) == static_cast<double>(12 * j + 4 * k + i));
      }
    }
  }
  CHECK(data(r)[0] == 0);
  CHECK(data(r)[1] == 4);   // r[0,0,1] = p[0,1,0]
  CHECK(data(r)[3] == 12);  // r[0,1,0] = p[1,0,0]
}

TEST_CASE("shape ops: slice with strides", "[eval]") {
  CHECK(data(eval_ok(module_with("  p = f32[10] parameter(0)\n"
                                 "  ROOT r = f32[3] slice(p), slice={[1:8:3]}"),
                     {iota({10})})) == V{1, 4, 7});
  CHECK(data(eval_ok(module_with("  p = f32[3,4] parameter(0)\n"
                                 "  ROOT r = f32[2,2] slice(p), slice={[1:3], [0:4:2]}"),
                     {iota({3, 4})})) == V{4, 6, 8, 10});
}

TEST_CASE("shape ops: dynamic-slice and dynamic-update-slice clamp their starts", "[eval]") {
  const std::string ds = module_with(
      "  p = f32[5] parameter(0)\n  i = s32[] parameter(1)\n"
      "  ROOT r = f32[3] dynamic-slice(p, i), dynamic_slice_sizes={3}");
  CHECK(data(eval_ok(ds, {iota({5}), tensor({}, {1})})) == V{1, 2, 3});
  CHECK(data(eval_ok(ds, {iota({5}), tensor({}, {3})})) == V{2, 3, 4});   // 3 -> 2
  CHECK(data(eval_ok(ds, {iota({5}), tensor({}, {-4})})) == V{0, 1, 2});  // -4 -> 0
  const Value two_d =
      eval_ok(module_with("  p = f32[3,4] parameter(0)\n  i = s32[] parameter(1)\n"
                          "  j = s32[] parameter(2)\n"
                          "  ROOT r = f32[2,2] dynamic-slice(p, i, j), dynamic_slice_sizes={2,2}"),
              {iota({3, 4}), tensor({}, {2}), tensor({}, {1})});
  CHECK(data(two_d) == V{5, 6, 9, 10});  // start (2,1) clamped to (1,1)

  const std::string dus = module_with(
      "  p = f32[5] parameter(0)\n  u = f32[3] parameter(1)\n  i = s32[] parameter(2)\n"
      "  ROOT r = f32[5] dynamic-update-slice(p, u, i)");
  const Value zeros = tensor({5}, {0, 0, 0, 0, 0});
  CHECK(data(eval_ok(dus, {zeros, tensor({3}, {1, 2, 3}), tensor({}, {1})})) == V{0, 1, 2, 3, 0});
  CHECK(data(eval_ok(dus, {zeros, tensor({3}, {1, 2, 3}), tensor({}, {4})})) ==
        V{0, 0, 1, 2, 3});  // 4 -> 2
}

TEST_CASE("shape ops: concatenate along an inner dimension", "[eval]") {
  const Value r = eval_ok(module_with("  a = f32[2,1] parameter(0)\n  b = f32[2,2] parameter(1)\n"
                                      "  ROOT r = f32[2,3] concatenate(a, b), dimensions={1}"),
                          {tensor({2, 1}, {1, 2}), tensor({2, 2}, {10, 11, 20, 21})});
  CHECK(data(r) == V{1, 10, 11, 2, 20, 21});
}

TEST_CASE("shape ops: pad with negative and interior padding", "[eval]") {
  // interior 1: 1 p 2 p 3 p 4; low -1 drops the 1; high 2 appends p p.
  CHECK(data(eval_ok(module_with("  p = f32[4] parameter(0)\n  z = f32[] constant(-1)\n"
                                 "  ROOT r = f32[8] pad(p, z), padding=-1_2_1"),
                     {tensor({4}, {1, 2, 3, 4})})) == V{-1, 2, -1, 3, -1, 4, -1, -1});
  // Rows: one row of padding on top. Columns: a p b, then the last column cut by high = -1.
  CHECK(data(eval_ok(module_with("  p = f32[2,2] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[3,2] pad(p, z), padding=1_0_0x0_-1_1"),
                     {tensor({2, 2}, {1, 2, 3, 4})})) == V{0, 0, 1, 0, 3, 0});
  CHECK(data(eval_ok(module_with("  p = f32[3] parameter(0)\n  z = f32[] constant(0)\n"
                                 "  ROOT r = f32[1] pad(p, z), padding=-2_0"),
                     {tensor({3}, {1, 2, 3})})) == V{3});
}

TEST_CASE("shape ops: reverse and get-dimension-size", "[eval]") {
  CHECK(data(eval_ok(module_with("  p = f32[2,3] parameter(0)\n"
                                 "  ROOT r = f32[2,3] reverse(p), dimensions={0,1}"),
                     {iota({2, 3})})) == V{5, 4, 3, 2, 1, 0});
  CHECK(data(eval_ok(module_with("  p = f32[2,3] parameter(0)\n"
                                 "  ROOT r = f32[2,3] reverse(p), dimensions={1}"),
                     {iota({2, 3})})) == V{2, 1, 0, 5, 4, 3});
  CHECK(data(eval_ok(module_with("  p = f32[2,3] parameter(0)\n"
                                 "  ROOT r = s32[] get-dimension-size(p), dimensions={1}"),
                     {iota({2, 3})})) == V{3});
}
