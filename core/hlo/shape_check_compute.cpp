// Result types of ops that combine elements: dot, convolution, reduce, reduce-window,
// select-and-scatter, sort. Dot and convolution may produce any element type (XLA's
// preferred_element_type), so only their dimensions are checked.
#include <string>
#include <variant>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

std::string dim_text(const ir::WindowDim& w) {
  return "size=" + std::to_string(w.size) + " stride=" + std::to_string(w.stride) +
         " lhs_dilate=" + std::to_string(w.lhs_dilate) +
         " rhs_dilate=" + std::to_string(w.rhs_dilate);
}

/// Output size of one window dimension over `base` elements, or a message for an invalid window.
std::variant<int64_t, std::string> window_size(const Op& op, size_t i, const ir::WindowDim& w,
                                               int64_t base) {
  if (w.size <= 0 || w.stride <= 0 || w.lhs_dilate < 1 || w.rhs_dilate < 1) {
    return say(op, "window dimension " + std::to_string(i) + " (" + dim_text(w) +
                       ") needs a positive size and stride and dilations of at least 1");
  }
  std::optional<int64_t> n =
      window_output(base, w.size, w.stride, w.pad_low, w.pad_high, w.lhs_dilate, w.rhs_dilate);
  if (!n) return say(op, "window dimension " + std::to_string(i) + " overflows");
  return *n;
}

/// Dimensions of `x` after sliding `window` over it (reduce-window, select-and-scatter).
std::variant<std::vector<int64_t>, std::string> windowed_dims(const Op& op, const ir::Type& x) {
  const auto* window = op.instr.get<ir::Window>("window");
  if (!window) return say(op, "missing window={size=…}");
  if (static_cast<int64_t>(window->dims.size()) != x.rank()) {
    return say(op, "window has " + count(window->dims.size(), "dimension", "dimensions") +
                       " but the operand " + show(x) + " has rank " + std::to_string(x.rank()));
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < window->dims.size(); ++i) {
    auto n = window_size(op, i, window->dims[i], x.dim(static_cast<int64_t>(i)));
    if (auto* msg = std::get_if<std::string>(&n)) return *msg;
    dims.push_back(std::get<int64_t>(n));
  }
  return dims;
}

/// N arrays of equal dimensions followed by N scalar initial values (reduce, reduce-window).
Msg check_inputs_and_inits(const Op& op) {
  if (op.arity() < 2 || op.arity() % 2 != 0) {
    return std::string(op.name()) + " takes N arrays and N initial values but has " +
           std::to_string(op.arity()) + " operands";
  }
  if (Msg m = expect_array_operands(op)) return m;
  const size_t n = op.arity() / 2;
  for (size_t i = 1; i < n; ++i) {
    if (!same_dims(op.operand(i), op.operand(0))) {
      return say(op, "input " + std::to_string(i) + " " + show(op.operand(i)) +
                         " has different dimensions than input 0 " + show(op.operand(0)));
    }
  }
  for (size_t i = n; i < op.arity(); ++i) {
    if (op.operand(i).rank() != 0) {
      return say(op, "initial value (operand " + std::to_string(i) + ") must be a scalar but is " +
                         show(op.operand(i)));
    }
  }
  return std::nullopt;
}

