// Children: the operand classes of an e-node, three of them inline (no allocation for the
// operators that dominate e-graphs), more on the heap.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

#include "egraph/union_find.h"

namespace scalify::egraph {

/// A small vector of class ids with value semantics.
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
  Children(const Children& other) { assign(other.data(), other.size_); }
  Children& operator=(const Children& other) {
    if (this != &other) assign(other.data(), other.size_);
    return *this;
  }
  Children(Children&& other) noexcept { take(other); }
  Children& operator=(Children&& other) noexcept {
    if (this != &other) take(other);
    return *this;
  }
  ~Children() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  ClassId* data() { return heap_ ? heap_.get() : inline_; }
  const ClassId* data() const { return heap_ ? heap_.get() : inline_; }
  ClassId* begin() { return data(); }
  ClassId* end() { return data() + size_; }
  const ClassId* begin() const { return data(); }
  const ClassId* end() const { return data() + size_; }
  ClassId& operator[](size_t i) { return data()[i]; }
  ClassId operator[](size_t i) const { return data()[i]; }
  operator std::span<const ClassId>() const { return {data(), size_}; }  // NOLINT

  void reserve(size_t n) {
    if (n > capacity()) grow(static_cast<uint32_t>(n));
  }
  void push_back(ClassId id) {
    if (size_ == capacity()) grow(std::max<uint32_t>(2 * capacity(), kInline + 1));
    data()[size_++] = id;
  }

  friend bool operator==(const Children& a, const Children& b) {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend bool operator<(const Children& a, const Children& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr uint32_t kInline = 3;
  uint32_t capacity() const { return heap_ ? capacity_ : kInline; }
  void grow(uint32_t capacity) {
    auto bigger = std::make_unique<ClassId[]>(capacity);
    std::copy(begin(), end(), bigger.get());
    heap_ = std::move(bigger);
    capacity_ = capacity;
  }
  void assign(const ClassId* ids, size_t n) {
    size_ = 0;
    if (n > capacity()) grow(static_cast<uint32_t>(n));
    std::copy(ids, ids + n, data());
    size_ = static_cast<uint32_t>(n);
  }
  void take(Children& other) {
    size_ = other.size_;
    capacity_ = other.capacity_;
    heap_ = std::move(other.heap_);
    std::copy(other.inline_, other.inline_ + kInline, inline_);
    other.size_ = 0;
  }

  uint32_t size_ = 0;
  uint32_t capacity_ = kInline;
  ClassId inline_[kInline] = {};
  std::unique_ptr<ClassId[]> heap_;
};

}  // namespace scalify::egraph
