// IdsHash: a hash for short lists of 32-bit ids (memo keys of a few ids, match rows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace scalify {

/// Multiply-xorshift over the ids and the count.
///
///   std::unordered_map<std::vector<uint32_t>, int, IdsHash> memo;
struct IdsHash {
  size_t operator()(std::span<const uint32_t> ids) const {
    uint64_t h = ids.size() * 0xbf58476d1ce4e5b9ull;
    for (uint32_t id : ids) h = (h ^ id) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace scalify
