// Pure data movement in one normal form: any chain of reshapes and transposes of a value reads
// the value's elements in row-major order as a list of factors, permutes the factors and writes
// them out row-major in a new shape. Two chains move every element to the same place exactly
// when their canonical DataViews are equal, so both checkers write every such chain in that one
// form and programs that lay a value out differently (a head dimension split, transposed and
// squeezed in another order) meet.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace scalify::ir {

/// `shape` is read from the base value as: base flattened row-major, cut into `factors` (major
/// to minor), factor `order[i]` placed i-th, flattened again and cut into `shape`.
///
///   DataView v = DataView::identity({4, 6});          // a [4,6] value
///   v = *v.reshaped({4, 2, 3});
///   v = *v.transposed({1, 0, 2});                       // [2,4,3]
///   DataView c = v.canonical();
///   c.factors == {4, 2, 3}; c.order == {1, 0, 2}; c.shape == {2, 4, 3};
///   DataView::identity({4, 6}).reshaped({24})->canonical().is_reshape() == true;
struct DataView {
  std::vector<int64_t> base;
  std::vector<int64_t> factors;
  std::vector<int64_t> order;
  std::vector<int64_t> shape;

  static DataView identity(std::vector<int64_t> shape);
  /// A value of shape `dims` whose dim `from` is cut into (n, dims[from] / n), that n (the block
  /// index) moved to the front of dim `to`: the view under which a shard of dim `from` is a
  /// shard of dim `to` (each rank's block the same). nullopt: n does not divide the dim.
  ///
  ///   DataView::block_moved({16, 2}, 0, 1, 2)->shape == {8, 4}
  static std::optional<DataView> block_moved(const std::vector<int64_t>& dims, int64_t from,
                                             int64_t to, int64_t n);
  /// The same elements in another shape (row-major): nullopt if the element count differs.
  std::optional<DataView> reshaped(std::vector<int64_t> new_shape) const;
  /// XLA's transpose: result dim i is dim `permutation[i]`. nullopt when a dim of `shape` is
  /// not made of whole factors and cannot be (a reshape to [3,2] of a [2,3] value, then
  /// transposed), or the permutation is not one.
  std::optional<DataView> transposed(std::span<const int64_t> permutation) const;
  /// The normal form: no factor of size 1, no two factors that stay neighbours in order merged
  /// (one list of factors per element mapping).
  DataView canonical() const;
  /// Whether the factors keep their order (the chain is one reshape of the base).
  bool is_reshape() const;
  /// The shape of the permuted factors (the transpose in the normal form's middle).
  std::vector<int64_t> permuted_factors() const;
  /// The canonical view with its factors cut so that every dim of `shape` is a run of whole
  /// factors, and per dim of `shape` its factors (indices into `factors`) in order. nullopt when
  /// a dim cannot be cut so (see transposed()).
  std::optional<std::pair<DataView, std::vector<std::vector<int64_t>>>> aligned() const;
  friend bool operator==(const DataView&, const DataView&) = default;
};

/// A dot in normal form: its operands transposed by `lhs_order` and `rhs_order` to (batch, free,
/// contracting) and (batch, contracting, free) order, after which the dot names positions only
/// (batch dims first, the lhs's contracting dims last, the rhs's right after its batch dims).
/// The result is the same dot's. nullopt when the dimension lists do not pair up.
///
///   // dot(f32[2,128,16] l, f32[16,2,128] r), batch {0} and {1}, contracting {2} and {0}:
///   auto n = dot_normal_form({0}, {2}, 3, {1}, {0}, 3);
///   n->rhs_order == {1, 0, 2}; n->lhs_contracting == {2}; n->rhs_contracting == {1};
struct DotNormalForm {
  std::vector<int64_t> lhs_order, rhs_order;
  std::vector<int64_t> lhs_batch, lhs_contracting, rhs_batch, rhs_contracting;
};
std::optional<DotNormalForm> dot_normal_form(std::span<const int64_t> lhs_batch,
                                             std::span<const int64_t> lhs_contracting,
                                             int64_t lhs_rank, std::span<const int64_t> rhs_batch,
                                             std::span<const int64_t> rhs_contracting,
                                             int64_t rhs_rank);

/// Where free dim `dim` of a dot's operand `side` (0: lhs, 1: rhs) lands in the dot's result:
/// the batch dims come first, then the lhs's free dims, then the rhs's, each in order. nullopt
/// when `dim` is a batch or contracting dim of that operand.
///
///   // dot(f32[2,8,4] l, f32[2,4,6] r), batch {0} and {0}, contracting {2} and {1}
///   dot_result_dim({0}, {2}, 3, {0}, {1}, 1, 2) == 2   // the rhs's 6 after the lhs's 8
std::optional<int64_t> dot_result_dim(std::span<const int64_t> lhs_batch,
                                      std::span<const int64_t> lhs_contracting, int64_t lhs_rank,
                                      std::span<const int64_t> rhs_batch,
                                      std::span<const int64_t> rhs_contracting, size_t side,
                                      int64_t dim);

