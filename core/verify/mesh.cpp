#include "verify/mesh.h"

#include <algorithm>
#include <charconv>

namespace scalify::verify {

namespace {

bool valid_name(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

Diagnostic mesh_error(std::string message) {
  return Diagnostic{"--mesh", {}, std::move(message), ""};
}

/// The device list of `devices=[3,2,1,0]`.
Expected<std::vector<int64_t>> parse_device_list(std::string_view text) {
  const std::string_view prefix = "devices=[";
  if (!text.starts_with(prefix) || !text.ends_with(']')) {
    return mesh_error("'" + std::string(text) + "' is not devices=[D,D,...]");
  }
  text = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  std::vector<int64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    int64_t device = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), device);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) {
      return mesh_error("'" + std::string(item) + "' in the device list is not a device number");
    }
    out.push_back(device);
    start = comma + 1;
  }
  return out;
}

}  // namespace

Expected<Mesh> Mesh::parse(std::string_view text) {
  const size_t space = text.find(' ');
  if (space != std::string_view::npos) {
    auto mesh = parse(text.substr(0, space));
    if (!mesh) return mesh.error();
    const size_t list = text.find_first_not_of(' ', space);
    auto order = parse_device_list(list == std::string_view::npos ? "" : text.substr(list));
    if (!order) return order.error();
    auto ordered = mesh->with_device_order(std::move(*order));
    if (!ordered) {
      return mesh_error("the device list is not an order of the mesh's " +
                        std::to_string(mesh->device_count()) + " devices");
    }
    return *ordered;
  }
  std::vector<MeshAxis> axes;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string_view item = text.substr(start, comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return mesh_error("'" + std::string(item) +
                        "' is not NAME=SIZE (write e.g. tp=8 or dp=2,tp=4)");
    }
    const std::string_view name = item.substr(0, eq), size_text = item.substr(eq + 1);
    int64_t size = 0;
    const auto [end, ec] =
        std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (!valid_name(name)) return mesh_error("'" + std::string(name) + "' is not an axis name");
    if (ec != std::errc() || end != size_text.data() + size_text.size() || size < 1 ||
        size > (int64_t{1} << 20)) {
      return mesh_error("the size of axis '" + std::string(name) +
                        "' must be a whole number from 1");
    }
    for (const MeshAxis& a : axes) {
      if (a.name == name) return mesh_error("axis '" + std::string(name) + "' is named twice");
    }
    axes.push_back({std::string(name), size});
    start = comma + 1;
  }
  return Mesh(std::move(axes));
}

int64_t Mesh::device_count() const {
  int64_t n = 1;
  for (const MeshAxis& a : axes_) n *= a.size;
  return n;
}

std::optional<size_t> Mesh::find(std::string_view name) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<Mesh> Mesh::with_device_order(std::vector<int64_t> order) const {
  Mesh out(axes_);
  const int64_t n = device_count();
  if (order.empty()) return out;
  if (static_cast<int64_t>(order.size()) != n) return std::nullopt;
  std::vector<int64_t> positions(order.size(), -1);
  bool iota = true;
  for (size_t p = 0; p < order.size(); ++p) {
    const int64_t d = order[p];
    if (d < 0 || d >= n || positions[static_cast<size_t>(d)] >= 0) return std::nullopt;
    positions[static_cast<size_t>(d)] = static_cast<int64_t>(p);
    iota = iota && d == static_cast<int64_t>(p);
  }
  if (!iota) {
    out.order_ = std::move(order);
    out.positions_ = std::move(positions);
  }
  return out;
}

int64_t Mesh::coordinate(int64_t device, size_t axis) const {
  device = position_of(device);
  for (size_t i = axes_.size(); i-- > axis + 1;) device /= axes_[i].size;
  return device % axes_[axis].size;
}

std::optional<std::vector<size_t>> Mesh::axes_of(const ir::ReplicaGroups& replica_groups,
                                                 bool in_order) const {
  const int64_t n = device_count();
  std::vector<std::vector<int64_t>> groups = replica_groups.groups;
  if (groups.empty() || (groups.size() == 1 && groups[0].empty())) {
    groups.assign(1, {});
    for (int64_t d = 0; d < n; ++d) groups[0].push_back(d);
  }
  // The axes along which the first group's devices differ.
  std::vector<size_t> axes;
  for (size_t a = 0; a < axes_.size(); ++a) {
    for (int64_t d : groups[0]) {
      if (d < 0 || d >= n) return std::nullopt;
      if (coordinate(d, a) != coordinate(groups[0][0], a)) {
        axes.push_back(a);
        break;
      }
    }
  }
  // Every group must then be exactly the devices agreeing with its first on the other axes,
  // listed in the order of their positions, and the groups must cover every device once.
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (const auto& group : groups) {
    if (group.empty()) return std::nullopt;
    for (int64_t d : group) {
      if (d < 0 || d >= n) return std::nullopt;
    }
    std::vector<int64_t> expected;
    for (int64_t p = 0; p < n; ++p) {
      const int64_t d = device_at(p);
      bool same = true;
      for (size_t a = 0; a < axes_.size() && same; ++a) {
        const bool spans = std::find(axes.begin(), axes.end(), a) != axes.end();
        if (!spans && coordinate(d, a) != coordinate(group[0], a)) same = false;
      }
      if (same) expected.push_back(d);
    }
    if (in_order
            ? expected != group
            : !std::is_permutation(expected.begin(), expected.end(), group.begin(), group.end())) {
      return std::nullopt;
    }
    for (int64_t d : group) {
      if (seen[static_cast<size_t>(d)]) return std::nullopt;
      seen[static_cast<size_t>(d)] = true;
    }
  }
  if (std::find(seen.begin(), seen.end(), false) != seen.end()) return std::nullopt;
  return axes;
}

std::string Mesh::to_string() const {
  std::string out;
  for (const MeshAxis& a : axes_) {
    if (!out.empty()) out += ',';
    out += a.name + "=" + std::to_string(a.size);
  }
  if (out.empty()) return "(one device)";
  if (!order_.empty()) {
    out += " devices=[";
    for (size_t p = 0; p < order_.size(); ++p) out += (p ? "," : "") + std::to_string(order_[p]);
    out += ']';
  }
  return out;
}

}  // namespace scalify::verify