/// Result of a reducer-driven op: one array per reducer output (element types from the reducer's
/// ROOT, else from the initial values), a tuple unless the reducer returns a scalar.
ir::Type reduced_type(const Op& op, const std::vector<std::vector<int64_t>>& dims) {
  const size_t n = op.arity() / 2;
  const ir::Computation* reducer = op.callee("to_apply");
  std::vector<ir::DType> dtypes;
  bool tuple = n != 1;
  if (reducer) {
    const ir::Type& root = (*reducer)[reducer->root].type;
    if (root.is_array() && n == 1) {
      dtypes.push_back(root.dtype());
    } else if (root.is_tuple() && root.elements().size() == n) {
      tuple = true;  // even for one input: a reducer returning (T) makes a 1-tuple
      for (const ir::Type& e : root.elements()) {
        if (e.is_array()) dtypes.push_back(e.dtype());
      }
    }
  }
  if (dtypes.size() != n) {  // no usable reducer: the initial values give the element types
    dtypes.clear();
    for (size_t i = n; i < op.arity(); ++i) dtypes.push_back(op.operand(i).dtype());
  }
  std::vector<ir::Type> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(array(dtypes[i], dims[i]));
  return tuple ? ir::Type::tuple(std::move(parts)) : parts.front();
}

}  // namespace

Msg check_dot(const Op& op) {
  // Sparse dots carry metadata operands and halve the sparse dimension: not modelled.
  if (op.instr.attr("sparsity")) return std::nullopt;
  if (Msg m = expect_arity(op, 2)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const ir::Type& lhs = op.operand(0);
  const ir::Type& rhs = op.operand(1);
  const ir::DimList& lb = op.instr.dims_attr("lhs_batch_dims");
  const ir::DimList& rb = op.instr.dims_attr("rhs_batch_dims");
  const ir::DimList& lc = op.instr.dims_attr("lhs_contracting_dims");
  const ir::DimList& rc = op.instr.dims_attr("rhs_contracting_dims");
  ir::DimList lhs_used = lb, rhs_used = rb;
  lhs_used.insert(lhs_used.end(), lc.begin(), lc.end());
  rhs_used.insert(rhs_used.end(), rc.begin(), rc.end());
  if (Msg m = check_dims_in_range(op, "lhs_batch_dims+lhs_contracting_dims", lhs_used, lhs.rank(),
                                  true)) {
    return m;
  }
  if (Msg m = check_dims_in_range(op, "rhs_batch_dims+rhs_contracting_dims", rhs_used, rhs.rank(),
                                  true)) {
    return m;
  }
  if (lb.size() != rb.size()) {
    return say(op, "lhs_batch_dims=" + show(lb) + " and rhs_batch_dims=" + show(rb) +
                       " have different lengths");
  }
  if (lc.size() != rc.size()) {
    return say(op, "lhs_contracting_dims=" + show(lc) + " and rhs_contracting_dims=" + show(rc) +
                       " have different lengths");
  }
  for (size_t i = 0; i < lb.size(); ++i) {
    if (lhs.dim(lb[i]) != rhs.dim(rb[i])) {
      return say(op, "batch dimension " + std::to_string(lb[i]) + " of " + show(lhs) +
                         " and dimension " + std::to_string(rb[i]) + " of " + show(rhs) +
                         " differ in size");
    }
  }
  for (size_t i = 0; i < lc.size(); ++i) {
    if (lhs.dim(lc[i]) != rhs.dim(rc[i])) {
      return say(op, "contracting dimension " + std::to_string(lc[i]) + " of " + show(lhs) +
                         " and dimension " + std::to_string(rc[i]) + " of " + show(rhs) +
                         " differ in size");
    }
  }
  // Result: batch dimensions, then lhs free dimensions, then rhs free dimensions.
  std::vector<int64_t> dims;
  for (int64_t d : lb) dims.push_back(lhs.dim(d));
  for (int64_t d = 0; d < lhs.rank(); ++d) {
    if (!contains(lhs_used, d)) dims.push_back(lhs.dim(d));
  }
  for (int64_t d = 0; d < rhs.rank(); ++d) {
    if (!contains(rhs_used, d)) dims.push_back(rhs.dim(d));
  }
  return expect_result_dims(op, dims);
}

namespace {

/// The roles of one operand's dimensions in `dim_labels`: batch/feature (or kernel i/o) and the
/// spatial dimensions by number. nullopt when the labels use letters this check does not know.
struct ConvRoles {
  int64_t first = -1, second = -1;  // b and f for input/output; i and o for the kernel
  std::vector<int64_t> spatial;     // spatial[k] = position of digit k
};

std::optional<ConvRoles> conv_roles(const std::string& labels, char first, char second) {
  ConvRoles r;
  std::vector<int64_t> digits(labels.size(), -1);
  for (size_t pos = 0; pos < labels.size(); ++pos) {
    const char c = labels[pos];
    if (c == first && r.first < 0) {
      r.first = static_cast<int64_t>(pos);
    } else if (c == second && r.second < 0) {
      r.second = static_cast<int64_t>(pos);
    } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < labels.size() &&
               digits[static_cast<size_t>(c - '0')] < 0) {
      digits[static_cast<size_t>(c - '0')] = static_cast<int64_t>(pos);
    } else {
      return std::nullopt;
    }
  }
  if (r.first < 0 || r.second < 0) return std::nullopt;
  // Every other letter is a digit, and the digits must be exactly 0..n-1.
  for (size_t k = 0; k + 2 < labels.size(); ++k) {
    if (digits[k] < 0) return std::nullopt;
    r.spatial.push_back(digits[k]);
  }
  return r;
}

}  // namespace

