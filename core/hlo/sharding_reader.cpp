// Readers for device lists: shardings, replica groups and their iota forms.
#include <algorithm>

#include "hlo/value_reader.h"

namespace scalify::hlo {
namespace {

// Bound on materialised device lists: far above any real mesh, low enough that fuzzed input
// cannot make the reader allocate gigabytes.
constexpr int64_t kMaxDevices = int64_t{1} << 22;

std::vector<int64_t> read_int_list(Cursor& c, char close, std::string_view what) {
  std::vector<int64_t> v;
  if (c.eat(close)) return v;
  do {
    v.push_back(c.integer(what));
  } while (c.eat(','));
  c.expect(close, "to close the list");
  return v;
}

int64_t checked_product(Cursor& c, const char* at, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d <= 0) c.fail_at(at, "device list dimensions must be positive");
    if (n > kMaxDevices / d) c.fail_at(at, "device list too large");
    n *= d;
  }
  return n;
}

}  // namespace

ir::IotaDevices read_iota_devices(Cursor& c) {
  const char* start = c.ptr();
  ir::IotaDevices iota;
  c.expect('[', "to open the device array shape");
  iota.dims = read_int_list(c, ']', "device array dimension");
  if (!c.eat("<=")) c.fail("expected '<=' in the iota device list");
  c.expect('[', "after '<='");
  iota.reshape_dims = read_int_list(c, ']', "iota reshape dimension");
  c.skip_ws();
  if (c.peek() == 'T' && c.peek(1) == '(') {
    c.advance(2);
    iota.transpose = read_int_list(c, ')', "iota transpose");
  }
  if (iota.dims.empty() || iota.reshape_dims.empty()) c.fail_at(start, "empty iota device list");
  if (checked_product(c, start, iota.dims) != checked_product(c, start, iota.reshape_dims)) {
    c.fail_at(start,
              "iota device list: the shape " + iota.to_string() + " changes the device count");
  }
  if (!iota.transpose.empty()) {
    std::vector<int64_t> sorted = iota.transpose;
    std::sort(sorted.begin(), sorted.end());
    bool ok = sorted.size() == iota.reshape_dims.size();
    for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
    if (!ok)
      c.fail_at(start, "iota device list: T(…) is not a permutation of the reshape dimensions");
  }
  return iota;
}

ir::ReplicaGroups read_replica_groups(Cursor& c) {
  c.skip_ws();
  ir::ReplicaGroups rg;
  if (c.peek() == '[') {
    const char* start = c.ptr();
    rg.iota = read_iota_devices(c);
    if (rg.iota->dims.size() != 2)
      c.fail_at(start, "iota replica groups need a 2-D shape [groups,size]");
    const std::vector<int64_t> ids = rg.iota->materialize();
    const auto size = static_cast<size_t>(rg.iota->dims[1]);
    for (size_t i = 0; i < ids.size(); i += size)
      rg.groups.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(i),
                             ids.begin() + static_cast<std::ptrdiff_t>(i + size));
    return rg;
  }
  c.expect('{', "to open the replica groups");
  if (c.eat('}')) return rg;
  do {
    c.expect('{', "to open a replica group");
    rg.groups.push_back(read_int_list(c, '}', "replica id"));
  } while (c.eat(','));
  c.expect('}', "to close the replica groups");
  return rg;
}

ir::Sharding read_sharding(Cursor& c, int depth) {
  if (depth > 32) c.fail("sharding nested too deeply");
  const char* start = c.ptr();
  c.expect('{', "to open the sharding");
  ir::Sharding s;
  c.skip_ws();
  if (c.peek() == '{' || c.peek() == '}') {  // a tuple sharding (possibly empty)
    s.kind = ir::Sharding::Kind::kTuple;
    if (c.eat('}')) return s;
    do {
      s.elements.push_back(read_sharding(c, depth + 1));
    } while (c.eat(','));
    c.expect('}', "to close the tuple sharding");
    return s;
  }
  bool have_kind = false;
  const char* options_at = nullptr;  // where a tiled-only option was written
  while (!c.eat('}')) {
    const char* at = c.ptr();
    std::string_view w = c.word();
    auto set_kind = [&](ir::Sharding::Kind kind) {
      if (have_kind) c.fail_at(at, "a sharding has one kind; '" + std::string(w) + "' is a second");
      s.kind = kind;
      have_kind = true;
    };
    if (w == "replicated" || w == "manual" || w == "unknown" || w == "unreduced") {
      set_kind(w == "replicated" ? ir::Sharding::Kind::kReplicated
               : w == "manual"   ? ir::Sharding::Kind::kManual
               : w == "unknown"  ? ir::Sharding::Kind::kUnknown
                                 : ir::Sharding::Kind::kUnreduced);
    } else if (w == "maximal") {
      set_kind(ir::Sharding::Kind::kMaximal);
      if (!c.eat("device=")) c.fail("expected 'device=' after 'maximal'");
      s.device = c.integer("device");
    } else if (w == "devices") {
      set_kind(ir::Sharding::Kind::kTiled);
      c.expect('=', "after 'devices'");
      // `[dims]` then either `<=[…]T(…)` (iota) or an explicit comma-separated list.
      const char* list_start = c.ptr();
      c.expect('[', "to open the tile assignment shape");
      s.tile_dims = read_int_list(c, ']', "tile dimension");
      const int64_t count = checked_product(c, list_start, s.tile_dims);
      c.skip_ws();
      if (c.peek() == '<' && c.peek(1) == '=') {
        c.reset(list_start);
        s.iota = read_iota_devices(c);
      } else {
        do {
          s.devices.push_back(c.integer("device id"));
        } while (c.eat(','));
        if (static_cast<int64_t>(s.devices.size()) != count) {
          c.fail_at(list_start, "tile assignment has " + std::to_string(s.devices.size()) +
                                    " devices but its shape needs " + std::to_string(count));
        }
      }
    } else if (w == "last_tile_dim_replicate") {
      s.last_tile_dim_replicate = true;
      options_at = options_at ? options_at : at;
    } else if (w == "last_tile_dims") {
      options_at = options_at ? options_at : at;
      c.expect('=', "after 'last_tile_dims'");
      c.expect('{', "to open last_tile_dims");
      do {
        std::string_view kind = c.word();
        if (kind.empty()) c.fail("expected a subgroup kind (manual, replicated, …)");
        s.last_tile_dims.emplace_back(kind);
      } while (c.eat(','));
      c.expect('}', "to close last_tile_dims");
    } else if (w == "metadata") {
      c.expect('=', "after 'metadata'");
      c.skip_ws();
      const char* m = c.ptr();
      c.expect('{', "to open the sharding metadata");
      c.until_matching('{', '}', "sharding metadata");
      s.metadata = std::string(m, c.ptr());
    } else if (w == "shard_as" || w == "shard_like") {
      s.shard_group = std::string(w) + ' ' + std::to_string(c.integer("shard group id"));
    } else if (w.empty()) {
      c.fail("expected a sharding keyword, found " + c.describe_next());
    } else {
      c.fail_at(at, "unknown sharding keyword '" + std::string(w) + "'");
    }
  }
  if (!have_kind) c.fail_at(start, "sharding names no kind (replicated, maximal, devices=…)");
  if (options_at && s.kind != ir::Sharding::Kind::kTiled) {
    c.fail_at(options_at, "last_tile_dim_replicate and last_tile_dims need devices=[…]");
  }
  return s;
}

}  // namespace scalify::hlo
