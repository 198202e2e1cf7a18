// Ops that move elements without computing new ones: iota, broadcast, reshape, bitcast,
// transpose, slice, dynamic-slice, dynamic-update-slice, concatenate, pad, reverse,
// get-dimension-size.
#include <algorithm>
#include <numeric>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

/// The start indices of dynamic-(update-)slice: operands from `first` on, either one scalar per
/// dimension or (the old form) one vector of `rank` entries.
std::optional<std::vector<int64_t>> start_indices(const Op& op, size_t first, int64_t rank,
                                                  Diagnostic& error) {
  std::vector<int64_t> starts;
  const size_t n = op.arity() - first;
  if (n == 1 && op.operand(first).rank() == 1 && op.operand(first).dims[0] == rank) {
    for (double x : op.operand(first).data) starts.push_back(to_index(x));
    return starts;
  }
  if (static_cast<int64_t>(n) != rank) {
    error = op.error("takes " + std::to_string(rank) +
                     " start indices (one per dimension) but has " + std::to_string(n));
    return std::nullopt;
  }
  for (size_t i = first; i < op.arity(); ++i) {
    if (op.operand(i).rank() != 0) {
      error = op.error("start index operand " + std::to_string(i) + " must be a scalar but is " +
                       op.operand(i).shape_string());
      return std::nullopt;
    }
    starts.push_back(to_index(op.operand(i).data[0]));
  }
  return starts;
}

/// A layout's major-to-minor order (the identity when there is none).
std::vector<int64_t> major_to_minor(const ir::Type& t) {
  std::vector<int64_t> order(static_cast<size_t>(t.rank()));
  std::iota(order.begin(), order.end(), 0);
  if (t.layout() && static_cast<int64_t>(t.layout()->minor_to_major.size()) == t.rank()) {
    order.assign(t.layout()->minor_to_major.rbegin(), t.layout()->minor_to_major.rend());
  }
  return order;
}

bool is_permutation_of_rank(std::span<const int64_t> perm, int64_t rank) {
  if (static_cast<int64_t>(perm.size()) != rank) return false;
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) return false;
    seen[static_cast<size_t>(p)] = true;
  }
  return true;
}

}  // namespace

Tensor transpose(const Tensor& t, std::span<const int64_t> perm) {
  Tensor out;
  for (int64_t p : perm) out.dims.push_back(t.dims[static_cast<size_t>(p)]);
  out.data.reserve(t.data.size());
  const std::vector<int64_t> strides = row_major_strides(t.dims);
  for_each_index(out.dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < perm.size(); ++i) at += index[i] * strides[static_cast<size_t>(perm[i])];
    out.data.push_back(t.data[static_cast<size_t>(at)]);
  });
  return out;
}

Result eval_iota(const Op& op) {
  if (auto e = op.expect_arity(0)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const std::optional<int64_t> dim = op.int_attr("iota_dimension");
  if (!dim || *dim < 0 || *dim >= op.type().rank()) {
    return op.error("needs iota_dimension= naming a dimension of " + op.type().to_string(false));
  }
  Tensor out{op.type().dims(), {}};
  for_each_index(out.dims, [&](std::span<const int64_t> index) {
    out.data.push_back(static_cast<double>(index[static_cast<size_t>(*dim)]));
  });
  normalize(out, op.type().dtype());
  return Value(std::move(out));
}

Result eval_broadcast(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& in = op.operand(0);
  const ir::DimList& dims = op.inst.dims_attr("dimensions");
  const std::vector<int64_t>& out_dims = op.type().dims();
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return op.error("dimensions=" + show(dims) +
                    " must name one result dimension per operand "
                    "dimension of " +
                    in.shape_string());
  }
  if (auto e = check_dims(op, "dimensions", dims, static_cast<int64_t>(out_dims.size()))) {
    return *e;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (in.dims[i] != out_dims[static_cast<size_t>(dims[i])]) {
      return op.error("operand dimension " + std::to_string(i) + " (" + std::to_string(in.dims[i]) +
                      ") differs from result dimension " + std::to_string(dims[i]));
    }
  }
  const std::vector<int64_t> strides = row_major_strides(in.dims);
  Tensor out{out_dims, {}};
  out.data.reserve(static_cast<size_t>(out.element_count()));
  for_each_index(out_dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      at += index[static_cast<size_t>(dims[i])] * strides[i];
    }
    out.data.push_back(in.data[static_cast<size_t>(at)]);
  });
  return Value(std::move(out));
}

Result eval_reshape(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  Tensor out{op.type().dims(), op.operand(0).data};
  if (out.element_count() != op.operand(0).element_count()) {
    return op.error("cannot reshape " + op.operand(0).shape_string() + " (" +
                    std::to_string(op.operand(0).element_count()) + " elements) to " +
                    op.type().to_string(false));
  }
  return Value(std::move(out));
}

