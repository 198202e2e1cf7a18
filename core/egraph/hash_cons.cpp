#include "egraph/hash_cons.h"

#include <bit>

namespace scalify::egraph {

std::optional<ClassId> HashCons::find(const ENode& node) const {
  if (slots_.empty()) return std::nullopt;
  const uint32_t hash = hash_of(node);
  for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
    const Slot s = slots_[i];
    if (s.id == kEmpty) return std::nullopt;
    if (s.hash == hash && keys_[s.id] == node) return s.id;
  }
}

ClassId HashCons::insert(ClassId id, ENode node) {
  if ((size_ + 1) * kLoadDen > slots_.size() * kLoadNum)
    grow(slots_.empty() ? 64 : 2 * slots_.size());
  const uint32_t hash = hash_of(node);
  size_t i = hash & mask_;
  for (; slots_[i].id != kEmpty; i = (i + 1) & mask_) {
    if (slots_[i].hash == hash && keys_[slots_[i].id] == node) return slots_[i].id;
  }
  make_key(id, std::move(node));
  present_[id] = true;
  slots_[i] = Slot{hash, id};
  ++size_;
  return id;
}

bool HashCons::erase(ClassId id) {
  if (!contains_id(id)) return false;
  size_t hole = hash_of(keys_[id]) & mask_;
  while (slots_[hole].id != id) hole = (hole + 1) & mask_;
  // Backward shift: move each following entry of the probe run into the hole unless its home
  // slot lies after the hole (it would then be unreachable from its home).
  for (size_t j = (hole + 1) & mask_; slots_[j].id != kEmpty; j = (j + 1) & mask_) {
    const size_t home = slots_[j].hash & mask_;
    if (((j - home) & mask_) >= ((j - hole) & mask_)) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  present_[id] = false;
  --size_;
  return true;
}

void HashCons::set_key(ClassId id, ENode&& node) { make_key(id, std::move(node)); }

void HashCons::reserve(size_t entries, size_t ids) {
  if (entries * kLoadDen > slots_.size() * kLoadNum) {
    grow(std::bit_ceil(entries * kLoadDen / kLoadNum + 1));
  }
  present_.reserve(ids);
}

void HashCons::make_key(ClassId id, ENode&& node) {
  // Ids come in ascending order, almost always the next one: push_back, not resize (which
  // costs a call per bit for vector<bool>).
  while (keys_.size() <= id) keys_.emplace_back();
  while (present_.size() <= id) present_.push_back(false);
  keys_[id] = std::move(node);
}

void HashCons::grow(size_t capacity) {
  LargeVector<Slot> old = std::move(slots_);
  slots_.resize(capacity, Slot{});
  mask_ = capacity - 1;
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    size_t i = s.hash & mask_;
    while (slots_[i].id != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace scalify::egraph
