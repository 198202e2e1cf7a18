// convolution: dim_labels, window (stride, padding, base and window dilation, reversal) and
// feature groups. batch_group_count > 1 is not supported.
#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

/// Where each role sits in one operand's dimensions, from labels such as "b01f" or "01io".
struct Roles {
  int64_t first = -1;            ///< 'b' (input, output) or 'i' (kernel)
  int64_t second = -1;           ///< 'f' (input, output) or 'o' (kernel)
  std::vector<int64_t> spatial;  ///< spatial[k]: the dimension labelled with digit k
};

std::optional<Roles> read_roles(std::string_view labels, char first, char second,
                                size_t spatial_count) {
  Roles r;
  r.spatial.assign(spatial_count, -1);
  for (size_t p = 0; p < labels.size(); ++p) {
    const char c = labels[p];
    const auto at = static_cast<int64_t>(p);
    if (c == first && r.first < 0) {
      r.first = at;
    } else if (c == second && r.second < 0) {
      r.second = at;
    } else if (c >= '0' && c <= '9' && static_cast<size_t>(c - '0') < spatial_count &&
               r.spatial[static_cast<size_t>(c - '0')] < 0) {
      r.spatial[static_cast<size_t>(c - '0')] = at;
    } else {
      return std::nullopt;
    }
  }
  if (r.first < 0 || r.second < 0) return std::nullopt;
  for (int64_t s : r.spatial) {
    if (s < 0) return std::nullopt;
  }
  return r;
}

}  // namespace

Result eval_convolution(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& lhs = op.operand(0);
  const Tensor& rhs = op.operand(1);
  const ir::Type& out_type = op.type();
  const auto* labels = op.inst.get<ir::ConvDimLabels>("dim_labels");
  if (!labels) return op.error("missing dim_labels=");
  if (lhs.rank() < 2 || rhs.rank() != lhs.rank() || out_type.rank() != lhs.rank()) {
    return op.error("input, kernel and result must have the same rank, at least 2");
  }
  const auto spatial_count = static_cast<size_t>(lhs.rank() - 2);
  const std::optional<Roles> in = read_roles(labels->input, 'b', 'f', spatial_count);
  const std::optional<Roles> kernel = read_roles(labels->kernel, 'i', 'o', spatial_count);
  const std::optional<Roles> out = read_roles(labels->output, 'b', 'f', spatial_count);
  if (!in || !kernel || !out) {
    return op.error("dim_labels=" + labels->input + "_" + labels->kernel + "->" + labels->output +
                    " does not label the " + std::to_string(lhs.rank()) + " dimensions");
  }
  if (op.int_attr("batch_group_count").value_or(1) != 1) {
    return op.unsupported("batch_group_count > 1");
  }
  const int64_t groups = op.int_attr("feature_group_count").value_or(1);
  const auto dim = [](const Tensor& t, int64_t d) { return t.dims[static_cast<size_t>(d)]; };
  const int64_t batch = dim(lhs, in->first), in_features = dim(lhs, in->second);
  const int64_t kernel_in = dim(rhs, kernel->first), out_features = dim(rhs, kernel->second);
  if (groups <= 0 || in_features != kernel_in * groups || out_features % groups != 0) {
    return op.error("the input has " + std::to_string(in_features) +
                    " features, the kernel takes " + std::to_string(kernel_in) + " in " +
                    std::to_string(groups) + " group(s) giving " + std::to_string(out_features));
  }
  static const ir::Window kNoWindow;
  const auto* window_attr = op.inst.get<ir::Window>("window");
  const ir::Window& window = window_attr ? *window_attr : kNoWindow;
  if (window.dims.size() != spatial_count) {
    return op.error("window= needs one entry per spatial dimension (" +
                    std::to_string(spatial_count) + ")");
  }
  // The result's dimensions, per role.
  std::vector<int64_t> out_dims(static_cast<size_t>(lhs.rank()), 0);
  out_dims[static_cast<size_t>(out->first)] = batch;
  out_dims[static_cast<size_t>(out->second)] = out_features;
  std::vector<int64_t> kernel_sizes;
  for (size_t s = 0; s < spatial_count; ++s) {
    const ir::WindowDim& w = window.dims[s];
    const int64_t n = dim(lhs, in->spatial[s]);
    const int64_t k = dim(rhs, kernel->spatial[s]);
    if (w.stride <= 0 || w.lhs_dilate <= 0 || w.rhs_dilate <= 0) {
      return op.error("window dimension " + std::to_string(s) + " is invalid");
    }
    const int64_t dilated = n == 0 ? 0 : (n - 1) * w.lhs_dilate + 1;
    const int64_t padded = dilated + w.pad_low + w.pad_high;
    const int64_t extent = k == 0 ? 0 : (k - 1) * w.rhs_dilate + 1;
    out_dims[static_cast<size_t>(out->spatial[s])] =
        padded < extent ? 0 : (padded - extent) / w.stride + 1;
    kernel_sizes.push_back(k);
  }
  if (auto e = op.expect_result_dims(out_dims)) return *e;
  double work = static_cast<double>(kernel_in);
  for (int64_t d : out_dims) work *= static_cast<double>(d);
  for (int64_t k : kernel_sizes) work *= static_cast<double>(k);
  if (auto e = op.charge(work)) return *e;
  const std::vector<int64_t> ls = row_major_strides(lhs.dims), ks = row_major_strides(rhs.dims);
  const int64_t out_per_group = out_features / groups;
  Tensor result{out_dims, {}};
  result.data.reserve(static_cast<size_t>(result.element_count()));
  for_each_index(out_dims, [&](std::span<const int64_t> o) {
    const int64_t b = o[static_cast<size_t>(out->first)];
    const int64_t f = o[static_cast<size_t>(out->second)];
    const int64_t group = f / out_per_group;
    double sum = 0;
    for_each_index(kernel_sizes, [&](std::span<const int64_t> k) {
      int64_t l_at = b * ls[static_cast<size_t>(in->first)];
      int64_t k_at = f * ks[static_cast<size_t>(kernel->second)];
      for (size_t s = 0; s < spatial_count; ++s) {
        const ir::WindowDim& w = window.dims[s];
        const int64_t p =
            o[static_cast<size_t>(out->spatial[s])] * w.stride + k[s] * w.rhs_dilate - w.pad_low;
        if (p < 0 || p % w.lhs_dilate != 0 || p / w.lhs_dilate >= dim(lhs, in->spatial[s])) {
          return;  // on padding or between dilated input elements
        }
        l_at += p / w.lhs_dilate * ls[static_cast<size_t>(in->spatial[s])];
        const int64_t kk = w.reversal ? kernel_sizes[s] - 1 - k[s] : k[s];
        k_at += kk * ks[static_cast<size_t>(kernel->spatial[s])];
      }
      for (int64_t i = 0; i < kernel_in; ++i) {
        const int64_t c = group * kernel_in + i;
        sum += lhs.data[static_cast<size_t>(l_at + c * ls[static_cast<size_t>(in->second)])] *
               rhs.data[static_cast<size_t>(k_at + i * ks[static_cast<size_t>(kernel->first)])];
      }
    });
    result.data.push_back(sum);
  });
  normalize(result, out_type.dtype());
  return Value(std::move(result));
}

}  // namespace scalify::eval::detail
