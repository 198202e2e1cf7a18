// Children: the operand classes of an e-node, three of them inline (no allocation for the
// operators that dominate e-graphs), more on the heap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "egraph/union_find.h"

namespace scalify::egraph {

/// A small vector of class ids with value semantics, 16 bytes: the e-graph holds one per node
/// id and copies them into class node lists, so their size is much of its memory traffic.
///
///   Children c{a, b};
///   c.push_back(d);          // still inline
///   c[1] == b && c.size() == 3;
class Children {
 public:
  Children() = default;
  Children(std::initializer_list<ClassId> ids) { assign(ids.begin(), ids.size()); }
  Children(const std::vector<ClassId>& ids) { assign(ids.data(), ids.size()); }  // NOLINT
  explicit Children(std::span<const ClassId> ids) { assign(ids.data(), ids.size()); }
  Children(const Children& other) {
    if (other.on_heap()) {
      assign(other.data(), other.size_);
    } else {
      size_ = other.size_;
      std::memcpy(words_, other.words_, sizeof words_);
    }
  }
  Children& operator=(const Children& other) {
    if (this != &other) assign(other.data(), other.size_);
    return *this;
  }
  Children(Children&& other) noexcept { take(other); }
  Children& operator=(Children&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Children() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ClassId* data() { return on_heap() ? heap() : words_; }
  const ClassId* data() const { return on_heap() ? heap() : words_; }
  ClassId* begin() { return data(); }
  ClassId* end() { return data() + size_; }
  const ClassId* begin() const { return data(); }
  const ClassId* end() const { return data() + size_; }
  ClassId& operator[](size_t i) { return data()[i]; }
  ClassId operator[](size_t i) const { return data()[i]; }
  operator std::span<const ClassId>() const { return {data(), size_}; }  // NOLINT

  /// Makes room for n ids; a hint (inline storage is used while the ids fit in it).
  void reserve(size_t n) {
    if (on_heap() && n > heap_capacity()) move_to_heap(static_cast<uint32_t>(n));
  }
  void push_back(ClassId id) {
    if (size_ < kInline) {
      words_[size_++] = id;
      return;
    }
    if (size_ == kInline || size_ == heap_capacity()) move_to_heap(2 * size_);
    heap()[size_++] = id;
  }

  friend bool operator==(const Children& a, const Children& b) {
    if (a.size_ != b.size_) return false;
    // A loop: std::equal would call memcmp, slow for the usual one to three ids.
    const ClassId* x = a.data();
    const ClassId* y = b.data();
    for (uint32_t i = 0; i < a.size_; ++i) {
      if (x[i] != y[i]) return false;
    }
    return true;
  }
  friend bool operator<(const Children& a, const Children& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Up to kInline ids live in words_. Beyond, words_ holds a pointer to them (words_[0..1],
  // copied in and out with memcpy, so that alignment does not matter) and the capacity
  // (words_[2]): the ids are on the heap exactly when there are more than kInline.
  static constexpr uint32_t kInline = 3;
  bool on_heap() const { return size_ > kInline; }
  ClassId* heap() const {
    ClassId* p;
    std::memcpy(&p, words_, sizeof p);
    return p;
  }
  uint32_t heap_capacity() const { return words_[2]; }
  void set_heap(ClassId* block, uint32_t capacity) {
    std::memcpy(words_, &block, sizeof block);
    words_[2] = capacity;
  }
  /// Moves the ids to a new heap block of `capacity` ids (the size is unchanged).
  void move_to_heap(uint32_t capacity) {
    ClassId* block = std::allocator<ClassId>().allocate(capacity);
    std::copy(begin(), end(), block);
    const uint32_t size = size_;
    release();
    set_heap(block, capacity);
    size_ = size;
  }
  void release() {
    if (on_heap()) std::allocator<ClassId>().deallocate(heap(), heap_capacity());
    size_ = 0;
  }
  void assign(const ClassId* ids, size_t n) {
    release();
    ClassId* out = words_;
    if (n > kInline) {
      out = std::allocator<ClassId>().allocate(n);
      set_heap(out, static_cast<uint32_t>(n));
    }
    std::copy(ids, ids + n, out);
    size_ = static_cast<uint32_t>(n);
  }
  void take(Children& other) {
    size_ = other.size_;
    std::memcpy(words_, other.words_, sizeof words_);  // ids or the heap block's pointer
    other.size_ = 0;
  }

  uint32_t size_ = 0;
  ClassId words_[kInline] = {};
};

}  // namespace scalify::egraph
