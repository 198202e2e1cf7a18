// gather and scatter with XLA's full dimension numbers, batching dimensions included.
//
// Both pair an index batch (the dimensions of the indices other than index_vector_dim; all of
// them when index_vector_dim equals the indices' rank, each index then being a scalar) with
// windows of the operand: gather reads one window per index, scatter combines one window of
// updates into the operand per index.
#include <algorithm>

#include "eval/internal.h"

namespace scalify::eval::detail {
namespace {

/// Reads index vectors out of the indices operand.
class IndexVectors {
 public:
  IndexVectors(const Tensor& indices, int64_t vector_dim)
      : indices_(indices), vector_dim_(vector_dim), strides_(row_major_strides(indices.dims)) {}

  /// The batch dimensions: the indices' dimensions other than index_vector_dim.
  std::vector<int64_t> batch_dims() const {
    std::vector<int64_t> out;
    for (int64_t d = 0; d < indices_.rank(); ++d) {
      if (d != vector_dim_) out.push_back(indices_.dims[static_cast<size_t>(d)]);
    }
    return out;
  }
  /// Entries per index vector.
  int64_t components() const {
    return vector_dim_ == indices_.rank() ? 1 : indices_.dims[static_cast<size_t>(vector_dim_)];
  }
  /// Component k of the index vector at `batch` (one entry per batch dimension).
  int64_t at(std::span<const int64_t> batch, int64_t k) const {
    int64_t pos = 0;
    size_t next = 0;
    for (int64_t d = 0; d < indices_.rank(); ++d) {
      const int64_t i = d == vector_dim_ ? k : batch[next++];
      pos += i * strides_[static_cast<size_t>(d)];
    }
    return to_index(indices_.data[static_cast<size_t>(pos)]);
  }
  /// The position among the batch dimensions of indices dimension `d` (not index_vector_dim).
  size_t batch_position(int64_t d) const {
    return static_cast<size_t>(d < vector_dim_ ? d : d - 1);
  }

