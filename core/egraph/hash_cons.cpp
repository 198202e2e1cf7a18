#include "egraph/hash_cons.h"

namespace scalify::egraph {

std::optional<ClassId> HashCons::find(const ENode& node) const {
  if (slots_.empty()) return std::nullopt;
  const uint32_t hash = hash_of(node);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id == kEmpty) return std::nullopt;
    if (s.id != kTombstone && s.hash == hash && keys_[s.id] == node) return s.id;
  }
}

void HashCons::insert(ClassId id, ENode node) {
  if ((used_ + 1) * 2 >= slots_.size()) grow();  // at most half full: short probes
  const uint32_t hash = hash_of(node);
  if (id >= keys_.size()) {
    keys_.resize(std::max<size_t>(id + 1, keys_.size() * 2));
    present_.resize(keys_.size());
  }
  keys_[id] = std::move(node);
  present_[id] = true;
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].id != kEmpty && slots_[i].id != kTombstone) i = (i + 1) & mask;
  if (slots_[i].id == kEmpty) ++used_;
  slots_[i] = Slot{hash, id};
  ++size_;
}

bool HashCons::erase(ClassId id) {
  if (!contains_id(id)) return false;
  const uint32_t hash = hash_of(keys_[id]);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    if (slots_[i].id == id) {
      slots_[i].id = kTombstone;
      break;
    }
    if (slots_[i].id == kEmpty) break;  // unreachable while present_ is true
  }
  present_[id] = false;
  keys_[id] = ENode{};
  --size_;
  return true;
}

void HashCons::grow() {
  // Double when a quarter full of entries; otherwise the same size, clearing tombstones.
  const size_t capacity = slots_.empty()               ? 64
                          : size_ * 4 >= slots_.size() ? slots_.size() * 2
                                                       : slots_.size();
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(capacity, Slot{});
  const size_t mask = capacity - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty || s.id == kTombstone) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask;
    slots_[i] = s;
  }
  used_ = size_;
}

}  // namespace scalify::egraph
