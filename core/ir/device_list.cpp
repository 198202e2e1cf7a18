#include "ir/device_list.h"

namespace scalify::ir {
namespace {

std::string join(const std::vector<int64_t>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

}  // namespace

std::vector<int64_t> IotaDevices::materialize() const {
  const size_t rank = reshape_dims.size();
  int64_t total = 1;
  for (int64_t d : reshape_dims) total *= d;
  std::vector<int64_t> out;
  if (total <= 0) return out;
  out.reserve(static_cast<size_t>(total));
  // Strides of the un-transposed array, then walk the transposed index space in row-major order.
  std::vector<int64_t> stride(rank, 1);
  for (size_t i = rank; i-- > 1;) stride[i - 1] = stride[i] * reshape_dims[i];
  std::vector<size_t> perm(rank);
  for (size_t i = 0; i < rank; ++i)
    perm[i] = transpose.empty() ? i : static_cast<size_t>(transpose[i]);
  std::vector<int64_t> index(rank, 0);  // index in the transposed array
  for (int64_t n = 0; n < total; ++n) {
    int64_t value = 0;
    for (size_t i = 0; i < rank; ++i) value += index[i] * stride[perm[i]];
    out.push_back(value);
    for (size_t i = rank; i-- > 0;) {
      if (++index[i] < reshape_dims[perm[i]]) break;
      index[i] = 0;
    }
  }
  return out;
}

std::string IotaDevices::to_string() const {
  std::string s = '[' + join(dims) + "]<=[" + join(reshape_dims) + ']';
  if (!transpose.empty()) s += "T(" + join(transpose) + ')';
  return s;
}

}  // namespace scalify::ir
