// HashCons: the e-graph's memo from canonical e-nodes to the id of the node that holds them,
// an open-addressing table of ids whose keys live in a vector indexed by id.
#pragma once

#include <optional>
#include <vector>

#include "egraph/enode.h"
#include "egraph/id_vector.h"
#include "support/large_vector.h"

namespace scalify::egraph {

/// Every canonical node once. Keys are stored by node id (each node exactly once in memory),
/// so that the table can move a node's entry when its children change class (its old key is
/// still known), and slots are 8 bytes: the key's hash and the id. Deleting shifts the
/// following entries back (no tombstones), so the table never needs cleaning.
///
///   HashCons memo;
///   memo.insert(7, node) == 7;   // 7 now holds `node`
///   memo.insert(8, node) == 7;   // an equal node is held already: 8 gets no entry
///   memo.find(node) == 7;
///   memo.erase(7);               // e.g. before re-inserting it with canonical children
class HashCons {
 public:
  /// The id holding `node`, if any.
  std::optional<ClassId> find(const ENode& node) const;
  /// The id holding a key equal to `node`; if there is none, `node` becomes the key of `id`
  /// (which must hold no entry) and `id` is returned. One probe either way.
  ClassId insert(ClassId id, ENode node);
  /// Removes id's entry if it has one (keeping its key, see key()); returns whether it had.
  bool erase(ClassId id);
  /// Gives id a key but no entry (a node known to be equal to another's).
  void set_key(ClassId id, ENode&& node);
  bool contains_id(ClassId id) const { return id < present_.size() && present_[id]; }
  /// The key id was last inserted or set with (valid for every id given one).
  const ENode& key(ClassId id) const { return keys_[id]; }
  size_t size() const { return size_; }
  /// Makes room for `entries` entries (and ids below `ids`) without growing.
  void reserve(size_t entries, size_t ids);
  /// Hints the processor to load the slot where `node` would be (for a lookup soon after).
  void prefetch(const ENode& node) const {
    if (slots_.empty()) return;
    const Slot* slot = &slots_[hash_of(node) & mask_];
    // GCC 12 deletes a prefetch whose address a loop computed (here the hash, over the
    // children) as dead code; the empty asm statement uses the address.
    asm volatile("" : : "r"(slot));
    __builtin_prefetch(slot);
  }
  /// Hints the processor to load key(id).
  void prefetch_key(ClassId id) const {
    if (id < keys_.size()) __builtin_prefetch(&keys_[id]);
  }

 private:
  struct Slot {
    uint32_t hash = 0;
    ClassId id = kEmpty;
  };
  static constexpr ClassId kEmpty = 0xffffffffu;
  static uint32_t hash_of(const ENode& node) { return static_cast<uint32_t>(ENodeHash{}(node)); }
  void grow(size_t capacity);
  /// The most a table may fill, kLoadNum / kLoadDen: linear probing's misses (most inserts
  /// are of new nodes) walk about (1 + 1 / (1 - load)^2) / 2 slots.
  static constexpr size_t kLoadNum = 3, kLoadDen = 4;
  void make_key(ClassId id, ENode&& node);

  /// A power of two in size, linear probing, at most 3/4 full (kLoadNum / kLoadDen): the
  /// e-graph's table is far larger than the caches, so its size counts more than probe lengths
  /// (half full saved about 1% of instructions for twice the memory).
  LargeVector<Slot> slots_;
  size_t mask_ = 0;  ///< slots_.size() - 1
  IdVector<ENode> keys_;
  std::vector<bool> present_;
  size_t size_ = 0;
};

}  // namespace scalify::egraph
