// HashCons: the e-graph's memo from canonical e-nodes to the id of the node that holds them,
// an open-addressing table of ids whose keys live in a vector indexed by id.
#pragma once

#include <optional>
#include <vector>

#include "egraph/enode.h"

namespace scalify::egraph {

/// Every canonical node once. Keys are stored by node id, so that the table can remove a
/// node's entry after its children change class (its old key is still known), and slots are
/// 8 bytes: the hash and the id.
///
///   HashCons memo;
///   memo.insert(7, node);
///   memo.find(node) == 7;
///   memo.erase(7);             // e.g. before re-inserting it with canonical children
class HashCons {
 public:
  std::optional<ClassId> find(const ENode& node) const;
  /// Adds `node` as id's key; `node` must not be present and id must not be in the table.
  void insert(ClassId id, ENode node);
  /// Removes id's entry if it has one; returns whether it had.
  bool erase(ClassId id);
  bool contains_id(ClassId id) const { return id < present_.size() && present_[id]; }
  /// The key id was inserted with (valid while contains_id(id)).
  const ENode& key(ClassId id) const { return keys_[id]; }
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t hash = 0;
    ClassId id = kEmpty;
  };
  static constexpr ClassId kEmpty = 0xffffffffu, kTombstone = 0xfffffffeu;
  static uint32_t hash_of(const ENode& node) { return static_cast<uint32_t>(ENodeHash{}(node)); }
  void grow();

  std::vector<Slot> slots_;  ///< a power of two in size, linear probing
  std::vector<ENode> keys_;
  std::vector<bool> present_;
  size_t size_ = 0, used_ = 0;  ///< entries; entries plus tombstones
};

}  // namespace scalify::egraph