 private:
  const Tensor& indices_;
  int64_t vector_dim_;
  std::vector<int64_t> strides_;
};

/// Checks index_vector_dim, the index map and the batching dimensions shared by gather and
/// scatter. `map_key` is start_index_map or scatter_dims_to_operand_dims.
std::optional<Diagnostic> check_indexing(const Op& op, const Tensor& operand, const Tensor& indices,
                                         int64_t vector_dim, std::string_view map_key,
                                         std::string_view batching_key,
                                         std::string_view indices_batching_key) {
  if (vector_dim < 0 || vector_dim > indices.rank()) {
    return op.error("index_vector_dim=" + std::to_string(vector_dim) + " is outside [0, " +
                    std::to_string(indices.rank()) + "]");
  }
  const IndexVectors vectors(indices, vector_dim);
  const ir::DimList& map = op.inst.dims_attr(map_key);
  if (static_cast<int64_t>(map.size()) != vectors.components()) {
    return op.error(std::string(map_key) + "=" + show(map) +
                    " must have one entry per index "
                    "component (" +
                    std::to_string(vectors.components()) + ")");
  }
  if (auto e = check_dims(op, map_key, map, operand.rank())) return e;
  const ir::DimList& ob = op.inst.dims_attr(batching_key);
  const ir::DimList& ib = op.inst.dims_attr(indices_batching_key);
  if (auto e = check_dims(op, batching_key, ob, operand.rank())) return e;
  if (auto e = check_dims(op, indices_batching_key, ib, indices.rank())) return e;
  if (ob.size() != ib.size()) {
    return op.error(std::string(batching_key) + " and " + std::string(indices_batching_key) +
                    " differ in length");
  }
  for (size_t i = 0; i < ib.size(); ++i) {
    if (ib[i] == vector_dim ||
        indices.dims[static_cast<size_t>(ib[i])] != operand.dims[static_cast<size_t>(ob[i])]) {
      return op.error("batching dimension " + std::to_string(ob[i]) + " of the operand and " +
                      std::to_string(ib[i]) + " of the indices do not pair up");
    }
  }
  return std::nullopt;
}

/// The operand start of the window for the index batch position `batch`: the index vector
/// scattered through `map`, and the batching dimensions taken from the batch position.
std::vector<int64_t> window_start(const IndexVectors& vectors, std::span<const int64_t> batch,
                                  const ir::DimList& map, const ir::DimList& operand_batching,
                                  const ir::DimList& indices_batching, int64_t rank) {
  std::vector<int64_t> start(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < map.size(); ++k) {
    start[static_cast<size_t>(map[k])] = vectors.at(batch, static_cast<int64_t>(k));
  }
  for (size_t i = 0; i < operand_batching.size(); ++i) {
    start[static_cast<size_t>(operand_batching[i])] =
        batch[vectors.batch_position(indices_batching[i])];
  }
  return start;
}

}  // namespace

Result eval_gather(const Op& op) {
  if (auto e = op.expect_arity(2)) return *e;
  if (auto e = op.expect_tensors()) return *e;
  const Tensor& operand = op.operand(0);
  const Tensor& indices = op.operand(1);
  const std::optional<int64_t> vector_dim = op.int_attr("index_vector_dim");
  if (!vector_dim) return op.error("missing index_vector_dim=");
  if (auto e = check_indexing(op, operand, indices, *vector_dim, "start_index_map",
                              "operand_batching_dims", "start_indices_batching_dims")) {
    return *e;
  }
  const ir::DimList& offset_dims = op.inst.dims_attr("offset_dims");
  const ir::DimList& collapsed = op.inst.dims_attr("collapsed_slice_dims");
  const ir::DimList& batching = op.inst.dims_attr("operand_batching_dims");
  const ir::DimList& map = op.inst.dims_attr("start_index_map");
  const auto* sizes = op.inst.get<ir::DimList>("slice_sizes");
  if (!sizes || static_cast<int64_t>(sizes->size()) != operand.rank()) {
    return op.error("needs slice_sizes= with one entry per dimension of " + operand.shape_string());
  }
  if (auto e = check_dims(op, "collapsed_slice_dims", collapsed, operand.rank())) return *e;
  // The operand dimensions that the offset dims of the result run over, in increasing order.
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const int64_t s = (*sizes)[static_cast<size_t>(d)];
    if (s < 0 || s > operand.dims[static_cast<size_t>(d)]) {
      return op.error("slice_sizes=" + show(*sizes) + " does not fit " + operand.shape_string());
    }
    if (contains(collapsed, d) || contains(batching, d)) {
      if (s > 1)
        return op.error("collapsed dimension " + std::to_string(d) + " has size " +
                        std::to_string(s));
    } else {
      window_dims.push_back(d);
    }
  }
  const IndexVectors vectors(indices, *vector_dim);
  const std::vector<int64_t> batch_dims = vectors.batch_dims();
  const int64_t rank = static_cast<int64_t>(offset_dims.size() + batch_dims.size());
  if (offset_dims.size() != window_dims.size()) {
    return op.error("offset_dims=" + show(offset_dims) +
                    " must have one entry per operand "
                    "dimension that is neither collapsed nor batching (" +
                    std::to_string(window_dims.size()) + ")");
  }
  if (auto e = check_dims(op, "offset_dims", offset_dims, rank)) return *e;
  std::vector<int64_t> out_dims;
  for (int64_t d = 0, next_offset = 0, next_batch = 0; d < rank; ++d) {
    out_dims.push_back(contains(offset_dims, d)
                           ? (*sizes)[static_cast<size_t>(window_dims[next_offset++])]
                           : batch_dims[static_cast<size_t>(next_batch++)]);
  }
  if (auto e = op.expect_result_dims(out_dims)) return *e;
  const std::vector<int64_t> strides = row_major_strides(operand.dims);
  const ir::DimList& indices_batching = op.inst.dims_attr("start_indices_batching_dims");
  Tensor out{out_dims, {}};
  out.data.reserve(static_cast<size_t>(out.element_count()));
  std::vector<int64_t> batch, offset;
  for_each_index(out_dims, [&](std::span<const int64_t> index) {
    batch.clear();
    offset.clear();
    for (int64_t d = 0; d < rank; ++d) {
      (contains(offset_dims, d) ? offset : batch).push_back(index[static_cast<size_t>(d)]);
    }
    std::vector<int64_t> start =
        window_start(vectors, batch, map, batching, indices_batching, operand.rank());
    int64_t at = 0;
    for (size_t d = 0; d < start.size(); ++d) {
      // Clamp so that the whole slice lies inside the operand, as XLA does.
      at += std::clamp<int64_t>(start[d], 0, operand.dims[d] - (*sizes)[d]) * strides[d];
    }
    for (size_t k = 0; k < window_dims.size(); ++k) {
      at += offset[k] * strides[static_cast<size_t>(window_dims[k])];
    }
    out.data.push_back(operand.data[static_cast<size_t>(at)]);
  });
  return Value(std::move(out));
}