Msg check_convolution(const Op& op) {
  if (Msg m = expect_arity(op, 2)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  if (Msg m = expect_array_result(op)) return m;
  const auto* labels = op.instr.get<ir::ConvDimLabels>("dim_labels");
  if (!labels) return std::nullopt;
  const ir::Type& in = op.operand(0);
  const ir::Type& kernel = op.operand(1);
  const ir::Type& out = op.result();
  struct Side {
    const std::string& labels;
    const ir::Type& type;
    const char* what;
  };
  for (const Side& s : {Side{labels->input, in, "input"}, Side{labels->kernel, kernel, "kernel"},
                        Side{labels->output, out, "result"}}) {
    if (static_cast<int64_t>(s.labels.size()) != s.type.rank()) {
      return say(op, std::string("dim_labels gives the ") + s.what + " " +
                         count(s.labels.size(), "dimension", "dimensions") + " but it is " +
                         show(s.type));
    }
  }
  std::optional<ConvRoles> ri = conv_roles(labels->input, 'b', 'f');
  std::optional<ConvRoles> rk = conv_roles(labels->kernel, 'i', 'o');
  std::optional<ConvRoles> ro = conv_roles(labels->output, 'b', 'f');
  if (!ri || !rk || !ro) return std::nullopt;
  const size_t spatial = ri->spatial.size();
  if (rk->spatial.size() != spatial || ro->spatial.size() != spatial) {
    return say(op,
               "dim_labels give input, kernel and result different numbers of spatial "
               "dimensions");
  }
  const auto* window = op.instr.get<ir::Window>("window");
  const size_t window_dims = window ? window->dims.size() : 0;
  if (window_dims != spatial) {
    return say(op, "window has " + count(window_dims, "dimension", "dimensions") +
                       " but dim_labels has " + std::to_string(spatial) + " spatial dimensions");
  }
  const int64_t fgc = int_attr(op, "feature_group_count").value_or(1);
  const int64_t bgc = int_attr(op, "batch_group_count").value_or(1);
  if (fgc <= 0 || bgc <= 0)
    return say(op, "feature_group_count and batch_group_count must be positive");
  const int64_t batch = in.dim(ri->first), features = in.dim(ri->second);
  const int64_t kernel_in = kernel.dim(rk->first), kernel_out = kernel.dim(rk->second);
  if (features % fgc != 0 || features / fgc != kernel_in) {
    return say(op, "input features (" + std::to_string(features) +
                       ") must equal kernel input "
                       "features (" +
                       std::to_string(kernel_in) + ") times feature_group_count (" +
                       std::to_string(fgc) + ")");
  }
  if (kernel_out % fgc != 0) {
    return say(op, "kernel output features (" + std::to_string(kernel_out) +
                       ") must be a multiple of feature_group_count (" + std::to_string(fgc) + ")");
  }
  if (batch % bgc != 0 || kernel_out % bgc != 0) {
    return say(op, "input batch (" + std::to_string(batch) + ") and kernel output features (" +
                       std::to_string(kernel_out) + ") must be multiples of batch_group_count (" +
                       std::to_string(bgc) + ")");
  }
  std::vector<int64_t> dims(static_cast<size_t>(out.rank()), 0);
  dims[static_cast<size_t>(ro->first)] = batch / bgc;
  dims[static_cast<size_t>(ro->second)] = kernel_out;
  for (size_t k = 0; k < spatial; ++k) {
    const ir::WindowDim& w = window->dims[k];
    if (w.size != kernel.dim(rk->spatial[k])) {
      return say(op, "window size " + std::to_string(w.size) + " of spatial dimension " +
                         std::to_string(k) + " differs from the kernel's " +
                         std::to_string(kernel.dim(rk->spatial[k])));
    }
    auto n = window_size(op, k, w, in.dim(ri->spatial[k]));
    if (auto* msg = std::get_if<std::string>(&n)) return *msg;
    dims[static_cast<size_t>(ro->spatial[k])] = std::get<int64_t>(n);
  }
  return expect_result_dims(op, dims);
}

Msg check_reduce(const Op& op) {
  if (Msg m = check_inputs_and_inits(op)) return m;
  const ir::Type& x = op.operand(0);
  const ir::DimList& reduced = op.instr.dims_attr("dimensions");
  if (Msg m = check_dims_in_range(op, "dimensions", reduced, x.rank(), /*unique=*/true)) return m;
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < x.rank(); ++d) {
    if (!contains(reduced, d)) kept.push_back(x.dim(d));
  }
  return expect_result(op, reduced_type(op, std::vector(op.arity() / 2, kept)));
}

