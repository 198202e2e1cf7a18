// IdVector: an append-only array indexed by node id that grows by fixed-size chunks.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace scalify::egraph {

/// Like std::vector<T> for push_back and indexing, but growing never moves the elements: the
/// e-graph's per-id arrays reach tens of MB, and doubling a vector copies all of it into fresh
/// memory (page faults, cache misses) each time. Indexing costs one more load, of a chunk
/// pointer that stays in cache.
///
///   IdVector<ENode> keys;
///   keys.emplace_back();       // element 0
///   keys[0] = node;
template <class T>
class IdVector {
 public:
  IdVector() = default;
  IdVector(const IdVector& other) { *this = other; }
  IdVector& operator=(const IdVector& other) {
    if (this == &other) return *this;
    chunks_.clear();
    size_ = 0;
    for (size_t i = 0; i < other.size_; ++i) emplace_back() = other[i];
    return *this;
  }
  IdVector(IdVector&&) noexcept = default;
  IdVector& operator=(IdVector&&) noexcept = default;
  ~IdVector() = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  T& back() { return (*this)[size_ - 1]; }
  /// Appends a value-initialized element.
  T& emplace_back() {
    if (size_ == chunks_.size() * kChunk) chunks_.push_back(std::make_unique<T[]>(kChunk));
    return (*this)[size_++];
  }
  void push_back(T value) { emplace_back() = std::move(value); }

 private:
  static constexpr size_t kChunk = 4096;  ///< elements (under 128 KB for the e-graph's)
  std::vector<std::unique_ptr<T[]>> chunks_;
  size_t size_ = 0;
};

}  // namespace scalify::egraph