Result eval_scatter(const Op& op) {
  if (op.arity() < 3 || op.arity() % 2 == 0) {
    return op.error("scatter takes N inputs, the indices and N updates but has " +
                    std::to_string(op.arity()) + " operands");
  }
  for (size_t i = 0; i < op.arity(); ++i) {
    if (op.operands[i].is_tuple()) return op.error("operand " + std::to_string(i) + " is a tuple");
  }
  const size_t n = (op.arity() - 1) / 2;
  const Tensor& indices = op.operand(n);
  const Tensor& updates = op.operand(n + 1);
  std::vector<Tensor> results;
  for (size_t i = 0; i < n; ++i) {
    if (op.operand(i).dims != op.operand(0).dims || op.operand(n + 1 + i).dims != updates.dims) {
      return op.error("the inputs, and the updates, must all have the same dimensions");
    }
    results.push_back(op.operand(i));
  }
  const Tensor& operand = op.operand(0);
  const std::optional<int64_t> vector_dim = op.int_attr("index_vector_dim");
  if (!vector_dim) return op.error("missing index_vector_dim=");
  if (auto e = check_indexing(op, operand, indices, *vector_dim, "scatter_dims_to_operand_dims",
                              "input_batching_dims", "scatter_indices_batching_dims")) {
    return *e;
  }
  const ir::DimList& update_window_dims = op.inst.dims_attr("update_window_dims");
  const ir::DimList& inserted = op.inst.dims_attr("inserted_window_dims");
  const ir::DimList& batching = op.inst.dims_attr("input_batching_dims");
  const ir::DimList& map = op.inst.dims_attr("scatter_dims_to_operand_dims");
  const ir::DimList& indices_batching = op.inst.dims_attr("scatter_indices_batching_dims");
  if (auto e = check_dims(op, "update_window_dims", update_window_dims, updates.rank())) return *e;
  if (auto e = check_dims(op, "inserted_window_dims", inserted, operand.rank())) return *e;
  // The operand dimensions the update window runs over, and the window's size in each.
  std::vector<int64_t> window_dims;
  std::vector<int64_t> window_size(static_cast<size_t>(operand.rank()), 1);
  for (int64_t d = 0; d < operand.rank(); ++d) {
    if (!contains(inserted, d) && !contains(batching, d)) window_dims.push_back(d);
  }
  if (window_dims.size() != update_window_dims.size()) {
    return op.error("update_window_dims=" + show(update_window_dims) +
                    " must have one entry "
                    "per operand dimension that is neither inserted nor batching (" +
                    std::to_string(window_dims.size()) + ")");
  }
  for (size_t k = 0; k < window_dims.size(); ++k) {
    window_size[static_cast<size_t>(window_dims[k])] =
        updates.dims[static_cast<size_t>(update_window_dims[k])];
  }
  const IndexVectors vectors(indices, *vector_dim);
  const std::vector<int64_t> batch_dims = vectors.batch_dims();
  if (updates.rank() != static_cast<int64_t>(update_window_dims.size() + batch_dims.size())) {
    return op.error("the updates " + updates.shape_string() +
                    " must have the index batch "
                    "dimensions " +
                    show(batch_dims) + " besides update_window_dims");
  }
  for (int64_t d = 0, next = 0; d < updates.rank(); ++d) {
    if (!contains(update_window_dims, d) &&
        updates.dims[static_cast<size_t>(d)] != batch_dims[static_cast<size_t>(next++)]) {
      return op.error("the updates " + updates.shape_string() +
                      " must have the index batch "
                      "dimensions " +
                      show(batch_dims) + " outside update_window_dims");
    }
  }
  const ir::Computation* f = op.callee("to_apply");
  if (!f) return op.error("needs to_apply= naming a computation");
  Combiner combiner = make_combiner(*f);
  if (n != 1) combiner.fast.reset();

  const std::vector<int64_t> strides = row_major_strides(operand.dims);
  std::vector<int64_t> batch, window;
  std::vector<double> acc(n), x(n);
  std::optional<Diagnostic> error;
  size_t update_at = 0;
  for_each_index(updates.dims, [&](std::span<const int64_t> index) {
    const size_t this_update = update_at++;
    if (error) return;
    batch.clear();
    window.clear();
    for (int64_t d = 0; d < updates.rank(); ++d) {
      (contains(update_window_dims, d) ? window : batch).push_back(index[static_cast<size_t>(d)]);
    }
    const std::vector<int64_t> start =
        window_start(vectors, batch, map, batching, indices_batching, operand.rank());
    int64_t at = 0;
    for (size_t d = 0; d < start.size(); ++d) {
      // A window that does not fit entirely is skipped entirely.
      if (start[d] < 0 || start[d] > operand.dims[d] - window_size[d]) return;
      at += start[d] * strides[d];
    }
    for (size_t k = 0; k < window_dims.size(); ++k) {
      at += window[k] * strides[static_cast<size_t>(window_dims[k])];
    }
    for (size_t j = 0; j < n; ++j) {
      acc[j] = results[j].data[static_cast<size_t>(at)];
      x[j] = op.operand(n + 1 + j).data[this_update];
    }
    error = combine(op, combiner, acc, x);
    for (size_t j = 0; j < n; ++j) results[j].data[static_cast<size_t>(at)] = acc[j];
  });
  if (error) return *error;
  if (n == 1) return Value(std::move(results[0]));
  std::vector<Value> parts;
  for (Tensor& t : results) parts.emplace_back(std::move(t));
  return Value::tuple(std::move(parts));
}

}  // namespace scalify::eval::detail
