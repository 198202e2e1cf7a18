// LargeVector: a vector of plain values that, once it reaches megabytes, grows in place by
// remapping its pages instead of copying them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "support/large_array.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace scalify {

/// Like std::vector<T> for trivially copyable T, except that past detail::kLargeBlock bytes its
/// storage is a huge-page mapping (LargeArrayAllocator's) and growing moves that mapping's pages
/// to a larger one (Linux's mremap) instead of copying them: no copy, and no page written
/// before is faulted in and zeroed again. A std::vector doubling to N bytes touches about 2N
/// bytes of fresh memory; on the e-graph's buffers of tens of MB the kernel's zeroing of them
/// was a fifth of the egg benchmark's time. Small vectors live on the heap as usual.
///
///   LargeVector<uint32_t> ids;
///   for (uint32_t i = 0; i < 10'000'000; ++i) ids.push_back(i);  // never copied past 4 MB
///   ids.clear();                                                 // keeps its pages
template <class T>
class LargeVector {
  static_assert(std::is_trivially_copyable_v<T>, "pages are moved as bytes");

 public:
  using value_type = T;
  LargeVector() = default;
  LargeVector(size_t n, const T& value) { resize(n, value); }
  LargeVector(const LargeVector& other) { *this = other; }
  LargeVector& operator=(const LargeVector& other) {
    if (this == &other) return *this;
    clear();
    reserve(other.size_);
    if (other.size_ > 0) std::memcpy(data_, other.data_, other.size_ * sizeof(T));
    size_ = other.size_;
    return *this;
  }
  LargeVector(LargeVector&& other) noexcept { swap(other); }
  LargeVector& operator=(LargeVector&& other) noexcept {
    if (this != &other) {
      release();
      swap(other);
    }
    return *this;
  }
  ~LargeVector() { release(); }
  void swap(LargeVector& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& value) {
    if (size_ == capacity_) grow(size_ + 1);
    data_[size_++] = value;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) grow(size_ + 1);
    return *new (data_ + size_++) T{std::forward<Args>(args)...};
  }
  void pop_back() { --size_; }
  /// Appends [first, last) (which must not point into this vector).
  void append(const T* first, const T* last) {
    const auto n = static_cast<size_t>(last - first);
    if (size_ + n > capacity_) grow(size_ + n);
    if (n > 0) std::memcpy(data_ + size_, first, n * sizeof(T));
    size_ += n;
  }
  void resize(size_t n, const T& value = T{}) {
    if (n > capacity_) grow(n);
    std::fill(data_ + std::min(n, size_), data_ + n, value);
    size_ = n;
  }
  void reserve(size_t n) {
    if (n > capacity_) grow(n, /*exact=*/true);
  }
  /// Empties the vector and keeps its storage (the next fill reuses the pages).
  void clear() { size_ = 0; }

 private:
  static size_t bytes_for(size_t n) { return n * sizeof(T); }
  /// The length of the mapping that holds `capacity` elements (a whole number of huge pages).
  static size_t mapping_bytes(size_t capacity) { return detail::huge_rounded(bytes_for(capacity)); }
  static bool mapped(size_t capacity) {
    return detail::kMapsLargeBlocks && bytes_for(capacity) >= detail::kLargeBlock;
  }
  /// Room for at least `needed` elements: twice the capacity (or exactly `needed`).
  void grow(size_t needed, bool exact = false) {
    size_t capacity = exact ? needed : std::max(needed, 2 * capacity_);
    if (mapped(capacity)) {
      capacity = detail::huge_rounded(bytes_for(capacity)) / sizeof(T);
      if (mapped(capacity_) && remap(capacity)) return;
    }
    T* fresh =
        mapped(capacity)
            ? static_cast<T*>(detail::map_huge(mapping_bytes(capacity)))
            : static_cast<T*>(::operator new (bytes_for(capacity), std::align_val_t{alignof(T)}));
    if (fresh == nullptr) throw std::bad_alloc();
    if (size_ > 0) std::memcpy(fresh, data_, bytes_for(size_));
    const size_t size = size_;
    release();
    data_ = fresh;
    size_ = size;
    capacity_ = capacity;
  }
  /// Moves the mapping's pages onto a new, larger huge-page-aligned mapping.
  bool remap(size_t capacity) {
#if defined(__linux__)
    void* target = detail::map_huge(mapping_bytes(capacity));
    if (target == nullptr) return false;
    // MREMAP_FIXED replaces the target's mapping with our pages, keeping its alignment; the
    // rest of the target (past our old size) stays as mapped (fresh zero pages, advised huge).
    void* moved = mremap(data_, mapping_bytes(capacity_), mapping_bytes(capacity_),
                         MREMAP_MAYMOVE | MREMAP_FIXED, target);
    if (moved == MAP_FAILED) {
      detail::unmap_huge(target, mapping_bytes(capacity));
      return false;
    }
    data_ = static_cast<T*>(moved);
    capacity_ = capacity;
    return true;
#else
    (void)capacity;
    return false;
#endif
  }
  void release() {
    if (data_ != nullptr) {
      if (mapped(capacity_)) {
        detail::unmap_huge(data_, mapping_bytes(capacity_));
      } else {
        ::operator delete (data_, std::align_val_t{alignof(T)});
      }
    }
    data_ = nullptr;
    size_ = capacity_ = 0;
  }

  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace scalify