/// A dot of views as a view of a dot: the operands, in the dot's normal form (lhs in (batch,
/// free, contracting) order, rhs in (batch, contracting, free) order; `batch` and `contracting`
/// dims each), are views of values. Where a view lays out the factors of its free dims in
/// another order than its value holds them (rows merged with heads the other way round), the
/// dot reads those factors in the value's order instead, neighbours merged, and `after` moves
/// the result into the dot's shape. nullopt when neither operand's free factors are permuted.
///
///   // lhs: x f32[4,2,3] read as [2,4,3] (its free factors swapped) and merged to [8,3]
///   DataView l = *DataView::identity({4, 2, 3}).transposed({1, 0, 2})->reshaped({8, 3});
///   auto d = dot_through(l, DataView::identity({3, 5}), 0, 1);
///   d->lhs.shape == {8, 3}; d->lhs.canonical().is_reshape(); d->after.shape == {8, 5};
struct DotThroughViews {
  DataView lhs, rhs;  ///< the views the dot reads its operands through instead
  DataView after;     ///< from that dot's result to the dot's
};
std::optional<DotThroughViews> dot_through(const DataView& lhs, const DataView& rhs, int64_t batch,
                                           int64_t contracting);

/// A reduce of a view as a view of a reduce of the viewed value: the value read as `groups`
/// (major to minor), groups `reduced` reduced, the result (the kept groups, in order) moved by
/// `after` into the reduce's result shape. The groups are the coarsest: neighbouring factors
/// alike (both reduced or both kept) are one, so that equal reductions of one value agree.
///
///   // reduce(transpose(x f32[2,128,8] as [128,2,8]) reshaped [128,16], dimensions={0}):
///   auto r = reduce_through(view, {0});
///   r->groups == {2, 128, 8}; r->reduced == {1}; r->after.shape == {16};
struct ReduceThroughView {
  std::vector<int64_t> groups;
  std::vector<int64_t> reduced;
  DataView after;
};
std::optional<ReduceThroughView> reduce_through(const DataView& view,
                                                std::span<const int64_t> dims);

/// A normalisation along one dim of a view (an RMS norm: every element divided by a statistic
/// of its row along `axis`, then multiplied by a weight indexed by its place along `axis`) as
/// a view of the normalisation of the viewed value: the value read as `groups` (major to
/// minor), normalised along group `axis`, then moved by `after` into the view's shape. Only
/// when the axis's elements keep their order in the value (one run of factors, unpermuted),
/// so that the weight lines up; nullopt otherwise.
///
///   // a [4,1,8] value transposed to [8,1,4], normalised along dim 0
///   DataView v = *DataView::identity({4, 1, 8}).transposed({2, 1, 0});
///   auto n = norm_through(v, 0);
///   n->groups == {4, 8}; n->axis == 1; n->after.shape == {8, 1, 4};
struct NormThroughView {
  std::vector<int64_t> groups;
  int64_t axis = -1;
  DataView after;
};
std::optional<NormThroughView> norm_through(const DataView& view, int64_t axis);

/// An elementwise op of views as a view of the op: operand j is value j moved as `views[j]`
/// (nullopt: a number, which fits any shape), each ending at one shape, `target`'s. The op is
/// `target` of the op of the values moved as the returned views (each `views[j]`, then `target`
/// undone), which end at target's base. nullopt when a view cannot be undone so (factors that do
/// not line up). The caller chooses `target`: the view of one operand, whose value then needs no
/// move, so that programs that combine the same values in other layouts meet.
///
///   // add(x [8,1,4] transposed to [4,1,8], y [4,8] reshaped to [4,1,8]), target x's view:
///   // the add of x and y transposed to [8,1,4], transposed back after
///   auto inner = elementwise_through({x_view, y_view}, x_view);
///   (*inner)[0]->canonical().is_reshape();  (*inner)[1]->shape == {8, 1, 4};
std::optional<std::vector<std::optional<DataView>>> elementwise_through(
    std::span<const std::optional<DataView>> views, const DataView& target);

/// A reshape of a broadcast as a broadcast of a reshape: `broadcast` has shape `shape` and
/// keeps the operand's dims at `kept` (ascending); the reshape to `to` is a broadcast of the
/// operand reshaped to `operand`, keeping dims `dimensions` of `to`, when no dim of `to` mixes
/// kept elements with repeated ones. nullopt otherwise.
///
///   // broadcast(x f32[256], dimensions={2}) to [1,1,256,128], reshaped to [1,2,128,128]:
///   auto b = broadcast_reshaped({1, 1, 256, 128}, {2}, {1, 2, 128, 128});
///   b->operand == {2, 128}; b->dimensions == {1, 2};
struct ReshapedBroadcast {
  std::vector<int64_t> operand;
  std::vector<int64_t> dimensions;
};
std::optional<ReshapedBroadcast> broadcast_reshaped(std::span<const int64_t> shape,
                                                    std::span<const int64_t> kept,
                                                    std::span<const int64_t> to);

}  // namespace scalify::ir
