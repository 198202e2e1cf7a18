// RepeatFilter: the match rows a runner pass applied lately, so that a row equal to one of
// them, class by class, can be skipped (applying it again would change nothing).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "support/ids_hash.h"

namespace scalify::egraph {

/// A direct-mapped cache of the rows seen since start(), all of one width. It may forget a
/// row (a later row took its slot) but never reports one it was not given: a repeat it
/// misses costs time, never a match.
///
///   RepeatFilter seen;
///   seen.start(1000);                        // a rule's pass: about 1000 rows to come
///   const uint32_t row[] = {3, 5, 9};
///   seen.insert(row);                        // true: new
///   seen.insert(row);                        // false: a repeat
///   seen.start(10);                          // the next rule's pass forgets them all
class RepeatFilter {
 public:
  /// The widest row kept (a slot is 32 bytes); wider rows are never reported as repeats.
  static constexpr size_t kMaxWidth = 7;
  /// 128 KB, which stays in the processor's cache: repeats of a row mostly come soon after it
  /// (egg's first workload: 4 k slots find 732 k repeats, 1 k find 709 k; 16 k slots did
  /// worse than 4 k, and 32 k, 1 MB, which missed the cache on every row, saved no time).
  static constexpr size_t kMaxSlots = size_t{1} << 12;

  /// Forgets every row, and sizes the cache for about `rows` to come (at most kMaxSlots).
  void start(size_t rows) {
    const size_t wanted = std::bit_ceil(std::clamp<size_t>(rows, 64, kMaxSlots));
    if (wanted > slots_.size()) {
      slots_.assign(wanted, Slot{});
      stamp_ = 0;
    }
    if (++stamp_ == 0) {  // (after 4 G starts) stamps would repeat: really forget
      std::fill(slots_.begin(), slots_.end(), Slot{});
      stamp_ = 1;
    }
    mask_ = std::min(slots_.size(), wanted) - 1;
  }

  /// Records `row`; returns false if an equal row was recorded since start().
  bool insert(std::span<const uint32_t> row) {
    if (row.size() > kMaxWidth || slots_.empty()) return true;
    Slot& slot = slots_[IdsHash{}(row)&mask_];
    if (slot.stamp == stamp_ && same(slot.row, row)) return false;
    slot.stamp = stamp_;
    std::copy(row.begin(), row.end(), slot.row);
    return true;
  }

 private:
  /// A loop: std::equal would call memcmp, slow for a few ids.
  static bool same(const uint32_t* stored, std::span<const uint32_t> row) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (stored[i] != row[i]) return false;
    }
    return true;
  }
  struct Slot {
    uint32_t stamp = 0;  ///< 0: never written; otherwise the start() it was written after
    uint32_t row[kMaxWidth] = {};
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
  uint32_t stamp_ = 0;
};

}  // namespace scalify::egraph
