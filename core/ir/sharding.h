// HLO `sharding={…}`: how a value is laid out over the devices (XLA's HloSharding, as text).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/device_list.h"

namespace scalify::ir {

/// A parsed `sharding=` attribute.
///   `{replicated}`                                  kind kReplicated (also manual, unknown,
///   unreduced)
///   `{maximal device=3}`                            kind kMaximal, device 3
///   `{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}`  kind kTiled
///   `{devices=[2,4]<=[4,2]T(1,0)}`                  kind kTiled with an iota device list
///   `{{replicated}, {devices=[2]0,1}}`              kind kTuple
///
///   Sharding s = ...;  // `{devices=[1,2]0,1}`
///   s.tile_dims == {1, 2}; s.device_list() == {0, 1};
struct Sharding {
  enum class Kind : uint8_t {
    kReplicated,
    kManual,
    kMaximal,
    kTiled,
    kUnknown,
    kUnreduced,
    kTuple
  };

  Kind kind = Kind::kReplicated;
  int64_t device = -1;              ///< kMaximal: the device
  std::vector<int64_t> tile_dims;   ///< kTiled: the tile assignment's shape
  std::vector<int64_t> devices;     ///< kTiled, explicit list; empty when `iota` is set
  std::optional<IotaDevices> iota;  ///< kTiled, iota list
  bool last_tile_dim_replicate = false;
  std::vector<std::string> last_tile_dims;  ///< subgroup kinds, e.g. {"manual", "replicated"}
  std::string shard_group;  ///< "shard_as 1" or "shard_like 0", verbatim; empty if none
  std::string metadata;     ///< `metadata={…}` inside the sharding, verbatim; empty if none
  std::vector<Sharding> elements;  ///< kTuple

  /// The tile assignment's device ids in row-major order (explicit or materialised iota).
  std::vector<int64_t> device_list() const;
  /// The canonical text, including the outer braces.
  std::string to_string() const;
  friend bool operator==(const Sharding&, const Sharding&) = default;
};

}  // namespace scalify::ir
