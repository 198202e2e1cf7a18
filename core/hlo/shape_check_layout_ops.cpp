// Result types of ops that move data without computing on it: broadcast, reshape, transpose,
// slice, concatenate, pad, iota, reverse, dynamic-slice, dynamic-update-slice.
#include <algorithm>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

/// The result's element type must be the operand's: these ops never convert.
Msg expect_dtype_of(const Op& op, const ir::Type& source) {
  if (!op.result().is_array() || op.result().dtype() == source.dtype()) return std::nullopt;
  ir::Type expected = op.result();
  expected.set_dtype(source.dtype());
  return expect_result(op, expected);
}

std::optional<int64_t> element_count(const ir::Type& t) {
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    std::optional<int64_t> m = checked_mul(n, d);
    if (!m) return std::nullopt;
    n = *m;
  }
  return n;
}

/// Start indices of dynamic-slice / dynamic-update-slice, operands [first, arity): either one
/// integer scalar per dimension of `operand`, or (the older form) one integer vector.
Msg check_start_indices(const Op& op, size_t first, const ir::Type& operand) {
  const size_t count = op.arity() - first;
  for (size_t i = first; i < op.arity(); ++i) {
    if (Msg m = expect_array_operand(op, i)) return m;
    if (!ir::is_integer(op.operand(i).dtype())) {
      return say(op, "start index operand " + std::to_string(i) + " must be an integer but is " +
                         show(op.operand(i)));
    }
  }
  if (count == 1 && op.operand(first).rank() == 1) {
    if (op.operand(first).dim(0) != operand.rank()) {
      return say(op, "the start index vector " + show(op.operand(first)) + " must have " +
                         std::to_string(operand.rank()) + " elements, one per dimension of " +
                         show(operand));
    }
    return std::nullopt;
  }
  if (static_cast<int64_t>(count) != operand.rank()) {
    return say(op, "takes one start index per dimension of " + show(operand) + " (" +
                       std::to_string(operand.rank()) + ") but has " + std::to_string(count));
  }
  for (size_t i = first; i < op.arity(); ++i) {
    if (op.operand(i).rank() != 0) {
      return say(op, "start index operand " + std::to_string(i) + " must be a scalar but is " +
                         show(op.operand(i)));
    }
  }
  return std::nullopt;
}

}  // namespace

Msg check_broadcast(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const ir::Type& x = op.operand(0);
  const ir::Type& r = op.result();
  const ir::DimList& dims = op.instr.dims_attr("dimensions");
  if (static_cast<int64_t>(dims.size()) != x.rank()) {
    return say(op, "dimensions=" + show(dims) + " has " + count(dims.size(), "entry", "entries") +
                       " but the operand " + show(x) + " has rank " + std::to_string(x.rank()));
  }
  if (Msg m = check_dims_in_range(op, "dimensions", dims, r.rank(), /*unique=*/true)) return m;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t out = dims[i];
    if (r.dim(out) != x.dim(static_cast<int64_t>(i))) {
      return say(op, "operand dimension " + std::to_string(i) + " (size " +
                         std::to_string(x.dim(static_cast<int64_t>(i))) +
                         ") maps to result dimension " + std::to_string(out) +
                         ", which is declared with size " + std::to_string(r.dim(out)) + " in " +
                         show(r));
    }
  }
  return expect_dtype_of(op, x);
}

Msg check_reshape(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const ir::Type& x = op.operand(0);
  std::optional<int64_t> from = element_count(x), to = element_count(op.result());
  if (from && to && *from != *to) {
    return say(op, "result " + show(op.result()) + " has " + std::to_string(*to) +
                       " elements but the operand " + show(x) + " has " + std::to_string(*from));
  }
  return expect_dtype_of(op, x);
}

