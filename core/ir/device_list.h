// Lists of devices in the two HLO spellings: explicit, or iota form `[4,2]<=[2,4]T(1,0)`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace scalify::ir {

/// The compact "iota" device list: reshape(iota(prod(reshape_dims)), reshape_dims),
/// transposed by `transpose`, then reshaped to `dims`.
///
///   IotaDevices iota{{2, 4}, {2, 4}, {1, 0}};   // `[2,4]<=[2,4]T(1,0)`
///   iota.materialize() == {0,4,1,5,2,6,3,7};
struct IotaDevices {
  std::vector<int64_t> dims;          ///< the result shape, e.g. [2,4]
  std::vector<int64_t> reshape_dims;  ///< the shape before the transpose, e.g. [8] or [2,4]
  std::vector<int64_t> transpose;     ///< a permutation of reshape_dims' axes; empty = identity

  /// The device ids in row-major order of `dims`.
  std::vector<int64_t> materialize() const;
  /// `[2,4]<=[2,4]T(1,0)`
  std::string to_string() const;
  friend bool operator==(const IotaDevices&, const IotaDevices&) = default;
};

}  // namespace scalify::ir
