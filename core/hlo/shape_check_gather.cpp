// Result types of gather and scatter, including the batching dimensions
// (operand_batching_dims / start_indices_batching_dims, input_batching_dims /
// scatter_indices_batching_dims). An index_vector_dim equal to the rank of the indices means each
// index is a scalar: the indices behave as if they had a trailing dimension of size 1.
#include <variant>

#include "hlo/shape_check_internal.h"

namespace scalify::hlo::shape_check {
namespace {

/// What gather and scatter share: the indices operand and the batching dimensions.
struct Indices {
  std::vector<int64_t> expanded;  ///< the indices' dimensions, with the implicit trailing 1
  int64_t vector_dim = 0;         ///< index_vector_dim
  /// The indices' dimensions other than the index vector: one per gathered/scattered slice.
  std::vector<int64_t> batch() const {
    std::vector<int64_t> out;
    for (size_t i = 0; i < expanded.size(); ++i) {
      if (static_cast<int64_t>(i) != vector_dim) out.push_back(expanded[i]);
    }
    return out;
  }
};

std::variant<Indices, std::string> read_indices(const Op& op, const ir::Type& indices) {
  if (!ir::is_integer(indices.dtype())) {
    return say(op, "the indices must be integers but are " + show(indices));
  }
  std::optional<int64_t> ivd = int_attr(op, "index_vector_dim");
  if (!ivd) return say(op, "missing index_vector_dim=");
  if (*ivd < 0 || *ivd > indices.rank()) {
    return say(op, "index_vector_dim=" + std::to_string(*ivd) + " is outside [0, " +
                       std::to_string(indices.rank()) + "] for the indices " + show(indices));
  }
  Indices r;
  r.expanded = indices.dims();
  if (*ivd == indices.rank()) r.expanded.push_back(1);
  r.vector_dim = *ivd;
  return r;
}

/// Checks the batching dimensions (`operand_key` of `operand`, `indices_key` of `indices`) and
/// that the operand dims they name are disjoint from `other` (collapsed/inserted dims and the
/// start index map).
Msg check_batching(const Op& op, const ir::Type& operand, const ir::Type& indices,
                   const Indices& idx, std::string_view operand_key, std::string_view indices_key) {
  const ir::DimList& ob = op.instr.dims_attr(operand_key);
  const ir::DimList& ib = op.instr.dims_attr(indices_key);
  if (Msg m = check_dims_in_range(op, operand_key, ob, operand.rank(), true)) return m;
  if (Msg m = check_dims_in_range(op, indices_key, ib, indices.rank(), true)) return m;
  if (ob.size() != ib.size()) {
    return say(op, std::string(operand_key) + "=" + show(ob) + " and " + std::string(indices_key) +
                       "=" + show(ib) + " have different lengths");
  }
  for (size_t i = 0; i < ib.size(); ++i) {
    if (ib[i] == idx.vector_dim) {
      return say(op, std::string(indices_key) +
                         " must not contain index_vector_dim=" + std::to_string(idx.vector_dim));
    }
    if (operand.dim(ob[i]) != indices.dim(ib[i])) {
      return say(op, "batching dimension " + std::to_string(ob[i]) + " of " + show(operand) +
                         " and dimension " + std::to_string(ib[i]) + " of the indices " +
                         show(indices) + " differ in size");
    }
  }
  return std::nullopt;
}

/// `a` and `b` (dimension lists of one operand) must not share an entry.
Msg check_disjoint(const Op& op, std::string_view ka, const ir::DimList& a, std::string_view kb,
                   const ir::DimList& b) {
  for (int64_t d : a) {
    if (contains(b, d)) {
      return say(op, "dimension " + std::to_string(d) + " appears in both " + std::string(ka) +
                         " and " + std::string(kb));
    }
  }
  return std::nullopt;
}

/// start_index_map / scatter_dims_to_operand_dims: one operand dimension per index component.
Msg check_index_map(const Op& op, std::string_view key, const ir::Type& operand,
                    const Indices& idx) {
  const ir::DimList& map = op.instr.dims_attr(key);
  const int64_t components = idx.expanded[static_cast<size_t>(idx.vector_dim)];
  if (static_cast<int64_t>(map.size()) != components) {
    return say(op, std::string(key) + "=" + show(map) + " has " +
                       count(map.size(), "entry", "entries") + " but each index has " +
                       std::to_string(components) + " components (dimension index_vector_dim=" +
                       std::to_string(idx.vector_dim) + " of the indices)");
  }
  return check_dims_in_range(op, key, map, operand.rank(), true);
}

}  // namespace

Msg check_gather(const Op& op) {
  if (Msg m = expect_arity(op, 2)) return m;
  if (Msg m = expect_array_operands(op)) return m;
  const ir::Type& x = op.operand(0);
  const ir::Type& indices = op.operand(1);
  auto read = read_indices(op, indices);
  if (auto* msg = std::get_if<std::string>(&read)) return *msg;
  const Indices& idx = std::get<Indices>(read);

  const ir::DimList& offset = op.instr.dims_attr("offset_dims");
  const ir::DimList& collapsed = op.instr.dims_attr("collapsed_slice_dims");
  const ir::DimList& batching = op.instr.dims_attr("operand_batching_dims");
  const auto* sizes = op.instr.get<ir::DimList>("slice_sizes");
  if (!sizes) return say(op, "missing slice_sizes={…}");
  if (static_cast<int64_t>(sizes->size()) != x.rank()) {
    return say(op, "slice_sizes=" + show(*sizes) + " has " +
                       count(sizes->size(), "entry", "entries") + " but the operand " + show(x) +
                       " has rank " + std::to_string(x.rank()));
  }
  if (static_cast<int64_t>(offset.size() + collapsed.size() + batching.size()) != x.rank()) {
    return say(op,
               "offset_dims, collapsed_slice_dims and operand_batching_dims must together "
               "account for the " +
                   std::to_string(x.rank()) + " dimensions of " + show(x));
  }
  const int64_t result_rank =
      static_cast<int64_t>(offset.size()) + static_cast<int64_t>(idx.expanded.size()) - 1;
  if (Msg m = check_dims_in_range(op, "offset_dims", offset, result_rank, true, true)) return m;
  if (Msg m = check_dims_in_range(op, "collapsed_slice_dims", collapsed, x.rank(), true, true)) {
    return m;
  }
  if (Msg m = check_batching(op, x, indices, idx, "operand_batching_dims",
                             "start_indices_batching_dims")) {
    return m;
  }
  if (Msg m = check_disjoint(op, "collapsed_slice_dims", collapsed, "operand_batching_dims",
                             batching)) {
    return m;
  }
  if (Msg m = check_index_map(op, "start_index_map", x, idx)) return m;
  if (Msg m = check_disjoint(op, "start_index_map", op.instr.dims_attr("start_index_map"),
                             "operand_batching_dims", batching)) {
    return m;
  }
  for (int64_t i = 0; i < x.rank(); ++i) {
    const int64_t s = (*sizes)[static_cast<size_t>(i)];
    if (s < 0 || s > x.dim(i)) {
      return say(op, "slice_sizes=" + show(*sizes) + " asks for " + std::to_string(s) +
                         " elements of dimension " + std::to_string(i) + " of " + show(x));
    }
    if (s > 1 && (contains(collapsed, i) || contains(batching, i))) {
      return say(op, "dimension " + std::to_string(i) +
                         " is collapsed or batching, so its slice size must be 0 or 1, not " +
                         std::to_string(s));
    }
  }
  // Offset dims carry the slice sizes of the kept operand dims; the others the index batch.
  std::vector<int64_t> slice;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (!contains(collapsed, i) && !contains(batching, i))
      slice.push_back((*sizes)[static_cast<size_t>(i)]);
  }
  const std::vector<int64_t> batch = idx.batch();
  std::vector<int64_t> dims;
  size_t next_slice = 0, next_batch = 0;
  for (int64_t d = 0; d < result_rank; ++d) {
    dims.push_back(contains(offset, d) ? slice[next_slice++] : batch[next_batch++]);
  }
  return expect_result(op, array(x.dtype(), std::move(dims)));
}