Msg check_transpose(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  const ir::DimList& perm = op.instr.dims_attr("dimensions");
  if (static_cast<int64_t>(perm.size()) != x.rank()) {
    return say(op, "dimensions=" + show(perm) + " must be a permutation of the " +
                       std::to_string(x.rank()) + " dimensions of " + show(x));
  }
  if (Msg m = check_dims_in_range(op, "dimensions", perm, x.rank(), /*unique=*/true)) return m;
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.dim(p));  // result dim i is operand dim perm[i]
  return expect_result(op, array(x.dtype(), std::move(dims)));
}

Msg check_slice(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  const auto* ranges = op.instr.get<std::vector<ir::SliceRange>>("slice");
  if (!ranges) return say(op, "missing slice={[start:limit:stride], …}");
  if (static_cast<int64_t>(ranges->size()) != x.rank()) {
    return say(op, "slice has " + count(ranges->size(), "range", "ranges") + " but the operand " +
                       show(x) + " has rank " + std::to_string(x.rank()));
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < ranges->size(); ++i) {
    const ir::SliceRange& s = (*ranges)[i];
    const std::string where = "range " + std::to_string(i) + " [" + std::to_string(s.start) + ":" +
                              std::to_string(s.limit) + ":" + std::to_string(s.stride) + "]";
    const int64_t size = x.dim(static_cast<int64_t>(i));
    if (s.start < 0) return say(op, where + " starts before 0");
    if (s.limit > size) {
      return say(op, where + " ends past the operand's dimension of size " + std::to_string(size));
    }
    if (s.start > s.limit) return say(op, where + " starts after its limit");
    if (s.stride <= 0) return say(op, where + " needs a positive stride");
    const int64_t len = s.limit - s.start;  // no overflow: 0 <= start <= limit
    dims.push_back(len == 0 ? 0 : (len - 1) / s.stride + 1);
  }
  return expect_result(op, array(x.dtype(), std::move(dims)));
}

Msg check_concatenate(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::DimList& d = op.instr.dims_attr("dimensions");
  if (d.size() != 1) {
    return say(op, "dimensions=" + show(d) + " must name exactly one dimension");
  }
  const ir::Type& first = op.operand(0);
  if (Msg m = check_dims_in_range(op, "dimensions", d, first.rank(), false)) return m;
  const int64_t axis = d[0];
  std::vector<int64_t> dims = first.dims();
  for (size_t i = 1; i < op.arity(); ++i) {
    const ir::Type& t = op.operand(i);
    if (t.dtype() != first.dtype()) {
      return say(op, "operand " + std::to_string(i) + " " + show(t) +
                         " has a different element type than operand 0 " + show(first));
    }
    bool fits = t.rank() == first.rank();
    for (int64_t k = 0; fits && k < t.rank(); ++k) fits = k == axis || t.dim(k) == first.dim(k);
    if (!fits) {
      return say(op, "operand " + std::to_string(i) + " " + show(t) + " does not match operand 0 " +
                         show(first) + " outside dimension " + std::to_string(axis));
    }
    std::optional<int64_t> sum = checked_add(dims[static_cast<size_t>(axis)], t.dim(axis));
    if (!sum) return say(op, "the concatenated size overflows");
    dims[static_cast<size_t>(axis)] = *sum;
  }
  return expect_result(op, array(first.dtype(), std::move(dims)));
}

