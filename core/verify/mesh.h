// The device mesh: named axes with sizes (`tp=8`, `dp=2,tp=4`), and how a collective's replica
// groups map onto its axes.
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

/// Named axes; device ids are row-major over the axes (the last axis varies fastest), as in
/// XLA's iota device lists.
///
///   auto m = Mesh::parse("dp=2,tp=4");
///   m->device_count() == 8; m->coordinate(5, 0) == 1; m->coordinate(5, 1) == 1;
///   m->axes_of(groups {{0,1,2,3},{4,5,6,7}}) == std::vector<size_t>{1};   // tp
class Mesh {
 public:
  Mesh() = default;
  explicit Mesh(std::vector<MeshAxis> axes) : axes_(std::move(axes)) {}
  /// `tp=8` or `dp=2,tp=4`: names are letters, digits and `_`; sizes at least 1.
  static Expected<Mesh> parse(std::string_view text);

  const std::vector<MeshAxis>& axes() const { return axes_; }
  size_t rank() const { return axes_.size(); }
  int64_t device_count() const;
  std::optional<size_t> find(std::string_view name) const;
  const std::string& name(size_t axis) const { return axes_[axis].name; }
  int64_t size(size_t axis) const { return axes_[axis].size; }
  int64_t coordinate(int64_t device, size_t axis) const;

  /// The axes a collective communicates over: its groups must be exactly the sets of devices
  /// that agree on every other axis (each group in the order of its coordinates). Empty
  /// `groups` means all devices. An empty result: groups of one device (no communication).
  /// nullopt: the groups are not a union of mesh axes.
  std::optional<std::vector<size_t>> axes_of(const ir::ReplicaGroups& groups) const;

  /// `tp=2` / `dp=2,tp=4`
  std::string to_string() const;
  friend bool operator==(const Mesh&, const Mesh&) = default;

 private:
  std::vector<MeshAxis> axes_;
};

}  // namespace scalify::verify
