// DataView's normal form, checked numerically: random chains of reshapes and transposes of a
// value holding 0, 1, 2, … are carried out element by element (an implementation of XLA's two
// ops written here) and compared with the canonical form carried out the same way; two chains
// with the same canonical form must move every element to the same place.
#include "ir/data_view.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <numeric>
#include <random>

using scalify::ir::DataView;

namespace {

struct Tensor {
  std::vector<int64_t> dims;
  std::vector<int64_t> data;
};

Tensor iota(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  Tensor t{std::move(dims), std::vector<int64_t>(static_cast<size_t>(n))};
  std::iota(t.data.begin(), t.data.end(), 0);
  return t;
}

Tensor reshape(Tensor t, std::vector<int64_t> dims) {
  t.dims = std::move(dims);
  return t;
}

/// XLA's transpose: result dim i is operand dim perm[i].
Tensor transpose(const Tensor& t, const std::vector<int64_t>& perm) {
  const size_t rank = t.dims.size();
  std::vector<int64_t> strides(rank, 1);
  for (size_t k = rank; k-- > 1;) strides[k - 1] = strides[k] * t.dims[k];
  Tensor out{std::vector<int64_t>(rank), std::vector<int64_t>(t.data.size())};
  for (size_t i = 0; i < rank; ++i) out.dims[i] = t.dims[static_cast<size_t>(perm[i])];
  std::vector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < out.data.size(); ++flat) {
    int64_t src = 0;
    for (size_t i = 0; i < rank; ++i) src += index[i] * strides[static_cast<size_t>(perm[i])];
    out.data[flat] = t.data[static_cast<size_t>(src)];
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < out.dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

/// The normal form carried out on `t` (of shape v.base): reshape to the factors, transpose,
/// reshape to the shape.
Tensor apply(const DataView& v, Tensor t) {
  t = reshape(std::move(t), v.factors);
  return reshape(transpose(t, v.order), v.shape);
}
Tensor apply(const DataView& v) { return apply(v, iota(v.base)); }

/// A sum over `dims` (ascending), elements squared so that the order of the sums shows.
Tensor reduce_sum(const Tensor& t, const std::vector<int64_t>& dims) {
  const size_t rank = t.dims.size();
  Tensor out;
  for (size_t k = 0; k < rank; ++k) {
    if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end())
      out.dims.push_back(t.dims[k]);
  }
  int64_t n = 1;
  for (int64_t d : out.dims) n *= d;
  out.data.assign(static_cast<size_t>(n), 0);
  std::vector<int64_t> index(rank, 0);
  for (size_t flat = 0; flat < t.data.size(); ++flat) {
    int64_t o = 0;
    for (size_t k = 0; k < rank; ++k) {
      if (std::find(dims.begin(), dims.end(), static_cast<int64_t>(k)) == dims.end())
        o = o * t.dims[k] + index[k];
    }
    out.data[static_cast<size_t>(o)] += t.data[flat] * t.data[flat];
    for (size_t k = rank; k-- > 0;) {
      if (++index[k] < t.dims[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

std::vector<int64_t> random_shape(std::mt19937& rng, int64_t elements) {
  // Cut `elements` into random factors, with size-1 dims sprinkled in.
  std::vector<int64_t> dims;
  int64_t left = elements;
  while (left > 1) {
    std::vector<int64_t> divisors;
    for (int64_t d = 2; d <= left; ++d) {
      if (left % d == 0) divisors.push_back(d);
    }
    const int64_t d = divisors[rng() % divisors.size()];
    dims.push_back(d);
    left /= d;
    if (rng() % 5 == 0) dims.push_back(1);
  }
  if (dims.empty()) dims.push_back(1);
  return dims;
}

}  // namespace

TEST_CASE("DataView: the doc example", "[ir][data_view]") {
  DataView v = *DataView::identity({4, 6}).reshaped({4, 2, 3});
  v = *v.transposed(std::vector<int64_t>{1, 0, 2});
  const DataView c = v.canonical();
  CHECK(c.factors == std::vector<int64_t>{4, 2, 3});
  CHECK(c.order == std::vector<int64_t>{1, 0, 2});
  CHECK(c.shape == std::vector<int64_t>{2, 4, 3});
  CHECK(DataView::identity({4, 6}).reshaped({24})->canonical().is_reshape());
}

TEST_CASE("DataView: a transpose of dims not made of whole factors is refused", "[ir][data_view]") {
  // [2,3] transposed to [3,2] (factors 3, 2), read as [2,3]: dim 0 (2) is neither a run of
  // whole factors nor the major part of the 3.
  const auto v =
      DataView::identity({2, 3}).transposed(std::vector<int64_t>{1, 0})->reshaped({2, 3});
  REQUIRE(v);
  CHECK_FALSE(v->transposed(std::vector<int64_t>{1, 0}));
  CHECK_FALSE(DataView::identity({2, 3}).transposed(std::vector<int64_t>{0, 0}));
  CHECK_FALSE(DataView::identity({2, 3}).reshaped({5}));
}

TEST_CASE("DataView: BERT's head split, transposed and squeezed, is one view", "[ir][data_view]") {
  // The reference: [1,128,16] → [1,128,2,8] → transpose {0,2,1,3} → [2,128,8].
  DataView r = *DataView::identity({1, 128, 16}).reshaped({1, 128, 2, 8});
  r = *r.transposed(std::vector<int64_t>{0, 2, 1, 3});
  r = *r.reshaped({2, 128, 8});
  // Another program: [1,128,16] → [128,2,8] → transpose {1,0,2}.
  DataView d = *DataView::identity({1, 128, 16}).reshaped({128, 2, 8});
  d = *d.transposed(std::vector<int64_t>{1, 0, 2});
  CHECK(r.canonical() == d.canonical());
  CHECK_FALSE(r.canonical().is_reshape());
}

TEST_CASE("DataView: a sum over a view is a view of a sum", "[ir][data_view]") {
  // dot.9 of BERT's backward pass: [2,128,8] moved to [128,16], summed over the 128.
  DataView v = *DataView::identity({2, 128, 8}).transposed(std::vector<int64_t>{1, 0, 2});
  v = *v.reshaped({128, 16});
  const auto r = scalify::ir::reduce_through(v, std::vector<int64_t>{0});
  REQUIRE(r);
  CHECK(r->groups == std::vector<int64_t>{2, 128, 8});
  CHECK(r->reduced == std::vector<int64_t>{1});
  CHECK(r->after.shape == std::vector<int64_t>{16});
  CHECK(r->after.canonical().is_reshape());
}

TEST_CASE("DataView: a dot's normal form names positions only", "[ir][data_view]") {
  // dot(f32[2,128,16] l, f32[16,2,128] r), batch {0} and {1}, contracting {2} and {0}.
  const std::vector<int64_t> lb{0}, lc{2}, rb{1}, rc{0};
  const auto n = scalify::ir::dot_normal_form(lb, lc, 3, rb, rc, 3);
  REQUIRE(n);
  CHECK(n->lhs_order == std::vector<int64_t>{0, 1, 2});
  CHECK(n->rhs_order == std::vector<int64_t>{1, 0, 2});
  CHECK(n->lhs_batch == std::vector<int64_t>{0});
  CHECK(n->rhs_batch == std::vector<int64_t>{0});
  CHECK(n->lhs_contracting == std::vector<int64_t>{2});
  CHECK(n->rhs_contracting == std::vector<int64_t>{1});
  // A dim named twice, or lists that do not pair up.
  const std::vector<int64_t> twice{0};
  CHECK_FALSE(scalify::ir::dot_normal_form(twice, twice, 2, rb, rc, 3));
  CHECK_FALSE(scalify::ir::dot_normal_form(lb, std::vector<int64_t>{}, 3, rb, rc, 3));
}

TEST_CASE("DataView: broadcasts reshaped", "[ir][data_view]") {
  auto b =
      scalify::ir::broadcast_reshaped(std::vector<int64_t>{1, 1, 256, 128}, std::vector<int64_t>{2},
                                      std::vector<int64_t>{1, 2, 128, 128});
  REQUIRE(b);
  CHECK(b->operand == std::vector<int64_t>{2, 128});
  CHECK(b->dimensions == std::vector<int64_t>{1, 2});
  // A dim mixing kept and repeated elements is no broadcast of a reshape.
  CHECK_FALSE(scalify::ir::broadcast_reshaped(std::vector<int64_t>{4, 8}, std::vector<int64_t>{0},
                                              std::vector<int64_t>{32}));
}

namespace {

/// XLA's broadcast: operand dim i lands on result dim kept[i].
Tensor broadcast(const Tensor& x, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& kept) {
  Tensor out{shape, {}};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t src = 0;
    for (size_t i = 0; i < kept.size(); ++i) {
      src = src * x.dims[i] + index[static_cast<size_t>(kept[i])];
    }
    out.data.push_back(x.data[static_cast<size_t>(src)]);
    for (size_t k = shape.size(); k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("DataView: a reshaped broadcast is the broadcast of a reshape, numerically",
          "[ir][data_view]") {
  std::mt19937 rng(11);
  size_t pushed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const std::vector<int64_t> shape = random_shape(rng, 24 << (rng() % 3));
    std::vector<int64_t> kept, operand;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (rng() % 2 == 0) {
        kept.push_back(static_cast<int64_t>(k));
        operand.push_back(shape[k]);
      }
    }
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    const std::vector<int64_t> to = random_shape(rng, n);
    const auto b = scalify::ir::broadcast_reshaped(shape, kept, to);
    if (!b) continue;
    ++pushed;
    const Tensor x = iota(operand);
    INFO("trial " << trial);
    const Tensor direct = reshape(broadcast(x, shape, kept), to);
    const Tensor moved = broadcast(reshape(x, b->operand), to, b->dimensions);
    REQUIRE(direct.data == moved.data);
  }
  CHECK(pushed > 300);
}

TEST_CASE("DataView: random chains move elements as their canonical form says", "[ir][data_view]") {
  std::mt19937 rng(7);
  const int64_t sizes[] = {1, 6, 12, 24, 36, 48, 60};
  std::map<std::vector<int64_t>, std::map<std::vector<int64_t>, std::vector<int64_t>>> seen;
  size_t chains = 0, compared = 0, reductions = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t n = sizes[rng() % std::size(sizes)];
    const std::vector<int64_t> base = random_shape(rng, n);
    DataView v = DataView::identity(base);
    Tensor t = iota(base);
    const int steps = 1 + static_cast<int>(rng() % 5);
    bool ok = true;
    for (int s = 0; s < steps && ok; ++s) {
      if (rng() % 2 == 0) {
        const std::vector<int64_t> shape = random_shape(rng, n);
        v = *v.reshaped(shape);
        t = reshape(t, shape);
      } else {
        std::vector<int64_t> perm(t.dims.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        auto next = v.transposed(perm);
        if (!next) {
          ok = false;  // not a factor permutation: the checkers leave such chains as written
          break;
        }
        v = *next;
        t = transpose(t, perm);
      }
      INFO("trial " << trial << " step " << s);
      REQUIRE(v.shape == t.dims);
      REQUIRE(apply(v).data == t.data);
      const DataView c = v.canonical();
      REQUIRE(apply(c).data == t.data);
      REQUIRE(c.canonical() == c);
      // A sum over some dims of the moved value is the normal form's sum, moved.
      std::vector<int64_t> dims;
      for (size_t k = 0; k < t.dims.size(); ++k) {
        if (rng() % 3 == 0) dims.push_back(static_cast<int64_t>(k));
      }
      if (auto r = scalify::ir::reduce_through(v, dims)) {
        const Tensor grouped = reshape(iota(base), r->groups);
        const Tensor summed = reduce_sum(grouped, r->reduced);
        REQUIRE(r->after.base == summed.dims);
        REQUIRE(apply(r->after, summed).data == reduce_sum(t, dims).data);
        ++reductions;
      }
      // The same element mapping (of this base, to this shape) has one canonical form.
      auto key = c.order;
      key.insert(key.end(), c.factors.begin(), c.factors.end());
      auto& by_shape = seen[base];
      auto signature = t.data;
      signature.insert(signature.end(), t.dims.begin(), t.dims.end());
      auto [it, fresh] = by_shape.emplace(signature, key);
      if (!fresh) {
        REQUIRE(it->second == key);
        ++compared;
      }
    }
    if (ok) ++chains;
  }
  CHECK(chains > 1000);
  CHECK(compared > 100);
  CHECK(reductions > 1000);
}

namespace {

/// An RMS norm's shape of computation on integers: each element times (1 + the sum of squares
/// of its row along `axis`) times a weight that depends on its place along `axis`.
Tensor norm_along(const Tensor& t, size_t axis) {
  int64_t inner = 1;
  for (size_t k = axis + 1; k < t.dims.size(); ++k) inner *= t.dims[k];
  const int64_t n = t.dims[axis];
  Tensor out = t;
  for (size_t flat = 0; flat < t.data.size(); ++flat) {
    const auto f = static_cast<int64_t>(flat);
    const int64_t place = (f / inner) % n;
    const int64_t row_start = f - place * inner;
    int64_t squares = 0;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t x = t.data[static_cast<size_t>(row_start + k * inner)];
      squares += x * x;
    }
    out.data[flat] = t.data[flat] * (1 + squares) * (place + 3);
  }
  return out;
}

}  // namespace

TEST_CASE("DataView: a norm along a dim of a view is a view of the norm, numerically",
          "[ir][data_view]") {
  std::mt19937 rng(11);
  int moved = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int64_t> base = random_shape(rng, 24);
    DataView v = DataView::identity(base);
    for (int step = 0; step < 3; ++step) {
      if (rng() % 2 == 0) {
        if (auto r = v.reshaped(random_shape(rng, 24))) v = *r;
      } else {
        std::vector<int64_t> perm(v.shape.size());
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng);
        if (auto t = v.transposed(perm)) v = *t;
      }
    }
    for (size_t axis = 0; axis < v.shape.size(); ++axis) {
      const auto n = scalify::ir::norm_through(v, static_cast<int64_t>(axis));
      if (!n) continue;
      const Tensor direct = norm_along(apply(v), axis);
      const Tensor grouped =
          norm_along(reshape(iota(base), n->groups), static_cast<size_t>(n->axis));
      INFO("base " << Catch::Detail::stringify(base) << ", view "
                   << Catch::Detail::stringify(v.shape) << ", axis " << axis);
      CHECK(apply(n->after, grouped).data == direct.data);
      moved += v.canonical().is_reshape() ? 0 : 1;
    }
  }
  CHECK(moved > 50);  // views that move elements, not only reshapes
  const std::vector<int64_t> reverse{2, 1, 0}, swap{1, 0};
  const auto doc = scalify::ir::norm_through(*DataView::identity({4, 1, 8}).transposed(reverse), 0);
  REQUIRE(doc);
  CHECK(doc->groups == std::vector<int64_t>{4, 8});
  CHECK(doc->axis == 1);
  CHECK(doc->after.shape == std::vector<int64_t>{8, 1, 4});
  // The axis's elements reversed in order ([2,3] transposed to [3,2], read as 6): no norm of
  // the value lines its weights up so.
  const DataView swapped = *DataView::identity({2, 3}).transposed(swap)->reshaped({6});
  CHECK_FALSE(scalify::ir::norm_through(swapped, 0));
}

namespace {

/// A dot in normal form on integers: lhs (batch, free, contracting), rhs (batch, contracting,
/// free), `nb` batch and `nc` contracting dims.
Tensor normal_dot(const Tensor& l, const Tensor& r, size_t nb, size_t nc) {
  auto count = [](const std::vector<int64_t>& d, size_t from, size_t to) {
    int64_t n = 1;
    for (size_t k = from; k < to; ++k) n *= d[k];
    return n;
  };
  const size_t lr = l.dims.size(), rr = r.dims.size();
  const int64_t b = count(l.dims, 0, nb), fl = count(l.dims, nb, lr - nc);
  const int64_t c = count(l.dims, lr - nc, lr), fr = count(r.dims, nb + nc, rr);
  Tensor out;
  out.dims.assign(l.dims.begin(), l.dims.begin() + static_cast<std::ptrdiff_t>(lr - nc));
  out.dims.insert(out.dims.end(), r.dims.begin() + static_cast<std::ptrdiff_t>(nb + nc),
                  r.dims.end());
  out.data.assign(static_cast<size_t>(b * fl * fr), 0);
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t x = 0; x < fl; ++x) {
      for (int64_t y = 0; y < fr; ++y) {
        int64_t sum = 0;
        for (int64_t k = 0; k < c; ++k) {
          sum += l.data[static_cast<size_t>((i * fl + x) * c + k)] *
                 r.data[static_cast<size_t>((i * c + k) * fr + y)];
        }
        out.data[static_cast<size_t>((i * fl + x) * fr + y)] = sum;
      }
    }
  }
  return out;
}

/// A view of a value whose dims are `leading`, `free` and `trailing` in a random order: the
/// value transposed to (leading, free shuffled, trailing), neighbouring free dims merged at
/// random.
DataView shuffled_free(std::mt19937& rng, const std::vector<int64_t>& leading,
                       const std::vector<int64_t>& free, const std::vector<int64_t>& trailing) {
  std::vector<int64_t> dims = leading;
  dims.insert(dims.end(), free.begin(), free.end());
  dims.insert(dims.end(), trailing.begin(), trailing.end());
  std::vector<int64_t> where(dims.size());  // where[i]: the base dim holding dims[i]
  std::iota(where.begin(), where.end(), 0);
  std::shuffle(where.begin(), where.end(), rng);
  std::vector<int64_t> base(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) base[static_cast<size_t>(where[i])] = dims[i];
  std::vector<int64_t> perm = where;  // base → (leading, free, trailing)
  std::shuffle(perm.begin() + static_cast<std::ptrdiff_t>(leading.size()),
               perm.begin() + static_cast<std::ptrdiff_t>(leading.size() + free.size()), rng);
  DataView v = *DataView::identity(base).transposed(perm);
  std::vector<int64_t> shape(leading);
  for (size_t i = 0; i < free.size(); ++i) {
    const int64_t d = v.shape[leading.size() + i];
    if (i > 0 && rng() % 2 == 0) {
      shape.back() *= d;
    } else {
      shape.push_back(d);
    }
  }
  shape.insert(shape.end(), trailing.begin(), trailing.end());
  return *v.reshaped(shape);
}

}  // namespace

TEST_CASE("DataView: a dot of views is a view of a dot, numerically", "[ir][data_view]") {
  std::mt19937 rng(13);
  int moved = 0;
  for (int trial = 0; trial < 400; ++trial) {
    auto sizes = [&](size_t lo, size_t hi) {
      std::vector<int64_t> s(lo + rng() % (hi - lo + 1));
      for (int64_t& d : s) d = 2 + static_cast<int64_t>(rng() % 3);
      return s;
    };
    const std::vector<int64_t> batch = sizes(0, 1), contracting = sizes(1, 1);
    std::vector<int64_t> lhs_lead = batch, rhs_lead = batch;
    rhs_lead.insert(rhs_lead.end(), contracting.begin(), contracting.end());
    const DataView l = shuffled_free(rng, lhs_lead, sizes(1, 3), contracting);
    const DataView r = shuffled_free(rng, rhs_lead, sizes(1, 2), {});
    const size_t nb = batch.size(), nc = contracting.size();
    Tensor rhs_value = iota(r.base);
    for (int64_t& x : rhs_value.data) x = 3 * x + 1;
    const Tensor direct = normal_dot(apply(l), apply(r, rhs_value), nb, nc);
    const auto d =
        scalify::ir::dot_through(l, r, static_cast<int64_t>(nb), static_cast<int64_t>(nc));
    INFO("lhs " << Catch::Detail::stringify(l.base) << " as " << Catch::Detail::stringify(l.shape)
                << ", rhs " << Catch::Detail::stringify(r.base) << " as "
                << Catch::Detail::stringify(r.shape));
    if (!d) {
      // Nothing to pull out: each operand's free factors are in their value's order.
      for (const auto& [v, lo, hi] :
           {std::tuple{l, nb, l.shape.size() - nc}, std::tuple{r, nb + nc, r.shape.size()}}) {
        const auto al = v.aligned();
        REQUIRE(al);
        std::vector<int64_t> free;
        for (size_t k = lo; k < hi; ++k)
          free.insert(free.end(), al->second[k].begin(), al->second[k].end());
        CHECK(std::is_sorted(free.begin(), free.end()));
      }
      continue;
    }
    ++moved;
    const Tensor inner = normal_dot(apply(d->lhs), apply(d->rhs, rhs_value), nb, nc);
    REQUIRE(d->after.base == inner.dims);
    REQUIRE(d->after.shape == direct.dims);
    CHECK(apply(d->after, inner).data == direct.data);
    // The operands are read with their free factors in the value's order: nothing more to pull.
    CHECK_FALSE(scalify::ir::dot_through(d->lhs, d->rhs, static_cast<int64_t>(nb),
                                         static_cast<int64_t>(nc)));
  }
  CHECK(moved > 200);
  // The doc example: x f32[4,2,3] read as [2,4,3], merged to [8,3], is x reshaped.
  const DataView l =
      *DataView::identity({4, 2, 3}).transposed(std::vector<int64_t>{1, 0, 2})->reshaped({8, 3});
  const auto doc = scalify::ir::dot_through(l, DataView::identity({3, 5}), 0, 1);
  REQUIRE(doc);
  CHECK(doc->lhs.shape == std::vector<int64_t>{8, 3});
  CHECK(doc->lhs.canonical().is_reshape());
  CHECK(doc->after.shape == std::vector<int64_t>{8, 5});
  CHECK_FALSE(
      scalify::ir::dot_through(DataView::identity({8, 3}), DataView::identity({3, 5}), 0, 1));
}

TEST_CASE("DataView: where a dot's free dims land in its result", "[ir][data_view]") {
  using scalify::ir::dot_result_dim;
  const std::vector<int64_t> batch{0}, lhs_contracting{2}, rhs_contracting{1};
  // dot(f32[2,8,4] l, f32[2,4,6] r): result [2,8,6].
  CHECK(dot_result_dim(batch, lhs_contracting, 3, batch, rhs_contracting, 0, 1) == 1);
  CHECK(dot_result_dim(batch, lhs_contracting, 3, batch, rhs_contracting, 1, 2) == 2);
  CHECK_FALSE(dot_result_dim(batch, lhs_contracting, 3, batch, rhs_contracting, 0, 2));
  CHECK_FALSE(dot_result_dim(batch, lhs_contracting, 3, batch, rhs_contracting, 1, 0));
  // A matmul of f32[4,8] and f32[8,6] with the lhs contracting dim 1: its rows stay dim 0.
  const std::vector<int64_t> none, one{1}, zero{0};
  CHECK(dot_result_dim(none, one, 2, none, zero, 0, 0) == 0);
  CHECK(dot_result_dim(none, one, 2, none, zero, 1, 1) == 1);
}

namespace {

/// A random chain of reshapes and transposes from a random shape of n elements ending at
/// `shape` (nullopt when a transpose drawn cannot be taken).
std::optional<DataView> random_view_to(std::mt19937& rng, int64_t n,
                                       const std::vector<int64_t>& shape) {
  DataView v = DataView::identity(random_shape(rng, n));
  for (int s = static_cast<int>(rng() % 3); s-- > 0;) {
    v = *v.reshaped(random_shape(rng, n));
    std::vector<int64_t> perm(v.shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    auto next = v.transposed(perm);
    if (!next) return std::nullopt;
    v = *next;
  }
  return v.reshaped(shape);
}

}  // namespace

TEST_CASE("DataView: an elementwise op of views is a view of the op, numerically",
          "[ir][data_view]") {
  // op(a, b, c) = a + 100 b + 10000 c on distinct values, so that a misplaced element shows;
  // operand 2 is sometimes a number.
  std::mt19937 rng(29);
  const int64_t sizes[] = {6, 12, 24, 36};
  int taken = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t n = sizes[rng() % std::size(sizes)];
    const std::vector<int64_t> shape = random_shape(rng, n);
    std::vector<std::optional<DataView>> views;
    for (int j = 0; j < 3; ++j) {
      if (j == 2 && rng() % 2 == 0) {
        views.emplace_back();
        continue;
      }
      auto v = random_view_to(rng, n, shape);
      if (!v) break;
      views.push_back(*v);
    }
    if (views.size() < 3 || !views[0]) continue;
    const DataView target = views[0]->canonical();
    const auto inner = scalify::ir::elementwise_through(views, target);
    if (!inner) continue;
    auto value = [&](size_t j) {
      Tensor t = iota((*views[j]).base);
      for (int64_t& x : t.data) x = x * 7 + static_cast<int64_t>(j);
      return t;
    };
    auto combine = [](const std::vector<Tensor>& parts, int64_t number) {
      Tensor out = parts[0];
      for (size_t i = 0; i < out.data.size(); ++i) {
        out.data[i] +=
            100 * parts[1].data[i] + 10000 * (parts.size() > 2 ? parts[2].data[i] : number);
      }
      return out;
    };
    std::vector<Tensor> direct, under;
    for (size_t j = 0; j < 3; ++j) {
      if (!views[j]) continue;
      direct.push_back(apply(*views[j], value(j)));
      REQUIRE((*inner)[j]);
      REQUIRE((*inner)[j]->shape == target.base);
      under.push_back(apply(*(*inner)[j], value(j)));
    }
    INFO("trial " << trial);
    CHECK(apply(target, combine(under, 3)).data == combine(direct, 3).data);
    ++taken;
  }
  CHECK(taken > 200);
}
