// Contractions and reductions: dot (general, with batch and contracting dimensions), reduce
// (variadic) and reduce-window (variadic, with strides, padding and dilations).
#include <algorithm>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

/// The N inputs and N initial values of a variadic reduce or reduce-window, and the combiner.
struct Reduction {
  std::vector<const Tensor*> inputs;
  std::vector<double> inits;
  Combiner combiner;
};

std::optional<Diagnostic> read_reduction(const Op& op, Reduction& r) {
  if (op.arity() < 2 || op.arity() % 2 != 0) {
    return op.error(std::string(op.name()) + " takes N inputs and N initial values but has " +
                    std::to_string(op.arity()) + " operands");
  }
  for (size_t i = 0; i < op.arity(); ++i) {
    if (op.operands[i].is_tuple()) {
      return op.error("operand " + std::to_string(i) + " must be an array but is a tuple");
    }
  }
  const size_t n = op.arity() / 2;
  for (size_t i = 0; i < n; ++i) {
    const Tensor& in = op.operand(i);
    if (in.dims != op.operand(0).dims) {
      return op.error("input " + std::to_string(i) + " " + in.shape_string() +
                      " differs in shape from input 0 " + op.operand(0).shape_string());
    }
    if (op.operand(n + i).rank() != 0) {
      return op.error("initial value " + std::to_string(i) + " must be a scalar");
    }
    r.inputs.push_back(&in);
    r.inits.push_back(op.operand(n + i).data[0]);
  }
  const ir::Computation* f = op.callee("to_apply");
  if (!f) return op.error("needs to_apply= naming a computation");
  r.combiner = make_combiner(*f);
  if (n != 1) r.combiner.fast.reset();
  return std::nullopt;
}

/// N result tensors of `dims`, each filled with its initial value.
std::vector<Tensor> initial_results(const Reduction& r, const std::vector<int64_t>& dims) {
  std::vector<Tensor> out;
  for (double init : r.inits) out.push_back(Tensor::filled(dims, init));
  return out;
}

/// One tensor, or a tuple of N.
Value pack(std::vector<Tensor> results) {
  if (results.size() == 1) return std::move(results[0]);
  std::vector<Value> parts;
  for (Tensor& t : results) parts.emplace_back(std::move(t));
  return Value::tuple(std::move(parts));
}

/// Combines element `in_at` of every input into element `out_at` of every result.
std::optional<Diagnostic> accumulate(const Op& op, const Reduction& r, std::vector<Tensor>& results,
                                     size_t out_at, size_t in_at, std::vector<double>& acc,
                                     std::vector<double>& x) {
  for (size_t j = 0; j < r.inputs.size(); ++j) {
    acc[j] = results[j].data[out_at];
    x[j] = r.inputs[j]->data[in_at];
  }
  if (auto e = combine(op, r.combiner, acc, x)) return e;
  for (size_t j = 0; j < r.inputs.size(); ++j) results[j].data[out_at] = acc[j];
  return std::nullopt;
}

}  // namespace

Result eval_dot(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& lhs = op.operand(0);
  const Tensor& rhs = op.operand(1);
  const ir::DimList& lb = op.inst.dims_attr("lhs_batch_dims");
  const ir::DimList& rb = op.inst.dims_attr("rhs_batch_dims");
  const ir::DimList& lc = op.inst.dims_attr("lhs_contracting_dims");
  const ir::DimList& rc = op.inst.dims_attr("rhs_contracting_dims");
  if (lb.size() != rb.size() || lc.size() != rc.size()) {
    return op.error(
        "lhs and rhs must have as many batch dimensions, and as many contracting "
        "dimensions, as each other");
  }
  std::vector<int64_t> lhs_used(lb.begin(), lb.end()), rhs_used(rb.begin(), rb.end());
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  if (auto e = check_dims(op, "lhs_batch_dims+lhs_contracting_dims", lhs_used, lhs.rank())) {
    return *e;
  }
  if (auto e = check_dims(op, "rhs_batch_dims+rhs_contracting_dims", rhs_used, rhs.rank())) {
    return *e;
  }
  for (size_t i = 0; i < lhs_used.size(); ++i) {
    if (lhs.dims[static_cast<size_t>(lhs_used[i])] != rhs.dims[static_cast<size_t>(rhs_used[i])]) {
      return op.error("lhs dimension " + std::to_string(lhs_used[i]) + " and rhs dimension " +
                      std::to_string(rhs_used[i]) + " are paired but differ in size");
    }
  }
  // Result dimensions: batch, lhs free, rhs free. For each, the stride it moves in lhs and rhs.
  std::vector<int64_t> dims, lhs_step, rhs_step;
  const std::vector<int64_t> ls = row_major_strides(lhs.dims), rs = row_major_strides(rhs.dims);
  for (size_t i = 0; i < lb.size(); ++i) {
    dims.push_back(lhs.dims[static_cast<size_t>(lb[i])]);
    lhs_step.push_back(ls[static_cast<size_t>(lb[i])]);
    rhs_step.push_back(rs[static_cast<size_t>(rb[i])]);
  }
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (contains(lhs_used, d)) continue;
    dims.push_back(lhs.dims[static_cast<size_t>(d)]);
    lhs_step.push_back(ls[static_cast<size_t>(d)]);
    rhs_step.push_back(0);
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (contains(rhs_used, d)) continue;
    dims.push_back(rhs.dims[static_cast<size_t>(d)]);
    lhs_step.push_back(0);
    rhs_step.push_back(rs[static_cast<size_t>(d)]);
  }
  std::vector<int64_t> k_dims, k_lhs, k_rhs;  // the contracted index space
  for (size_t i = 0; i < lc.size(); ++i) {
    k_dims.push_back(lhs.dims[static_cast<size_t>(lc[i])]);
    k_lhs.push_back(ls[static_cast<size_t>(lc[i])]);
    k_rhs.push_back(rs[static_cast<size_t>(rc[i])]);
  }
  if (auto e = op.expect_result_dims(dims)) return *e;
  Tensor out{dims, {}};
  double per_element = 1;
  for (int64_t k : k_dims) per_element *= static_cast<double>(k);
  if (auto e = op.charge(per_element * static_cast<double>(out.element_count()))) return *e;
  out.data.reserve(static_cast<size_t>(out.element_count()));
  for_each_index(dims, [&](std::span<const int64_t> index) {
    int64_t l0 = 0, r0 = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      l0 += index[i] * lhs_step[i];
      r0 += index[i] * rhs_step[i];
    }
    double sum = 0;
    for_each_index(k_dims, [&](std::span<const int64_t> k) {
      int64_t l = l0, r = r0;
      for (size_t i = 0; i < k.size(); ++i) {
        l += k[i] * k_lhs[i];
        r += k[i] * k_rhs[i];
      }
      sum += lhs.data[static_cast<size_t>(l)] * rhs.data[static_cast<size_t>(r)];
    });
    out.data.push_back(sum);
  });
  normalize(out, op.type().dtype());
  return Value(std::move(out));
}

