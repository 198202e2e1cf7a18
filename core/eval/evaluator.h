// The reference interpreter: evaluates HLO computations on small tensors, in double precision.
//
// It exists to check things numerically: both sides of a rewrite rule evaluated on the same
// random inputs must agree, and small modules in tests must compute what they should. Clarity
// and XLA's exact semantics matter more than speed (but nothing is quadratic in the element
// count). Every number is a double whatever the element type: floating-point results are not
// rounded to f32/bf16/…; integer results wrap to their width as two's complement (exact up to
// 2^53); pred results are 0 or 1.
//
// Supported: parameter, constant, iota, broadcast, reshape, bitcast (a reinterpretation through
// the layouts, same element type only), transpose, copy, convert, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, select, clamp, compare, tuple,
// get-tuple-element, get-dimension-size, every elementwise op of opcode.h that makes sense on
// real numbers (arithmetic, logic and shifts on integers and pred, exp/log/trigonometric/rounding
// families, is-finite, erf), dot, convolution, reduce (variadic), reduce-window, map, call,
// fusion, while, conditional, gather, scatter (with batching dimensions), opt-barrier,
// add-dependency, domain, after-all (a token is the empty tuple), the custom calls known to
// be identities (`Sharding`, `AwsNeuronTransferWithStaticRing`) and AWS Neuron's RMS norm
// (`AwsNeuronRmsNorm`: x, weight, epsilon; backend_config the axis; see rms_norm.cpp). Bounded
// dynamic dimensions (`<=N`) are evaluated at their bound.
// Not supported (a clear error): collectives and partition-id/replica-id (they need the ranks),
// other custom calls, sort, top-k, fft, linear algebra (cholesky, triangular-solve), ragged-dot,
// select-and-scatter, batch-norm ops, random numbers, complex numbers, bitcast-convert,
// reduce-precision, send/recv/infeed/outfeed, async wrappers, convolution with
// batch_group_count > 1, and unbounded dynamic dimensions (`?`).
//
// XLA leaves a few results implementation-defined; this interpreter chooses:
// - integer x / 0 is -1 (all bits set: the largest value for unsigned types) and x % 0 is x;
//   INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0 (what XLA's CPU and GPU backends compute);
// - an integer x to a negative power is trunc(1 / x^n): 1 for x = 1, ±1 for x = -1, else 0;
// - float to integer conversion truncates toward zero and saturates at the type's range; NaN
//   gives 0;
// - shifts by a negative amount or by at least the bit width give 0 (and -1 for an arithmetic
//   right shift of a negative number);
// - a scatter update window that does not fit in the operand entirely is skipped entirely;
//   gather and dynamic-(update-)slice clamp their start indices so that the slice fits;
// - scatter and reduce combine in row-major order of the updates / reduced elements;
// - reduce-window (like XLA's own evaluator) skips window positions on padding, which equals
//   padding with the initial value when that is the combiner's identity.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "eval/value.h"
#include "ir/module.h"
#include "support/expected.h"

namespace scalify::eval {

/// Limits that keep every evaluation finite and its memory small.
struct EvalOptions {
  /// Iterations of one `while` loop before the evaluation fails.
  int64_t max_while_iterations = 10'000;
  /// Elements of one instruction's result (all tuple parts together).
  int64_t max_elements = int64_t{1} << 24;
  /// Instructions evaluated in all (called computations included, once per call).
  int64_t max_steps = 50'000'000;
  /// Multiply-adds of dot and convolution and window elements of reduce-window, in all (about
  /// 10^9 a few seconds): a huge contraction is refused before it starts.
  double max_work = 4e9;
  /// Depth of nested calls (call, while, map, reduce's to_apply, …).
  int max_call_depth = 64;
  /// Labels diagnostics ("model.hlo:12:3: error: …"); the IR does not remember file names.
  std::string file_name;
};

/// Evaluates computation `comp` of `m` on `args` (one per parameter, in parameter order, each
/// shaped as its parameter's type). An error names the instruction, with its position, and says
/// what is unsupported or wrong.
///
///   auto m = hlo::read_module("HloModule m\nENTRY e {\n  p = f32[2] parameter(0)\n"
///                             "  ROOT n = f32[2] negate(p)\n}\n");
///   std::vector<Value> args = {Tensor{{2}, {1, -2}}};
///   Expected<Value> r = evaluate(*m, m->entry_id, args);
///   r->tensor().data == std::vector<double>{-1, 2};
///   // With f32[3] passed instead: "<input>:3:3: error: argument 0 has shape f32[3],
///   //   parameter 'p' expects f32[2]"
Expected<Value> evaluate(const ir::Module& m, ir::CompId comp, std::span<const Value> args,
                         const EvalOptions& options = {});

/// Evaluates the single instruction `inst` of computation `c` on the values of its operands
/// (in operand order). Called computations (to_apply, body, …) come from `m`. A parameter has no
/// value here: evaluating one is an error.
///
///   const ir::Computation& e = m->entry();
///   const ir::Instruction& n = e[*e.find("n")];
///   std::vector<Value> operands = {Tensor{{2}, {1, -2}}};
///   evaluate_instruction(*m, e, n, operands)->tensor().data;   // {-1, 2}
Expected<Value> evaluate_instruction(const ir::Module& m, const ir::Computation& c,
                                     const ir::Instruction& inst, std::span<const Value> operands,
                                     const EvalOptions& options = {});

}  // namespace scalify::eval