Result eval_bitcast(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const ir::Type& from = op.operand_type(0);
  const ir::Type& to = op.type();
  if (from.dtype() != to.dtype()) {
    return op.unsupported("a bitcast that changes the element type reinterprets bits");
  }
  if (op.operand(0).element_count() != Tensor{to.dims(), {}}.element_count()) {
    return op.unsupported("a bitcast between different element counts");
  }
  // Bring the operand into its physical (memory) order, then read that memory with the
  // result's layout.
  const std::vector<int64_t> physical_from = major_to_minor(from);
  const std::vector<int64_t> physical_to = major_to_minor(to);
  const Tensor memory = transpose(op.operand(0), physical_from);
  Tensor result_in_memory_order;
  for (int64_t d : physical_to) result_in_memory_order.dims.push_back(to.dim(d));
  result_in_memory_order.data = memory.data;
  std::vector<int64_t> inverse(physical_to.size());
  for (size_t i = 0; i < physical_to.size(); ++i) {
    inverse[static_cast<size_t>(physical_to[i])] = static_cast<int64_t>(i);
  }
  return Value(transpose(result_in_memory_order, inverse));
}

Result eval_transpose(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const ir::DimList& perm = op.inst.dims_attr("dimensions");
  if (!is_permutation_of_rank(perm, op.operand(0).rank())) {
    return op.error("dimensions=" + show(perm) + " is not a permutation of the " +
                    std::to_string(op.operand(0).rank()) + " dimensions of the operand");
  }
  return Value(transpose(op.operand(0), perm));
}

Result eval_slice(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& in = op.operand(0);
  const auto* ranges = op.inst.get<std::vector<ir::SliceRange>>("slice");
  if (!ranges || static_cast<int64_t>(ranges->size()) != in.rank()) {
    return op.error("needs slice={…} with one range per dimension of " + in.shape_string());
  }
  Tensor out;
  for (size_t i = 0; i < ranges->size(); ++i) {
    const ir::SliceRange& r = (*ranges)[i];
    if (r.start < 0 || r.start > r.limit || r.limit > in.dims[i] || r.stride <= 0) {
      return op.error("slice range [" + std::to_string(r.start) + ":" + std::to_string(r.limit) +
                      ":" + std::to_string(r.stride) + "] does not fit dimension " +
                      std::to_string(i) + " of " + in.shape_string());
    }
    out.dims.push_back((r.limit - r.start + r.stride - 1) / r.stride);
  }
  if (auto e = op.expect_result_dims(out.dims)) return *e;
  const std::vector<int64_t> strides = row_major_strides(in.dims);
  for_each_index(out.dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      at += ((*ranges)[i].start + index[i] * (*ranges)[i].stride) * strides[i];
    }
    out.data.push_back(in.data[static_cast<size_t>(at)]);
  });
  return Value(std::move(out));
}

Result eval_dynamic_slice(const Op& op) {
  if (op.arity() < 1) return op.error("dynamic-slice needs an operand");
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& in = op.operand(0);
  const ir::DimList& sizes = op.inst.dims_attr("dynamic_slice_sizes");
  if (static_cast<int64_t>(sizes.size()) != in.rank()) {
    return op.error("dynamic_slice_sizes=" + show(sizes) + " needs one size per dimension of " +
                    in.shape_string());
  }
  Diagnostic error;
  std::optional<std::vector<int64_t>> starts = start_indices(op, 1, in.rank(), error);
  if (!starts) return error;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || sizes[i] > in.dims[i]) {
      return op.error("dynamic_slice_sizes=" + show(sizes) + " does not fit " + in.shape_string());
    }
    (*starts)[i] = std::clamp<int64_t>((*starts)[i], 0, in.dims[i] - sizes[i]);  // as XLA does
  }
  if (auto e = op.expect_result_dims(sizes)) return *e;
  const std::vector<int64_t> strides = row_major_strides(in.dims);
  Tensor out{sizes, {}};
  for_each_index(out.dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < index.size(); ++i) at += ((*starts)[i] + index[i]) * strides[i];
    out.data.push_back(in.data[static_cast<size_t>(at)]);
  });
  return Value(std::move(out));
}

Result eval_dynamic_update_slice(const Op& op) {
  if (op.arity() < 2) return op.error("dynamic-update-slice needs an operand and an update");
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& update = op.operand(1);
  Tensor out = op.operand(0);
  if (update.rank() != out.rank()) {
    return op.error("the update " + update.shape_string() + " and the operand " +
                    out.shape_string() + " differ in rank");
  }
  Diagnostic error;
  std::optional<std::vector<int64_t>> starts = start_indices(op, 2, out.rank(), error);
  if (!starts) return error;
  for (size_t i = 0; i < out.dims.size(); ++i) {
    if (update.dims[i] > out.dims[i]) {
      return op.error("the update " + update.shape_string() + " does not fit in " +
                      out.shape_string());
    }
    (*starts)[i] = std::clamp<int64_t>((*starts)[i], 0, out.dims[i] - update.dims[i]);
  }
  const std::vector<int64_t> strides = row_major_strides(out.dims);
  size_t next = 0;
  for_each_index(update.dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < index.size(); ++i) at += ((*starts)[i] + index[i]) * strides[i];
    out.data[static_cast<size_t>(at)] = update.data[next++];
  });
  return Value(std::move(out));
}

