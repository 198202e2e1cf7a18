// gather and scatter: rows, 2-d windows, clamping, batching dimensions, duplicate indices,
// skipped windows and called combiners.
#include <catch2/catch.hpp>

#include "core/eval/eval_test_support.h"

using namespace scalify;
using namespace scalify::eval;
using namespace scalify::eval::testing;

namespace {

using V = std::vector<double>;

// Replaces the operand's element by the update (not a binary op: called per element).
const char* const kAssign =
    "assign {\n  x = f32[] parameter(0)\n  ROOT y = f32[] parameter(1)\n}\n\n";

}  // namespace

TEST_CASE("gather: rows of a matrix", "[eval]") {
  const Value r = eval_ok(
      module_with("  t = f32[3,2] parameter(0)\n  i = s32[2] parameter(1)\n"
                  "  ROOT r = f32[2,2] gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, "
                  "start_index_map={0}, index_vector_dim=1, slice_sizes={1,2}"),
      {tensor({3, 2}, {1, 2, 3, 4, 5, 6}), tensor({2}, {2, 0})});
  CHECK(data(r) == V{5, 6, 1, 2});
}

TEST_CASE("gather: 2-d windows, the second clamped into the operand", "[eval]") {
  const Value r =
      eval_ok(module_with("  t = f32[4,4] parameter(0)\n  i = s32[2,2] parameter(1)\n"
                          "  ROOT r = f32[2,2,2] gather(t, i), offset_dims={1,2}, "
                          "collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, "
                          "slice_sizes={2,2}"),
              {iota({4, 4}), tensor({2, 2}, {1, 1, 3, 2})});
  // Window at (1,1): 5 6 / 9 10. Window at (3,2) is clamped to (2,2): 10 11 / 14 15.
  CHECK(data(r) == V{5, 6, 9, 10, 10, 11, 14, 15});
}

TEST_CASE("gather: index vector in dimension 0, start_index_map permuting dimensions", "[eval]") {
  // indices[0][i][j] picks operand dim 1, indices[1][i][j] operand dim 0.
  const Value r =
      eval_ok(module_with("  t = f32[3,2] parameter(0)\n  i = s32[2,1,2] parameter(1)\n"
                          "  ROOT r = f32[1,2] gather(t, i), offset_dims={}, "
                          "collapsed_slice_dims={0,1}, start_index_map={1,0}, index_vector_dim=0, "
                          "slice_sizes={1,1}"),
              {tensor({3, 2}, {1, 2, 3, 4, 5, 6}), tensor({2, 1, 2}, {1, 0, 2, 1})});
  // (row 2, col 1) = 6 and (row 1, col 0) = 3.
  CHECK(data(r) == V{6, 3});
}

TEST_CASE("gather: batching dimensions pair operand and indices", "[eval]") {
  const Value r = eval_ok(
      module_with("  t = f32[2,3] parameter(0)\n  i = s32[2] parameter(1)\n"
                  "  ROOT r = f32[2] gather(t, i), offset_dims={}, collapsed_slice_dims={1}, "
                  "operand_batching_dims={0}, start_indices_batching_dims={0}, "
                  "start_index_map={1}, index_vector_dim=1, slice_sizes={1,1}"),
      {tensor({2, 3}, {1, 2, 3, 4, 5, 6}), tensor({2}, {2, 0})});
  CHECK(data(r) == V{3, 4});  // t[0,2], t[1,0]
}

TEST_CASE("scatter: add with duplicate indices accumulates", "[eval]") {
  const Value r =
      eval_ok(module_with("  t = f32[4] parameter(0)\n  i = s32[3,1] parameter(1)\n"
                          "  u = f32[3] parameter(2)\n"
                          "  ROOT r = f32[4] scatter(t, i, u), update_window_dims={}, "
                          "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                          "index_vector_dim=1, to_apply=add",
                          kAdd),
              {tensor({4}, {1, 1, 1, 1}), tensor({3, 1}, {1, 3, 1}), tensor({3}, {10, 20, 30})});
  CHECK(data(r) == V{1, 41, 1, 21});
}

TEST_CASE("scatter: rows replaced by a called combiner; a window out of bounds is skipped",
          "[eval]") {
  const Value r =
      eval_ok(module_with("  t = f32[3,2] parameter(0)\n  i = s32[3] parameter(1)\n"
                          "  u = f32[3,2] parameter(2)\n"
                          "  ROOT r = f32[3,2] scatter(t, i, u), update_window_dims={1}, "
                          "inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, "
                          "index_vector_dim=1, to_apply=assign",
                          kAssign),
              {tensor({3, 2}, {0, 0, 0, 0, 0, 0}), tensor({3}, {1, 5, -1}),
               tensor({3, 2}, {1, 2, 3, 4, 5, 6})});
  CHECK(data(r) == V{0, 0, 1, 2, 0, 0});
}

TEST_CASE("scatter: 2-d update windows and batching dimensions", "[eval]") {
  // Add a 2x2 block of ones at (1,2) of a 3x4 zero matrix; the block at (2,3) does not fit.
  const Value block = eval_ok(
      module_with("  t = f32[3,4] parameter(0)\n  i = s32[2,2] parameter(1)\n"
                  "  u = f32[2,2,2] parameter(2)\n"
                  "  ROOT r = f32[3,4] scatter(t, i, u), update_window_dims={1,2}, "
                  "inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, "
                  "index_vector_dim=1, to_apply=add",
                  kAdd),
      {Tensor::filled({3, 4}, 0), tensor({2, 2}, {1, 2, 2, 3}), Tensor::filled({2, 2, 2}, 1)});
  CHECK(data(block) == V{0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1});
  // Row b of the operand gets the update at column i[b].
  const Value batched =
      eval_ok(module_with("  t = f32[2,3] parameter(0)\n  i = s32[2] parameter(1)\n"
                          "  u = f32[2] parameter(2)\n"
                          "  ROOT r = f32[2,3] scatter(t, i, u), update_window_dims={}, "
                          "inserted_window_dims={1}, input_batching_dims={0}, "
                          "scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, "
                          "index_vector_dim=1, to_apply=add",
                          kAdd),
              {Tensor::filled({2, 3}, 0), tensor({2}, {2, 0}), tensor({2}, {7, 8})});
  CHECK(data(batched) == V{0, 0, 7, 8, 0, 0});
}
