// Layouts: how a value x of the distributed program relates to a value X of the reference,
// one part per mesh axis (replicated, sharded along a dim, or a partial reduction).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "verify/mesh.h"

namespace scalify::verify {

/// How partial values combine into the reference value.
enum class ReduceOp : uint8_t { kSum, kMax, kMin, kProduct, kMean };
std::string_view reduce_op_name(ReduceOp op);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);

/// What one mesh axis does to a value.
///   kRep      every rank along the axis holds X
///   kShard    X is the concatenation along `dim` of the ranks' x (in axis order); when the
///             ranks hold padded shards, X is the first `full` entries of that concatenation
///   kPartial  X is `op` over the ranks' x
struct AxisLayout {
  enum class Kind : uint8_t { kRep, kShard, kPartial };
  Kind kind = Kind::kRep;
  int32_t dim = -1;              ///< kShard
  int64_t full = -1;             ///< kShard: the reference extent when the shards are padded
  bool zero_pad = false;         ///< kShard, padded: the padding holds zeros (a contract)
  ReduceOp op = ReduceOp::kSum;  ///< kPartial

  static AxisLayout rep() { return {}; }
  static AxisLayout shard(int32_t dim, int64_t full = -1, bool zero_pad = false) {
    return {Kind::kShard, dim, full, zero_pad && full >= 0, ReduceOp::kSum};
  }
  static AxisLayout partial(ReduceOp op) { return {Kind::kPartial, -1, -1, false, op}; }
  bool is_rep() const { return kind == Kind::kRep; }
  bool is_shard() const { return kind == Kind::kShard; }
  bool is_partial() const { return kind == Kind::kPartial; }
  friend bool operator==(const AxisLayout&, const AxisLayout&) = default;
};

/// A layout over the whole mesh: one AxisLayout per mesh axis. Two axes sharding the same dim
/// split it major (the earlier axis) to minor.
///
///   Mesh m = *Mesh::parse("tp=2");
///   Layout l = Layout::on(m, 0, AxisLayout::shard(1));
///   l.to_string(m) == "shard(1,tp)";
///   l.reference_dims({4, 3}, m) == std::vector<int64_t>{4, 6};
struct Layout {
  std::vector<AxisLayout> axes;

  /// Replicated on every axis of a mesh of `rank` axes.
  static Layout replicated(size_t rank) { return Layout{std::vector<AxisLayout>(rank)}; }
  /// Replicated except on `axis`.
  static Layout on(const Mesh& mesh, size_t axis, AxisLayout part);

  bool is_rep() const;
  bool has_partial() const;
  /// This layout with every partial(mean) axis read as a partial sum, and the factor the value
  /// is then multiplied by (the product of those axes' sizes; 1 when there is none): each
  /// rank's part of a mean of X is its part of a sum of n X.
  ///
  ///   Layout::on(tp2, 0, AxisLayout::partial(ReduceOp::kMean)).means_as_sums(tp2) ==
  ///     std::pair{Layout::on(tp2, 0, AxisLayout::partial(ReduceOp::kSum)), int64_t{2}}
  std::pair<Layout, int64_t> means_as_sums(const Mesh& mesh) const;
  /// The first axis after `axis` (a minor one) that also shards dim `d`, if any. Gathering or
  /// scattering `axis` along d is then not a layout's move: the minor axis's blocks are the
  /// inner ones, so it goes first (a major axis sharding d is fine: its blocks stay outside).
  std::optional<size_t> minor_shard(size_t axis, int32_t d) const;
  /// How many ways dim `d` is split (the product of the sizes of the axes sharding it).
  int64_t split(int32_t d, const Mesh& mesh) const;
  /// The reference value's dims given the distributed value's (per-rank) dims: sharded dims
  /// multiplied by their split, padded ones cut to `full`. nullopt if a dim is out of range.
  std::optional<std::vector<int64_t>> reference_dims(const std::vector<int64_t>& local,
                                                     const Mesh& mesh) const;

  /// `rep`, `shard(1,tp)`, `partial(sum,tp)`, `shard(0,dp)+partial(sum,tp)`; padding as
  /// `shard(0,tp,pad 50257)`, padding known to hold zeros as `shard(1,tp,pad 4096,zeros)`.
  std::string to_string(const Mesh& mesh) const;
  /// The inverse of to_string: `rep`, or parts joined by '+' (`shard(1,tp)`,
  /// `shard(0,tp,pad 50257)`, `partial(sum,tp)`); spaces between tokens are allowed. nullopt on
  /// bad text, an unknown axis, an axis named twice, a negative dim or a pad below 1.
  ///
  ///   Mesh m = *Mesh::parse("dp=2,tp=4");
  ///   Layout::parse("shard(0,dp)+partial(sum,tp)", m)->to_string(m) ==
  ///   "shard(0,dp)+partial(sum,tp)"; Layout::parse("shard(1,pp)", m) == std::nullopt;   // no axis
  ///   pp
  static std::optional<Layout> parse(std::string_view text, const Mesh& mesh);
  friend bool operator==(const Layout&, const Layout&) = default;
};

}  // namespace scalify::verify
