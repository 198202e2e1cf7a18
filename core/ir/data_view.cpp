#include "ir/data_view.h"

#include <algorithm>
#include <numeric>

namespace scalify::ir {

namespace {

int64_t product(std::span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

}  // namespace

DataView DataView::identity(std::vector<int64_t> shape) {
  DataView v;
  v.base = shape;
  v.factors = shape;
  v.order.resize(shape.size());
  std::iota(v.order.begin(), v.order.end(), 0);
  v.shape = std::move(shape);
  return v;
}

std::optional<DataView> DataView::block_moved(const std::vector<int64_t>& dims, int64_t from,
                                              int64_t to, int64_t n) {
  const auto rank = static_cast<int64_t>(dims.size());
  if (from < 0 || to < 0 || from >= rank || to >= rank || from == to || n < 1 ||
      dims[static_cast<size_t>(from)] % n != 0) {
    return std::nullopt;
  }
  std::vector<int64_t> cut = dims;  // `from` as (n, block)
  cut[static_cast<size_t>(from)] = n;
  cut.insert(cut.begin() + from + 1, dims[static_cast<size_t>(from)] / n);
  const int64_t target = to < from ? to : to + 1;  // `to` among the cut dims
  std::vector<int64_t> order;
  for (int64_t k = 0; k <= rank; ++k) {
    if (k == from) continue;
    if (k == target) order.push_back(from);
    order.push_back(k);
  }
  std::vector<int64_t> out = dims;
  out[static_cast<size_t>(from)] /= n;
  out[static_cast<size_t>(to)] *= n;
  auto v = identity(dims).reshaped(cut);
  if (v) v = v->transposed(order);
  if (v) v = v->reshaped(out);
  return v;
}

std::optional<DataView> DataView::reshaped(std::vector<int64_t> new_shape) const {
  if (product(new_shape) != product(shape)) return std::nullopt;
  DataView v = *this;
  v.shape = std::move(new_shape);
  return v;
}

std::vector<int64_t> DataView::permuted_factors() const {
  std::vector<int64_t> out;
  for (int64_t o : order) out.push_back(factors[static_cast<size_t>(o)]);
  return out;
}

bool DataView::is_reshape() const {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

DataView DataView::canonical() const {
  DataView v;
  v.base = base;
  v.shape = shape;
  // Factors of size 1 move nothing.
  std::vector<int64_t> renumber(factors.size(), -1);
  for (size_t b = 0; b < factors.size(); ++b) {
    if (factors[b] == 1) continue;
    renumber[b] = static_cast<int64_t>(v.factors.size());
    v.factors.push_back(factors[b]);
  }
  for (int64_t o : order) {
    if (renumber[static_cast<size_t>(o)] >= 0) v.order.push_back(renumber[static_cast<size_t>(o)]);
  }
  // Factors that stay neighbours, in order, are one factor.
  for (size_t i = 0; i + 1 < v.order.size();) {
    const int64_t b = v.order[i];
    if (v.order[i + 1] != b + 1) {
      ++i;
      continue;
    }
    v.factors[static_cast<size_t>(b)] *= v.factors[static_cast<size_t>(b + 1)];
    v.factors.erase(v.factors.begin() + b + 1);
    v.order.erase(v.order.begin() + static_cast<std::ptrdiff_t>(i + 1));
    for (int64_t& o : v.order) {
      if (o > b) --o;
    }
  }
  return v;
}

std::optional<std::pair<DataView, std::vector<std::vector<int64_t>>>> DataView::aligned() const {
  DataView v = canonical();
  // Cut the permuted factors so that every dim of the shape is a run of whole factors: a factor
  // that spans a dim boundary splits into its major part (ending the dim) and its minor part.
  std::vector<std::vector<int64_t>> runs(shape.size());  // per dim: positions in v.order
  size_t i = 0;
  int64_t left = v.order.empty() ? 1 : v.factors[static_cast<size_t>(v.order[0])];
  for (size_t j = 0; j < shape.size(); ++j) {
    int64_t need = shape[j];
    while (need > 1) {
      if (i >= v.order.size()) return std::nullopt;
      if (left <= need) {
        if (need % left != 0) return std::nullopt;
        need /= left;
        runs[j].push_back(static_cast<int64_t>(i++));
        left = i < v.order.size() ? v.factors[static_cast<size_t>(v.order[i])] : 1;
        continue;
      }
      if (left % need != 0) return std::nullopt;
      // Split base factor b = order[i] into (need, left / need), both in place.
      const int64_t b = v.order[i];
      v.factors[static_cast<size_t>(b)] = need;
      v.factors.insert(v.factors.begin() + b + 1, left / need);
      for (int64_t& o : v.order) {
        if (o > b) ++o;
      }
      v.order.insert(v.order.begin() + static_cast<std::ptrdiff_t>(i + 1), b + 1);
      runs[j].push_back(static_cast<int64_t>(i++));
      left /= need;
      need = 1;
    }
  }
  if (i != v.order.size()) return std::nullopt;
  // Positions in order → factor indices.
  for (auto& run : runs) {
    for (int64_t& p : run) p = v.order[static_cast<size_t>(p)];
  }
  return std::pair{std::move(v), std::move(runs)};
}

std::optional<DataView> DataView::transposed(std::span<const int64_t> permutation) const {
  const size_t rank = shape.size();
  if (permutation.size() != rank) return std::nullopt;
  std::vector<bool> seen(rank, false);
  for (int64_t p : permutation) {
    if (p < 0 || static_cast<size_t>(p) >= rank || seen[static_cast<size_t>(p)]) {
      return std::nullopt;
    }
    seen[static_cast<size_t>(p)] = true;
  }
  auto al = aligned();
  if (!al) return std::nullopt;
  const auto& [v, runs] = *al;
  DataView out;
  out.base = v.base;
  out.factors = v.factors;
  for (int64_t p : permutation) {
    for (int64_t f : runs[static_cast<size_t>(p)]) out.order.push_back(f);
    out.shape.push_back(shape[static_cast<size_t>(p)]);
  }
  return out;
}

std::optional<DotNormalForm> dot_normal_form(std::span<const int64_t> lhs_batch,
                                             std::span<const int64_t> lhs_contracting,
                                             int64_t lhs_rank, std::span<const int64_t> rhs_batch,
                                             std::span<const int64_t> rhs_contracting,
                                             int64_t rhs_rank) {
  if (lhs_batch.size() != rhs_batch.size() || lhs_contracting.size() != rhs_contracting.size()) {
    return std::nullopt;
  }
  auto order = [](std::span<const int64_t> first, std::span<const int64_t> second, int64_t rank,
                  bool free_last) {
    std::vector<int64_t> free;
    for (int64_t k = 0; k < rank; ++k) {
      if (std::find(first.begin(), first.end(), k) == first.end() &&
          std::find(second.begin(), second.end(), k) == second.end()) {
        free.push_back(k);
      }
    }
    std::vector<int64_t> perm(first.begin(), first.end());
    if (!free_last) perm.insert(perm.end(), free.begin(), free.end());
    perm.insert(perm.end(), second.begin(), second.end());
    if (free_last) perm.insert(perm.end(), free.begin(), free.end());
    return perm;
  };
  DotNormalForm n;
  n.lhs_order = order(lhs_batch, lhs_contracting, lhs_rank, false);
  n.rhs_order = order(rhs_batch, rhs_contracting, rhs_rank, true);
  if (static_cast<int64_t>(n.lhs_order.size()) != lhs_rank ||
      static_cast<int64_t>(n.rhs_order.size()) != rhs_rank) {
    return std::nullopt;  // a dim named twice, or out of range
  }
  auto range = [](int64_t from, size_t count) {
    std::vector<int64_t> r(count);
    std::iota(r.begin(), r.end(), from);
    return r;
  };
  const size_t nb = lhs_batch.size(), nc = lhs_contracting.size();
  n.lhs_batch = n.rhs_batch = range(0, nb);
  n.lhs_contracting = range(lhs_rank - static_cast<int64_t>(nc), nc);
  n.rhs_contracting = range(static_cast<int64_t>(nb), nc);
  return n;
}

namespace {

/// One operand of dot_through: view `v` with its free dims [lo, hi) read in its value's order.
struct FreeFactors {
  DataView read;                   ///< the view to read the operand through instead
  std::vector<int64_t> merged;     ///< read's free dims
  std::vector<int64_t> sizes;      ///< the free factors, in the value's order
  std::vector<int64_t> to_view;    ///< per free factor of v (in v's order): its place in sizes
  std::vector<int64_t> view_dims;  ///< v's free dims
  bool moved = false;              ///< whether read differs from v
};

FreeFactors free_factors(const DataView& v, size_t lo, size_t hi) {
  FreeFactors out;
  out.view_dims.assign(v.shape.begin() + static_cast<std::ptrdiff_t>(lo),
                       v.shape.begin() + static_cast<std::ptrdiff_t>(hi));
  out.read = v;
  out.merged = out.sizes = out.view_dims;
  out.to_view.resize(out.view_dims.size());
  std::iota(out.to_view.begin(), out.to_view.end(), 0);
  const auto al = v.aligned();
  if (!al) return out;
  const auto& [c, runs] = *al;
  std::vector<int64_t> free;
  for (size_t d = lo; d < hi; ++d) free.insert(free.end(), runs[d].begin(), runs[d].end());
  std::vector<int64_t> sorted = free;
  std::sort(sorted.begin(), sorted.end());
  if (sorted == free) return out;
  DataView read{c.base, c.factors, {}, {}};
  for (size_t d = 0; d < lo; ++d) {
    read.order.insert(read.order.end(), runs[d].begin(), runs[d].end());
    read.shape.push_back(v.shape[d]);
  }
  read.order.insert(read.order.end(), sorted.begin(), sorted.end());
  out.merged.clear();
  out.sizes.clear();
  for (size_t i = 0; i < sorted.size(); ++i) {
    const int64_t size = c.factors[static_cast<size_t>(sorted[i])];
    out.sizes.push_back(size);
    if (i > 0 && sorted[i] == sorted[i - 1] + 1) {
      out.merged.back() *= size;  // neighbours in the value stay one dim
    } else {
      out.merged.push_back(size);
    }
  }
  read.shape.insert(read.shape.end(), out.merged.begin(), out.merged.end());
  for (size_t d = hi; d < v.shape.size(); ++d) {
    read.order.insert(read.order.end(), runs[d].begin(), runs[d].end());
    read.shape.push_back(v.shape[d]);
  }
  out.to_view.clear();
  for (int64_t f : free) {
    out.to_view.push_back(std::find(sorted.begin(), sorted.end(), f) - sorted.begin());
  }
  out.read = std::move(read);
  out.moved = true;
  return out;
}

}  // namespace

std::optional<DotThroughViews> dot_through(const DataView& lhs, const DataView& rhs, int64_t batch,
                                           int64_t contracting) {
  const auto nb = static_cast<size_t>(batch), nc = static_cast<size_t>(contracting);
  if (batch < 0 || contracting < 0 || lhs.shape.size() < nb + nc || rhs.shape.size() < nb + nc) {
    return std::nullopt;
  }
  const FreeFactors l = free_factors(lhs, nb, lhs.shape.size() - nc);
  const FreeFactors r = free_factors(rhs, nb + nc, rhs.shape.size());
  if (!l.moved && !r.moved) return std::nullopt;
  // The dot of the reads has shape (batch, l.merged, r.merged); read as (batch, l.sizes,
  // r.sizes), the free factors go back to the order the views had them in.
  DotThroughViews out{l.read, r.read, {}};
  const std::vector<int64_t> batch_dims(lhs.shape.begin(),
                                        lhs.shape.begin() + static_cast<std::ptrdiff_t>(nb));
  DataView& after = out.after;
  after.base = after.factors = after.shape = batch_dims;
  after.order.resize(nb);
  std::iota(after.order.begin(), after.order.end(), 0);
  auto append = [&](const FreeFactors& side) {
    const auto first = static_cast<int64_t>(after.factors.size());
    after.base.insert(after.base.end(), side.merged.begin(), side.merged.end());
    after.factors.insert(after.factors.end(), side.sizes.begin(), side.sizes.end());
    for (int64_t k : side.to_view) after.order.push_back(first + k);
    after.shape.insert(after.shape.end(), side.view_dims.begin(), side.view_dims.end());
  };
  append(l);
  append(r);
  return out;
}

std::optional<int64_t> dot_result_dim(std::span<const int64_t> lhs_batch,
                                      std::span<const int64_t> lhs_contracting, int64_t lhs_rank,
                                      std::span<const int64_t> rhs_batch,
                                      std::span<const int64_t> rhs_contracting, size_t side,
                                      int64_t dim) {
  const auto batch = side == 0 ? lhs_batch : rhs_batch;
  const auto contracting = side == 0 ? lhs_contracting : rhs_contracting;
  auto named = [&](int64_t d) {
    return std::find(batch.begin(), batch.end(), d) != batch.end() ||
           std::find(contracting.begin(), contracting.end(), d) != contracting.end();
  };
  if (named(dim)) return std::nullopt;
  auto at = static_cast<int64_t>(batch.size());
  if (side == 1) {
    at += lhs_rank - static_cast<int64_t>(lhs_batch.size() + lhs_contracting.size());
  }
  for (int64_t d = 0; d < dim; ++d) at += named(d) ? 0 : 1;
  return at;
}

std::optional<ReduceThroughView> reduce_through(const DataView& view,
                                                std::span<const int64_t> dims) {
  auto al = view.aligned();
  if (!al) return std::nullopt;
  const auto& [v, runs] = *al;
  std::vector<bool> reduced(v.factors.size(), false);
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= runs.size()) return std::nullopt;
    for (int64_t f : runs[static_cast<size_t>(d)]) reduced[static_cast<size_t>(f)] = true;
  }
  // Coarsest groups of factors, in the value's order; the kept factors' new numbering.
  ReduceThroughView out;
  std::vector<int64_t> kept_index(v.factors.size(), -1);
  std::vector<int64_t> kept_factors;
  for (size_t f = 0; f < v.factors.size(); ++f) {
    if (f > 0 && reduced[f] == reduced[f - 1]) {
      out.groups.back() *= v.factors[f];
    } else {
      if (reduced[f]) out.reduced.push_back(static_cast<int64_t>(out.groups.size()));
      out.groups.push_back(v.factors[f]);
    }
    if (!reduced[f]) {
      kept_index[f] = static_cast<int64_t>(kept_factors.size());
      kept_factors.push_back(v.factors[f]);
    }
  }
  // The reduce's result: the kept groups in order; then the kept factors as the view orders
  // them, in the result's shape.
  std::vector<int64_t> result;
  for (size_t g = 0; g < out.groups.size(); ++g) {
    if (std::find(out.reduced.begin(), out.reduced.end(), static_cast<int64_t>(g)) ==
        out.reduced.end()) {
      result.push_back(out.groups[g]);
    }
  }
  out.after.base = result;
  out.after.factors = kept_factors;
  for (size_t d = 0; d < runs.size(); ++d) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end()) continue;
    out.after.shape.push_back(view.shape[d]);
    for (int64_t f : runs[d]) out.after.order.push_back(kept_index[static_cast<size_t>(f)]);
  }
  return out;
}