Msg check_reduce_window(const Op& op) {
  if (Msg m = check_inputs_and_inits(op)) return m;
  std::vector<std::vector<int64_t>> dims;
  for (size_t i = 0; i < op.arity() / 2; ++i) {
    auto d = windowed_dims(op, op.operand(i));
    if (auto* msg = std::get_if<std::string>(&d)) return *msg;
    dims.push_back(std::get<std::vector<int64_t>>(d));
  }
  return expect_result(op, reduced_type(op, dims));
}

Msg check_select_and_scatter(const Op& op) {
  if (Msg m = expect_arity(op, 3)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& x = op.operand(0);
  const ir::Type& source = op.operand(1);
  auto d = windowed_dims(op, x);
  if (auto* msg = std::get_if<std::string>(&d)) return *msg;
  if (source.dims() != std::get<std::vector<int64_t>>(d)) {
    return say(op, "the source " + show(source) + " must have the windowed operand's dimensions " +
                       show(array(source.dtype(), std::get<std::vector<int64_t>>(d))));
  }
  return expect_result(op, x);
}

Msg check_sort(const Op& op) {
  if (Msg m = expect_min_arity(op, 1)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& keys = op.operand(0);
  for (size_t i = 1; i < op.arity(); ++i) {
    if (!same_dims(op.operand(i), keys)) {
      return say(op, "operand " + std::to_string(i) + " " + show(op.operand(i)) +
                         " has different dimensions than the keys " + show(keys));
    }
  }
  const ir::DimList& d = op.instr.dims_attr("dimensions");
  if (Msg m = check_dims_in_range(op, "dimensions", d, keys.rank(), false)) return m;
  if (op.arity() == 1) return expect_result(op, keys);
  std::vector<ir::Type> parts;
  for (size_t i = 0; i < op.arity(); ++i) parts.push_back(op.operand(i));
  return expect_result(op, ir::Type::tuple(std::move(parts)));
}

}  // namespace scalify::hlo::shape_check