Msg check_pad(const Op& op) {
  if (Msg m = expect_arity(op, 2)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& x = op.operand(0);
  const ir::Type& value = op.operand(1);
  if (value.rank() != 0) return say(op, "the padding value must be a scalar but is " + show(value));
  if (value.dtype() != x.dtype()) {
    return say(
        op, "the padding value " + show(value) + " has a different element type than " + show(x));
  }
  const auto* config = op.instr.get<ir::PaddingConfig>("padding");
  if (!config) return say(op, "missing padding=low_high_interior x …");
  if (static_cast<int64_t>(config->size()) != x.rank()) {
    return say(op, "padding has " + count(config->size(), "dimension", "dimensions") +
                       " but the operand " + show(x) + " has rank " + std::to_string(x.rank()));
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < config->size(); ++i) {
    const ir::PadDim& p = (*config)[i];
    const int64_t size = x.dim(static_cast<int64_t>(i));
    if (p.interior < 0) {
      return say(op, "interior padding of dimension " + std::to_string(i) + " is negative");
    }
    // size + low + high + interior * (size - 1); edge padding may be negative (it crops).
    std::optional<int64_t> n = checked_mul(std::max<int64_t>(size - 1, 0), p.interior);
    if (n) n = checked_add(*n, size);
    if (n) n = checked_add(*n, p.low);
    if (n) n = checked_add(*n, p.high);
    if (!n) return say(op, "padded size of dimension " + std::to_string(i) + " overflows");
    if (*n < 0) {
      return say(op, "padding makes dimension " + std::to_string(i) + " negative (" +
                         std::to_string(*n) + ")");
    }
    dims.push_back(*n);
  }
  return expect_result(op, array(x.dtype(), std::move(dims)));
}

Msg check_iota(const Op& op) {
  if (Msg m = expect_arity(op, 0)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const ir::Type& r = op.result();
  if (r.rank() == 0) return say(op, "the result must have rank 1 or more but is " + show(r));
  std::optional<int64_t> d = int_attr(op, "iota_dimension");
  if (!d) return say(op, "missing iota_dimension=");
  if (*d < 0 || *d >= r.rank()) {
    return say(op, "iota_dimension=" + std::to_string(*d) + " is outside the result " + show(r));
  }
  if (r.dtype() == ir::DType::kPred) return say(op, "the result cannot be pred");
  return std::nullopt;
}

Msg check_reverse(const Op& op) {
  if (Msg m = expect_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  if (Msg m = check_dims_in_range(op, "dimensions", op.instr.dims_attr("dimensions"), x.rank(),
                                  /*unique=*/true)) {
    return m;
  }
  return expect_result(op, x);
}

Msg check_dynamic_slice(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  const ir::Type& x = op.operand(0);
  if (Msg m = check_start_indices(op, 1, x)) return m;
  const auto* sizes = op.instr.get<ir::DimList>("dynamic_slice_sizes");
  if (!sizes) return say(op, "missing dynamic_slice_sizes={…}");
  if (static_cast<int64_t>(sizes->size()) != x.rank()) {
    return say(op, "dynamic_slice_sizes=" + show(*sizes) + " has " +
                       count(sizes->size(), "entry", "entries") + " but the operand " + show(x) +
                       " has rank " + std::to_string(x.rank()));
  }
  for (size_t i = 0; i < sizes->size(); ++i) {
    const int64_t s = (*sizes)[i];
    if (s < 0 || s > x.dim(static_cast<int64_t>(i))) {
      return say(op, "dynamic_slice_sizes=" + show(*sizes) + " asks for " + std::to_string(s) +
                         " elements of dimension " + std::to_string(i) + " of " + show(x));
    }
  }
  return expect_result(op, array(x.dtype(), *sizes));
}

Msg check_dynamic_update_slice(const Op& op) {
  if (Msg m = expect_min_arity(op, 2)) return m;
  if (Msg m = expect_array_operand(op, 0)) return m;
  if (Msg m = expect_array_operand(op, 1)) return m;
  const ir::Type& x = op.operand(0);
  const ir::Type& update = op.operand(1);
  if (Msg m = check_start_indices(op, 2, x)) return m;
  if (update.dtype() != x.dtype()) {
    return say(op, "the update " + show(update) + " has a different element type than " + show(x));
  }
  bool fits = update.rank() == x.rank();
  for (int64_t i = 0; fits && i < x.rank(); ++i)
    fits = update.dim(i) >= 0 && update.dim(i) <= x.dim(i);
  if (!fits) return say(op, "the update " + show(update) + " does not fit in " + show(x));
  return expect_result(op, x);
}

}  // namespace scalify::hlo::shape_check