std::optional<NormThroughView> norm_through(const DataView& view, int64_t axis) {
  if (axis < 0 || static_cast<size_t>(axis) >= view.shape.size()) return std::nullopt;
  const auto r = reduce_through(view, std::vector<int64_t>{axis});
  if (!r || r->reduced.size() != 1) return std::nullopt;
  // The axis's factors must follow one another in the value, in order.
  const auto al = view.aligned();
  if (!al) return std::nullopt;
  const auto& [v, runs] = *al;
  const std::vector<int64_t>& run = runs[static_cast<size_t>(axis)];  // factors, in view order
  for (size_t i = 1; i < run.size(); ++i) {
    if (run[i] != run[i - 1] + 1) return std::nullopt;
  }
  NormThroughView out;
  out.groups = r->groups;
  out.axis = r->reduced[0];
  // The same elements as the view reads them: only the base is read in groups.
  out.after = v;
  out.after.base = r->groups;
  return out;
}

std::optional<ReshapedBroadcast> broadcast_reshaped(std::span<const int64_t> shape,
                                                    std::span<const int64_t> kept,
                                                    std::span<const int64_t> to) {
  if (!std::is_sorted(kept.begin(), kept.end()) || product(shape) != product(to)) {
    return std::nullopt;
  }
  auto is_kept = [&](size_t d) {
    return std::find(kept.begin(), kept.end(), static_cast<int64_t>(d)) != kept.end();
  };
  // Walk both shapes by their row-major factors: each dim of `to` (of size > 1) must take its
  // factors from kept dims only, or from repeated dims only.
  ReshapedBroadcast out;
  size_t i = 0;
  int64_t left = 1;
  for (size_t j = 0; j < to.size(); ++j) {
    int64_t need = to[j];
    std::optional<bool> from_kept;
    while (need > 1) {
      while (left == 1 && i < shape.size()) left = shape[i++];
      if (left == 1) return std::nullopt;
      const bool k = is_kept(i - 1);
      if (from_kept && *from_kept != k) return std::nullopt;
      from_kept = k;
      if (left <= need) {
        if (need % left != 0) return std::nullopt;
        need /= left;
        left = 1;
      } else {
        if (left % need != 0) return std::nullopt;
        left /= need;
        need = 1;
      }
    }
    if (from_kept.value_or(false)) {
      out.operand.push_back(to[j]);
      out.dimensions.push_back(static_cast<int64_t>(j));
    }
  }
  return out;
}

std::optional<std::vector<std::optional<DataView>>> elementwise_through(
    std::span<const std::optional<DataView>> views, const DataView& target) {
  const DataView t = target.canonical();
  std::vector<int64_t> inverse(t.order.size());
  for (size_t i = 0; i < t.order.size(); ++i)
    inverse[static_cast<size_t>(t.order[i])] = static_cast<int64_t>(i);
  std::vector<std::optional<DataView>> out;
  for (const auto& v : views) {
    if (!v) {
      out.emplace_back();
      continue;
    }
    if (v->shape != t.shape) return std::nullopt;
    auto undone = v->reshaped(t.permuted_factors());
    if (undone) undone = undone->transposed(inverse);
    if (undone) undone = undone->reshaped(t.base);
    if (!undone) return std::nullopt;
    out.push_back(undone->canonical());
  }
  return out;
}

}  // namespace scalify::ir
