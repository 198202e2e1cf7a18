// The device mesh: named axes with sizes (`tp=8`, `dp=2,tp=4`), which device sits at each
// position of the grid, and how a collective's replica groups map onto its axes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "support/expected.h"

namespace scalify::verify {

struct MeshAxis {
  std::string name;
  int64_t size = 1;
  friend bool operator==(const MeshAxis&, const MeshAxis&) = default;
};

/// Named axes over a grid of devices. Positions in the grid are row-major over the axes (the
/// last axis varies fastest); the device at each position is the position itself (XLA's iota
/// device lists) unless a device order says otherwise, as a program whose shardings list the
/// devices as `devices=[4]3,2,1,0` is written for (JAX's `Mesh` over a device array).
///
///   auto m = Mesh::parse("dp=2,tp=4");
///   m->device_count() == 8; m->coordinate(5, 0) == 1; m->coordinate(5, 1) == 1;
///   m->axes_of(groups {{0,1,2,3},{4,5,6,7}}) == std::vector<size_t>{1};   // tp
///   auto r = Mesh::parse("tp=4 devices=[3,2,1,0]");
///   r->coordinate(3, 0) == 0;   // device 3 holds block 0 of a shard(…,tp)
class Mesh {
 public:
  Mesh() = default;
  explicit Mesh(std::vector<MeshAxis> axes) : axes_(std::move(axes)) {}
  /// `tp=8` or `dp=2,tp=4`: names are letters, digits and `_`; sizes at least 1. A device order
  /// may follow: `tp=4 devices=[3,2,1,0]` (the device at each position, a permutation).
  static Expected<Mesh> parse(std::string_view text);

  /// This mesh with `order[p]` the device at position p; an empty or identity order is the
  /// iota one. nullopt unless `order` is a permutation of the devices.
  std::optional<Mesh> with_device_order(std::vector<int64_t> order) const;
  /// The device at each position; empty when it is the position itself.
  const std::vector<int64_t>& device_order() const { return order_; }
  /// The device at position p, and the position of a device.
  int64_t device_at(int64_t position) const {
    return order_.empty() ? position : order_[static_cast<size_t>(position)];
  }
  /// (A number that is no device of the mesh is its own position, as in the iota order.)
  int64_t position_of(int64_t device) const {
    const bool mapped = device >= 0 && static_cast<size_t>(device) < positions_.size();
    return mapped ? positions_[static_cast<size_t>(device)] : device;
  }

  const std::vector<MeshAxis>& axes() const { return axes_; }
  size_t rank() const { return axes_.size(); }
  int64_t device_count() const;
  std::optional<size_t> find(std::string_view name) const;
  const std::string& name(size_t axis) const { return axes_[axis].name; }
  int64_t size(size_t axis) const { return axes_[axis].size; }
  /// The coordinate on `axis` of the position `device` sits at.
  int64_t coordinate(int64_t device, size_t axis) const;

  /// The axes a collective communicates over: its groups must be exactly the sets of devices
  /// that agree on every other axis, each group in the order of the devices' positions unless
  /// `in_order` is false (a reduction, which does not care). Empty `groups` means all devices,
  /// in the order of their numbers. An empty result: groups of one device (no communication).
  /// nullopt: the groups are not a union of mesh axes.
  std::optional<std::vector<size_t>> axes_of(const ir::ReplicaGroups& groups,
                                             bool in_order = true) const;

  /// `tp=2` / `dp=2,tp=4` / `tp=4 devices=[3,2,1,0]`
  std::string to_string() const;
  friend bool operator==(const Mesh&, const Mesh&) = default;

 private:
  std::vector<MeshAxis> axes_;
  std::vector<int64_t> order_;      ///< the device at each position; empty: iota
  std::vector<int64_t> positions_;  ///< the inverse of order_
};

}  // namespace scalify::verify