Result eval_concatenate(const Op& op) {
  if (op.arity() < 1) return op.error("concatenate needs operands");
  if (auto e = op.expect_tensors()) return *e;
  const ir::DimList& dims = op.inst.dims_attr("dimensions");
  const int64_t rank = op.operand(0).rank();
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= rank) {
    return op.error("needs dimensions={d} naming one dimension of the operands");
  }
  const auto d = static_cast<size_t>(dims[0]);
  Tensor out{op.operand(0).dims, {}};
  out.dims[d] = 0;
  for (size_t k = 0; k < op.arity(); ++k) {
    const Tensor& in = op.operand(k);
    for (size_t i = 0; i < static_cast<size_t>(rank); ++i) {
      if (in.rank() != rank || (i != d && in.dims[i] != out.dims[i])) {
        return op.error("operand " + std::to_string(k) + " " + in.shape_string() +
                        " does not match operand 0 " + op.operand(0).shape_string() +
                        " outside dimension " + std::to_string(d));
      }
    }
    out.dims[d] += in.dims[d];
  }
  if (auto e = op.expect_result_dims(out.dims)) return *e;
  out.data.assign(static_cast<size_t>(out.element_count()), 0.0);
  const std::vector<int64_t> strides = row_major_strides(out.dims);
  int64_t offset = 0;
  for (size_t k = 0; k < op.arity(); ++k) {
    const Tensor& in = op.operand(k);
    size_t next = 0;
    for_each_index(in.dims, [&](std::span<const int64_t> index) {
      int64_t at = offset * strides[d];
      for (size_t i = 0; i < index.size(); ++i) at += index[i] * strides[i];
      out.data[static_cast<size_t>(at)] = in.data[next++];
    });
    offset += in.dims[d];
  }
  return Value(std::move(out));
}

Result eval_pad(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& in = op.operand(0);
  if (op.operand(1).rank() != 0) return op.error("the padding value must be a scalar");
  const auto* config = op.inst.get<ir::PaddingConfig>("padding");
  if (!config || static_cast<int64_t>(config->size()) != in.rank()) {
    return op.error("needs padding= with one entry per dimension of " + in.shape_string());
  }
  Tensor out;
  for (size_t i = 0; i < config->size(); ++i) {
    const ir::PadDim& p = (*config)[i];
    const int64_t n = in.dims[i];
    const int64_t size = p.low + p.high + (n == 0 ? 0 : n + (n - 1) * p.interior);
    if (p.interior < 0 || size < 0) {
      return op.error("padding of dimension " + std::to_string(i) + " (" + std::to_string(p.low) +
                      "_" + std::to_string(p.high) + "_" + std::to_string(p.interior) +
                      ") is invalid for size " + std::to_string(n));
    }
    out.dims.push_back(size);
  }
  if (auto e = op.expect_result_dims(out.dims)) return *e;
  out.data.assign(static_cast<size_t>(out.element_count()), op.operand(1).data[0]);
  const std::vector<int64_t> strides = row_major_strides(out.dims);
  size_t next = 0;
  for_each_index(in.dims, [&](std::span<const int64_t> index) {
    const double x = in.data[next++];
    int64_t at = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      const ir::PadDim& p = (*config)[i];
      const int64_t pos = p.low + index[i] * (p.interior + 1);
      if (pos < 0 || pos >= out.dims[i]) return;  // cut away by negative padding
      at += pos * strides[i];
    }
    out.data[static_cast<size_t>(at)] = x;
  });
  return Value(std::move(out));
}

Result eval_reverse(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& in = op.operand(0);
  const ir::DimList& dims = op.inst.dims_attr("dimensions");
  if (auto e = check_dims(op, "dimensions", dims, in.rank())) return *e;
  const std::vector<int64_t> strides = row_major_strides(in.dims);
  Tensor out{in.dims, {}};
  out.data.reserve(in.data.size());
  for_each_index(in.dims, [&](std::span<const int64_t> index) {
    int64_t at = 0;
    for (size_t i = 0; i < index.size(); ++i) {
      const bool flip = contains(dims, static_cast<int64_t>(i));
      at += (flip ? in.dims[i] - 1 - index[i] : index[i]) * strides[i];
    }
    out.data.push_back(in.data[static_cast<size_t>(at)]);
  });
  return Value(std::move(out));
}

Result eval_get_dimension_size(const Op& op) {
  if (auto e = op.expect_arity(1)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const ir::DimList& dims = op.inst.dims_attr("dimensions");
  if (dims.size() != 1 || dims[0] < 0 || dims[0] >= op.operand(0).rank()) {
    return op.error("needs dimensions={d} naming a dimension of the operand");
  }
  return Value(
      Tensor::scalar(static_cast<double>(op.operand(0).dims[static_cast<size_t>(dims[0])])));
}

}  // namespace scalify::eval::detail
