// Shared pieces of the interpreter's op implementations (eval/*.cpp); not part of the public API.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eval/evaluator.h"
#include "eval/value.h"
#include "ir/module.h"
#include "support/expected.h"

namespace scalify::eval::detail {

using Result = Expected<Value>;

/// The state of one evaluation: its module, limits and the work done so far.
struct Run {
  const ir::Module& module;
  const EvalOptions& options;
  int64_t steps = 0;
  double work = 0;  ///< see EvalOptions::max_work
  int depth = 0;
};

/// The instruction being evaluated, with its operands' values (already checked against the
/// operands' declared types) and the means to report errors and call computations.
struct Op {
  Run& run;
  const ir::Computation& comp;
  const ir::Instruction& inst;
  std::span<const Value> operands;

  size_t arity() const { return operands.size(); }
  /// Operand i's tensor; expect_tensors() (or is_tuple()) must have been consulted.
  const Tensor& operand(size_t i) const { return operands[i].tensor(); }
  /// Operand i's declared type.
  const ir::Type& operand_type(size_t i) const { return comp[inst.operands[i]].type; }
  /// The declared result type.
  const ir::Type& type() const { return inst.type; }
  /// "dot", "all-reduce", …
  std::string_view name() const { return ir::opcode_name(inst.opcode); }

  /// An error at this instruction: "'name': message".
  Diagnostic error(std::string message) const;
  /// "evaluation of 'sort' is not supported" (plus `why`, if any, after a colon).
  Diagnostic unsupported(std::string_view why = {}) const;
  /// An error unless the op has `n` operands.
  std::optional<Diagnostic> expect_arity(size_t n) const;
  /// An error unless every operand is a tensor (not a tuple).
  std::optional<Diagnostic> expect_tensors() const;
  /// An error unless the declared result is an array of `dims`, or a tuple of such arrays:
  /// checked before a result computed from attributes is allocated (the declared type is
  /// within the element limit; attributes of a module read without shape checks need not be).
  std::optional<Diagnostic> expect_result_dims(std::span<const int64_t> dims) const;

  /// Counts `amount` against EvalOptions::max_work; an error once it is exceeded.
  std::optional<Diagnostic> charge(double amount) const;