Result eval_reduce(const Op& op) {
  Reduction r;
  if (auto e = read_reduction(op, r)) return *e;
  const Tensor& in = *r.inputs[0];
  const ir::DimList& reduced = op.inst.dims_attr("dimensions");
  if (auto e = check_dims(op, "dimensions", reduced, in.rank())) return *e;
  std::vector<int64_t> kept, out_dims;
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (contains(reduced, d)) continue;
    kept.push_back(d);
    out_dims.push_back(in.dims[static_cast<size_t>(d)]);
  }
  if (auto e = op.expect_result_dims(out_dims)) return *e;
  std::vector<Tensor> results = initial_results(r, out_dims);
  const std::vector<int64_t> out_strides = row_major_strides(out_dims);
  // One pass over the inputs in row-major order: each result element sees its reduced elements
  // in row-major order of the reduced dimensions.
  std::vector<double> acc(r.inputs.size()), x(r.inputs.size());
  std::optional<Diagnostic> error;
  size_t in_at = 0;
  for_each_index(in.dims, [&](std::span<const int64_t> index) {
    if (error) return;
    int64_t out_at = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      out_at += index[static_cast<size_t>(kept[i])] * out_strides[i];
    }
    error = accumulate(op, r, results, static_cast<size_t>(out_at), in_at++, acc, x);
  });
  if (error) return *error;
  return pack(std::move(results));
}

Result eval_reduce_window(const Op& op) {
  Reduction r;
  if (auto e = read_reduction(op, r)) return *e;
  const Tensor& in = *r.inputs[0];
  const auto* window = op.inst.get<ir::Window>("window");
  if (!window || static_cast<int64_t>(window->dims.size()) != in.rank()) {
    return op.error("needs window={…} with one entry per dimension of " + in.shape_string());
  }
  std::vector<int64_t> out_dims, window_dims;
  for (size_t i = 0; i < window->dims.size(); ++i) {
    const ir::WindowDim& w = window->dims[i];
    if (w.size < 0 || w.stride <= 0 || w.lhs_dilate <= 0 || w.rhs_dilate <= 0) {
      return op.error("window dimension " + std::to_string(i) + " is invalid");
    }
    const int64_t n = in.dims[i];
    const int64_t dilated = n == 0 ? 0 : (n - 1) * w.lhs_dilate + 1;
    const int64_t padded = dilated + w.pad_low + w.pad_high;
    const int64_t extent = w.size == 0 ? 0 : (w.size - 1) * w.rhs_dilate + 1;
    out_dims.push_back(padded < extent ? 0 : (padded - extent) / w.stride + 1);
    window_dims.push_back(w.size);
  }
  if (auto e = op.expect_result_dims(out_dims)) return *e;
  double work = static_cast<double>(r.inputs.size());
  for (size_t i = 0; i < out_dims.size(); ++i) {
    work *= static_cast<double>(out_dims[i]) * static_cast<double>(window_dims[i]);
  }
  if (auto e = op.charge(work)) return *e;
  std::vector<Tensor> results = initial_results(r, out_dims);
  const std::vector<int64_t> in_strides = row_major_strides(in.dims);
  std::vector<double> acc(r.inputs.size()), x(r.inputs.size());
  std::optional<Diagnostic> error;
  size_t out_at = 0;
  for_each_index(out_dims, [&](std::span<const int64_t> o) {
    // Window positions in row-major order; those on padding or between dilated elements are
    // skipped, as XLA's evaluator does (with an identity initial value this is padding by it).
    for_each_index(window_dims, [&](std::span<const int64_t> w) {
      if (error) return;
      int64_t in_at = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        const ir::WindowDim& wd = window->dims[i];
        const int64_t p = o[i] * wd.stride + w[i] * wd.rhs_dilate - wd.pad_low;
        if (p < 0 || p % wd.lhs_dilate != 0 || p / wd.lhs_dilate >= in.dims[i]) return;
        in_at += p / wd.lhs_dilate * in_strides[i];
      }
      error = accumulate(op, r, results, out_at, static_cast<size_t>(in_at), acc, x);
    });
    ++out_at;
  });
  if (error) return *error;
  return pack(std::move(results));
}

}  // namespace scalify::eval::detail