Msg check_scatter(const Op& op) {
  if (op.arity() < 3 || op.arity() % 2 == 0) {
    return std::string("scatter takes N inputs, the indices and N updates but has ") +
           std::to_string(op.arity()) + " operands";
  }
  if (Msg m = expect_array_operands(op)) return m;
  const size_t n = (op.arity() - 1) / 2;
  const ir::Type& x = op.operand(0);
  const ir::Type& indices = op.operand(n);
  const ir::Type& updates = op.operand(n + 1);
  for (size_t i = 0; i < n; ++i) {
    if (!same_dims(op.operand(i), x)) {
      return say(op, "input " + std::to_string(i) + " " + show(op.operand(i)) +
                         " has different dimensions than input 0 " + show(x));
    }
    const ir::Type& u = op.operand(n + 1 + i);
    if (!same_dims(u, updates)) {
      return say(op, "updates " + std::to_string(i) + " " + show(u) +
                         " has different dimensions than updates 0 " + show(updates));
    }
    if (u.dtype() != op.operand(i).dtype()) {
      return say(op, "updates " + std::to_string(i) + " " + show(u) +
                         " has a different element type than input " + std::to_string(i) + " " +
                         show(op.operand(i)));
    }
  }
  auto read = read_indices(op, indices);
  if (auto* msg = std::get_if<std::string>(&read)) return *msg;
  const Indices& idx = std::get<Indices>(read);

  const ir::DimList& window = op.instr.dims_attr("update_window_dims");
  const ir::DimList& inserted = op.instr.dims_attr("inserted_window_dims");
  const ir::DimList& batching = op.instr.dims_attr("input_batching_dims");
  if (Msg m = check_dims_in_range(op, "update_window_dims", window, updates.rank(), true, true)) {
    return m;
  }
  if (Msg m = check_dims_in_range(op, "inserted_window_dims", inserted, x.rank(), true, true)) {
    return m;
  }
  if (Msg m = check_batching(op, x, indices, idx, "input_batching_dims",
                             "scatter_indices_batching_dims")) {
    return m;
  }
  if (Msg m =
          check_disjoint(op, "inserted_window_dims", inserted, "input_batching_dims", batching)) {
    return m;
  }
  if (static_cast<int64_t>(window.size() + inserted.size() + batching.size()) != x.rank()) {
    return say(op,
               "update_window_dims, inserted_window_dims and input_batching_dims must "
               "together account for the " +
                   std::to_string(x.rank()) + " dimensions of " + show(x));
  }
  if (Msg m = check_index_map(op, "scatter_dims_to_operand_dims", x, idx)) return m;
  if (Msg m = check_disjoint(op, "scatter_dims_to_operand_dims",
                             op.instr.dims_attr("scatter_dims_to_operand_dims"),
                             "input_batching_dims", batching)) {
    return m;
  }
  // The updates: one dimension per index batch dimension, plus the window dimensions.
  const std::vector<int64_t> batch = idx.batch();
  if (updates.rank() != static_cast<int64_t>(window.size() + batch.size())) {
    return say(op, "the updates " + show(updates) + " must have rank " +
                       std::to_string(window.size() + batch.size()) +
                       " (update_window_dims plus the index batch dimensions)");
  }
  size_t next_batch = 0, next_window = 0;
  for (int64_t d = 0; d < updates.rank(); ++d) {
    if (contains(window, d)) {
      // The k-th window dim updates the k-th operand dim that is neither inserted nor batching.
      int64_t od = -1;
      for (int64_t i = 0, seen = 0; i < x.rank(); ++i) {
        if (contains(inserted, i) || contains(batching, i)) continue;
        if (seen++ == static_cast<int64_t>(next_window)) {
          od = i;
          break;
        }
      }
      ++next_window;
      if (od >= 0 && updates.dim(d) > x.dim(od)) {
        return say(op, "update window dimension " + std::to_string(d) + " of " + show(updates) +
                           " is larger than dimension " + std::to_string(od) + " of " + show(x));
      }
    } else if (updates.dim(d) != batch[next_batch++]) {
      return say(op, "the updates " + show(updates) + " must have the index batch dimensions " +
                         show(batch) + " outside update_window_dims=" + show(window));
    }
  }
  if (n == 1) return expect_result(op, x);
  std::vector<ir::Type> parts;
  for (size_t i = 0; i < n; ++i) parts.push_back(op.operand(i));
  return expect_result(op, ir::Type::tuple(std::move(parts)));
}

}  // namespace scalify::hlo::shape_check
