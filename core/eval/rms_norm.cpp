// AWS Neuron's RMS norm custom call (`custom_call_target="AwsNeuronRmsNorm"`), as
// transformers-neuronx emits it: operands x, weight (a vector along the normalised axis) and
// epsilon (a scalar), `backend_config` the axis as decimal digits ("2"). The result has x's type:
//   y = x * rsqrt(mean(x * x, axis) + epsilon) * weight      (weight broadcast along `axis`)
// computed in that order, in double precision like every op of the interpreter.
#include <cmath>

#include "eval/internal.h"
#include "ir/neuron_calls.h"

namespace scalify::eval::detail {

Result eval_rms_norm(const Op& op) {
  if (auto e = op.expect_arity(3)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& x = op.operand(0);
  const Tensor& w = op.operand(1);
  const Tensor& eps = op.operand(2);
  const std::optional<int64_t> found = ir::neuron_rms_norm_axis(op.inst);
  const int64_t axis = found ? *found : -1;
  if (axis < 0 || axis >= x.rank()) {
    return op.error("backend_config must name an axis of the operand (\"0\" … \"" +
                    std::to_string(x.rank() - 1) + "\")");
  }
  const int64_t n = x.dims[static_cast<size_t>(axis)];
  if (w.rank() != 1 || w.dims[0] != n) {
    return op.error("the weight must be a vector of " + std::to_string(n) + " elements");
  }
  if (eps.element_count() != 1) return op.error("epsilon must be a scalar");
  if (auto e = op.expect_result_dims(x.dims)) return *e;
  if (auto e = op.charge(3.0 * static_cast<double>(x.element_count()))) return *e;
  // Sum of squares per position of the other dimensions, then the scale per element.
  std::vector<int64_t> reduced = x.dims;
  reduced[static_cast<size_t>(axis)] = 1;
  Tensor sums = Tensor::filled(reduced, 0.0);
  Tensor out{x.dims, std::vector<double>(x.data.size())};
  std::vector<int64_t> at(x.dims.size());
  for_each_index(x.dims, [&](std::span<const int64_t> i) {
    std::copy(i.begin(), i.end(), at.begin());
    at[static_cast<size_t>(axis)] = 0;
    const double v = x.at(i);
    sums.data[static_cast<size_t>(sums.linear_index(at))] += v * v;
  });
  const double epsilon = eps.scalar_value();
  for_each_index(x.dims, [&](std::span<const int64_t> i) {
    std::copy(i.begin(), i.end(), at.begin());
    at[static_cast<size_t>(axis)] = 0;
    const double mean = sums.at(at) / static_cast<double>(n);
    const double scaled = x.at(i) * (1.0 / std::sqrt(mean + epsilon));
    out.data[static_cast<size_t>(out.linear_index(i))] =
        scaled * w.data[static_cast<size_t>(i[static_cast<size_t>(axis)])];
  });
  return Value(std::move(out));
}

}  // namespace scalify::eval::detail
