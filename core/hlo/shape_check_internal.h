// Shared helpers of the result-type checks (shape_check*.cpp); not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace scalify::hlo::shape_check {

/// A message for the user, or nullopt when the instruction is consistent (or not checked).
using Msg = std::optional<std::string>;

/// The instruction under check, with its operands and called computations at hand.
struct Op {
  const ir::Module& module;
  const ir::Computation& comp;
  const ir::Instruction& instr;

  std::string_view name() const { return ir::opcode_name(instr.opcode); }
  size_t arity() const { return instr.operands.size(); }
  /// Operand i's type (the dispatcher has checked that every operand id is in range).
  const ir::Type& operand(size_t i) const { return comp[instr.operands[i]].type; }
  const ir::Type& result() const { return instr.type; }
  /// The computation named by attribute `key` (`to_apply=%add`, `body=…`), the `index`-th when the
  /// attribute lists several; nullptr when absent, unresolved or without a ROOT. Resolved by name
  /// so that a check never depends on the order in which attributes were written.
  const ir::Computation* callee(std::string_view key, size_t index = 0) const;
  /// Number of computations the attribute `key` names (0 when absent).
  size_t callee_count(std::string_view key) const;
};

// ---- comparing and printing types ----

/// XLA's ShapeUtil::Compatible: same kind, element types and dimension sizes; layouts and the
/// dynamic/static flag of a dimension are ignored (bounded dims compare by their bound).
bool same_type(const ir::Type& a, const ir::Type& b);
/// Arrays of equal dimension sizes, whatever their element types.
bool same_dims(const ir::Type& a, const ir::Type& b);
/// The type as the user would write it, without layout: "f32[8,4]".
std::string show(const ir::Type& t);
/// "{0,2}"
std::string show(const ir::DimList& dims);
/// An array of `dtype` with `dims`.
ir::Type array(ir::DType dtype, std::vector<int64_t> dims);
/// True if `t` (or any tuple element) has an unbounded dynamic dimension (`?`).
bool has_unbounded(const ir::Type& t);

// ---- common verdicts ----

/// "<op> result should be <expected> but is declared <declared>", or nullopt when they agree.
Msg expect_result(const Op& op, const ir::Type& expected);
/// As expect_result, but only dimensions are compared (element type is free).
Msg expect_result_dims(const Op& op, const std::vector<int64_t>& dims);
/// "<op> takes N operands but has M" unless arity() == n.
Msg expect_arity(const Op& op, size_t n);
/// "<op> takes at least N operands …" unless arity() >= n.
Msg expect_min_arity(const Op& op, size_t n);
/// A message unless operand i is an array.
Msg expect_array_operand(const Op& op, size_t i);
/// A message unless every operand is an array.
Msg expect_array_operands(const Op& op);
/// A message unless the result is an array.
Msg expect_array_result(const Op& op);
/// "<op>: <text>"
std::string say(const Op& op, std::string_view text);
/// "1 entry", "3 entries": `n` and the noun in the right number.
std::string count(size_t n, std::string_view singular, std::string_view plural);

// ---- attribute helpers ----

/// The integer attribute `key`, or nullopt.
std::optional<int64_t> int_attr(const Op& op, std::string_view key);
/// Checks that every entry of the dimension list `key` lies in [0, rank); with `unique`, that
/// none repeats; with `sorted`, that they ascend. Returns a message naming the attribute.
Msg check_dims_in_range(const Op& op, std::string_view key, const ir::DimList& dims, int64_t rank,
                        bool unique, bool sorted = false);
/// True if `v` contains `x`.
bool contains(const std::vector<int64_t>& v, int64_t x);

// ---- overflow-safe arithmetic (sizes come from user text) ----
std::optional<int64_t> checked_add(int64_t a, int64_t b);
std::optional<int64_t> checked_mul(int64_t a, int64_t b);
/// XLA's window output size: floor((bound - window) / stride) + 1, or 0 when the window does not
/// fit; nullopt on a non-positive stride or overflow.
std::optional<int64_t> window_output(int64_t base, int64_t size, int64_t stride, int64_t pad_low,
                                     int64_t pad_high, int64_t base_dilation,
                                     int64_t window_dilation);

// ---- the checks, by op family (each assumes the dispatcher's operand-range check) ----

// shape_check_elementwise.cpp
Msg check_unary(const Op& op);
Msg check_binary(const Op& op);
Msg check_compare(const Op& op);
Msg check_convert(const Op& op);
Msg check_bitcast_convert(const Op& op);
Msg check_select(const Op& op);
Msg check_clamp(const Op& op);
Msg check_complex_parts(const Op& op);                    // is-finite, real, imag
Msg check_same_as_operand(const Op& op, size_t operand);  // copy, opt-barrier, add-dependency, …

// shape_check_layout_ops.cpp
Msg check_broadcast(const Op& op);
Msg check_reshape(const Op& op);
Msg check_transpose(const Op& op);
Msg check_slice(const Op& op);
Msg check_concatenate(const Op& op);
Msg check_pad(const Op& op);
Msg check_iota(const Op& op);
Msg check_reverse(const Op& op);
Msg check_dynamic_slice(const Op& op);
Msg check_dynamic_update_slice(const Op& op);

// shape_check_compute.cpp
Msg check_dot(const Op& op);
Msg check_convolution(const Op& op);
Msg check_reduce(const Op& op);
Msg check_reduce_window(const Op& op);
Msg check_select_and_scatter(const Op& op);
Msg check_sort(const Op& op);

// shape_check_gather.cpp
Msg check_gather(const Op& op);
Msg check_scatter(const Op& op);

// shape_check_collectives.cpp
Msg check_all_reduce(const Op& op);  // all-reduce, all-reduce-start, collective-broadcast
Msg check_all_gather(const Op& op);  // all-gather, all-gather-start
Msg check_reduce_scatter(const Op& op);
Msg check_all_to_all(const Op& op);
Msg check_collective_permute(const Op& op);  // and -start
Msg check_done(const Op& op);  // *-done: element 1 of the start's tuple (copy-done: element 0)

// shape_check_control.cpp
Msg check_tuple(const Op& op);
Msg check_get_tuple_element(const Op& op);
Msg check_call(const Op& op);  // call, fusion
Msg check_while(const Op& op);
Msg check_conditional(const Op& op);
Msg check_async_start(const Op& op);

}  // namespace scalify::hlo::shape_check
