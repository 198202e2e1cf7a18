// ParentLists: for each e-class, the ids of the nodes that use it, as chains of small blocks
// in one pool.
#pragma once

#include <cstdint>
#include <vector>

#include "egraph/id_vector.h"
#include "egraph/union_find.h"

namespace scalify::egraph {

/// Appending a parent touches one block (no per-class vector to grow, copy and free), and the
/// lists of two merged classes become one by splicing their chains, whatever their lengths.
/// Blocks are never freed: a splice keeps them all.
///
///   ParentLists lists;
///   ParentLists::Chain a, b;
///   lists.push(a, 7);  lists.push(b, 9);
///   lists.splice(a, b);                      // a: 7, 9; b: empty
///   lists.for_each(a, [](ClassId p) { … });
class ParentLists {
 public:
  static constexpr uint32_t kNone = 0xffffffffu;
  /// A class's list: its first and last blocks.
  struct Chain {
    uint32_t head = kNone, tail = kNone;
    bool empty() const { return head == kNone; }
  };

  void push(Chain& chain, ClassId parent) {
    if (chain.tail == kNone || blocks_[chain.tail].count == kBlockIds) {
      const auto fresh = static_cast<uint32_t>(blocks_.size());
      blocks_.emplace_back();
      if (chain.tail == kNone) {
        chain.head = fresh;
      } else {
        blocks_[chain.tail].next = fresh;
      }
      chain.tail = fresh;
    }
    Block& b = blocks_[chain.tail];
    b.ids[b.count++] = parent;
  }
  /// Moves every parent of `from` to the end of `into`.
  void splice(Chain& into, Chain& from) {
    if (from.empty()) return;
    if (into.empty()) {
      into = from;
    } else {
      blocks_[into.tail].next = from.head;
      into.tail = from.tail;
    }
    from = Chain{};
  }
  template <class F>
  void for_each(const Chain& chain, F&& f) const {
    for (uint32_t b = chain.head; b != kNone; b = blocks_[b].next) {
      const Block& block = blocks_[b];
      for (uint32_t i = 0; i < block.count; ++i) f(block.ids[i]);
    }
  }
  /// Appends the parents in `chain` to `out`.
  template <class Vector>
  void append_to(const Chain& chain, Vector& out) const {
    for_each(chain, [&out](ClassId p) { out.push_back(p); });
  }
  /// Hints the processor to load the block the next push() to `chain` writes.
  void prefetch_tail(const Chain& chain) const {
    if (chain.tail != kNone) __builtin_prefetch(&blocks_[chain.tail]);
  }

 private:
  static constexpr uint32_t kBlockIds = 6;  ///< a block is 32 bytes: two to a cache line
  struct Block {
    ClassId ids[kBlockIds];
    uint32_t count = 0;
    uint32_t next = kNone;
  };
  /// Chunked, so that growing never copies the pool (nor faults in twice its size).
  IdVector<Block> blocks_;
};

}  // namespace scalify::egraph