  /// The integer attribute `key`, if present.
  std::optional<int64_t> int_attr(std::string_view key) const;
  /// The computation the attribute `key` names (its `index`-th entry), or nullptr.
  const ir::Computation* callee(std::string_view key, size_t index = 0) const;
  /// Evaluates `callee` on `args` (counted against the limits of this evaluation).
  Result call(const ir::Computation& callee, std::span<const Value> args) const;
};

// ---- evaluator.cpp ----

/// Evaluates `comp` on `args` within `run` (arguments checked against its parameters).
Result run_computation(Run& run, const ir::Computation& comp, std::span<const Value> args);
/// True when `v` has the structure and dimensions of `t` (element types are not stored).
bool matches(const Value& v, const ir::Type& t);
/// `v`'s shape written with `t`'s element types where they line up: "f32[2,3]".
std::string describe(const Value& v, const ir::Type& t);

// ---- scalar.cpp: numbers of a given element type ----

/// `x` as a value of type `t`: integers wrap to their width (two's complement), pred is 0 or 1,
/// floats are unchanged.
double normalize(double x, ir::DType t);
void normalize(Tensor& t, ir::DType dtype);
/// Whether `op` is a binary elementwise opcode that apply_binary() computes on elements of `t`.
bool has_binary(ir::Opcode op, ir::DType t);
/// `x op y` for a binary elementwise opcode, with the result normalised to `t`.
double apply_binary(ir::Opcode op, ir::DType t, double x, double y);
/// `op x` for a unary elementwise opcode on an element of type `t` (NaN where the op does not
/// apply: see unary_type_error).
double apply_unary(ir::Opcode op, ir::DType t, double x);
/// Why the binary `op` cannot apply to elements of `t` ("it needs integers or pred"), or "".
std::string binary_type_error(ir::Opcode op, ir::DType t);
/// Why the unary `op` cannot apply to elements of `t`, or "".
std::string unary_type_error(ir::Opcode op, ir::DType t);

// ---- elementwise.cpp: elementwise ops on tensors ----

Result eval_unary(const Op& op);    // kUnary family (abs, negate, exponential, copy, …)
Result eval_binary(const Op& op);   // kBinary family (add, …, shift-right-logical)
Result eval_compare(const Op& op);  // compare
Result eval_convert(const Op& op);  // convert
Result eval_select(const Op& op);   // select
Result eval_clamp(const Op& op);    // clamp
Result eval_is_finite(const Op& op);

// ---- shape_ops.cpp: moving elements around ----

/// `t` with its dimensions permuted: result dimension i is dimension perm[i] of `t`.
Tensor transpose(const Tensor& t, std::span<const int64_t> perm);

Result eval_iota(const Op& op);
Result eval_broadcast(const Op& op);
Result eval_reshape(const Op& op);
Result eval_bitcast(const Op& op);
Result eval_transpose(const Op& op);
Result eval_slice(const Op& op);
Result eval_dynamic_slice(const Op& op);
Result eval_dynamic_update_slice(const Op& op);
Result eval_concatenate(const Op& op);
Result eval_pad(const Op& op);
Result eval_reverse(const Op& op);
Result eval_get_dimension_size(const Op& op);

// ---- dot_reduce.cpp ----
Result eval_dot(const Op& op);
Result eval_reduce(const Op& op);
Result eval_reduce_window(const Op& op);

// ---- convolution.cpp ----
Result eval_convolution(const Op& op);

// ---- gather_scatter.cpp ----
Result eval_gather(const Op& op);
Result eval_scatter(const Op& op);

// ---- control.cpp: tuples and called computations ----
Result eval_tuple(const Op& op);
Result eval_get_tuple_element(const Op& op);
Result eval_call(const Op& op);  // call (to_apply) and fusion (calls)
Result eval_map(const Op& op);
Result eval_while(const Op& op);
Result eval_conditional(const Op& op);
Result eval_custom_call(const Op& op);

// ---- rms_norm.cpp ----
Result eval_rms_norm(const Op& op);  // custom-call AwsNeuronRmsNorm

// ---- helpers shared by the families ----

/// The computation that reduce, reduce-window, scatter and map-like ops apply to scalars. When it
/// is one binary op of its two scalar parameters (add, multiply, maximum, minimum, and, or, …)
/// it is applied directly ("the fast path") instead of being called per element; both ways give
/// the same numbers.
struct Combiner {
  const ir::Computation* comp = nullptr;
  std::optional<ir::Opcode> fast;     ///< the binary op of the fast path
  ir::DType dtype = ir::DType::kF32;  ///< the fast path's result type
};
Combiner make_combiner(const ir::Computation& c);
/// Combines `acc` (N scalars) with `x` (N scalars): acc = combiner(acc..., x...).
std::optional<Diagnostic> combine(const Op& op, const Combiner& c, std::span<double> acc,
                                  std::span<const double> x);

/// Calls `f(index)` for every multi-index of `dims` in row-major order (never for an empty
/// shape; once, with an empty index, for a scalar).
template <class F>
void for_each_index(std::span<const int64_t> dims, F&& f) {
  for (int64_t d : dims) {
    if (d <= 0) return;
  }
  std::vector<int64_t> index(dims.size(), 0);
  do {
    f(std::span<const int64_t>(index));
  } while (next_index(index, dims));
}

/// True if `v` contains `x`.
bool contains(std::span<const int64_t> v, int64_t x);
/// An error unless `dims` are distinct and in [0, rank), naming the attribute `key`.
std::optional<Diagnostic> check_dims(const Op& op, std::string_view key,
                                     std::span<const int64_t> dims, int64_t rank);
/// "{0,2}"
std::string show(std::span<const int64_t> dims);
/// An integer element (an index) as int64, saturated.
int64_t to_index(double x);

}  // namespace scalify::eval::detail
