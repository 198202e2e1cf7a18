// IdVector: an append-only array indexed by node id that grows by fixed-size chunks.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "support/large_array.h"

namespace scalify::egraph {

/// Like std::vector<T> for push_back and indexing, but growing never moves the elements: the
/// e-graph's per-id arrays reach tens of MB, and doubling a vector copies all of it into fresh
/// memory (page faults, cache misses) each time. Indexing costs one more load, of a chunk
/// pointer that stays in cache. Past the first few chunks, chunks are cut from slabs of
/// several MB on huge pages (LargeArrayAllocator): ids are read at random.
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
    release();
    for (size_t i = 0; i < other.size_; ++i) emplace_back() = other[i];
    return *this;
  }
  IdVector(IdVector&& other) noexcept { take(other); }
  IdVector& operator=(IdVector&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~IdVector() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i / kChunk][i % kChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
  T& back() { return (*this)[size_ - 1]; }
  /// Appends a value-initialized element.
  T& emplace_back() {
    if (size_ == chunks_.size() * kChunk) add_chunk();
    return (*this)[size_++];
  }
  void push_back(T value) { emplace_back() = std::move(value); }

 private:
  static constexpr size_t kChunk = 4096;  ///< elements (under 128 KB for the e-graph's)
  /// The first chunks are allocated one by one (most e-graphs stay that small); then slabs
  /// of this many chunks at a time.
  static constexpr size_t kSingleChunks = 16, kSlabChunks = 64;
  struct Slab {
    T* memory;
    size_t chunks;
  };
  void add_chunk() {
    if (spare_chunks_ == 0) {
      const size_t chunks = chunks_.size() < kSingleChunks ? 1 : kSlabChunks;
      T* memory = LargeArrayAllocator<T>().allocate(chunks * kChunk);
      slabs_.push_back({memory, chunks});
      next_chunk_ = memory;
      spare_chunks_ = chunks;
    }
    std::uninitialized_value_construct_n(next_chunk_, kChunk);
    chunks_.push_back(next_chunk_);
    next_chunk_ += kChunk;
    --spare_chunks_;
  }
  void release() {
    for (T* chunk : chunks_) std::destroy_n(chunk, kChunk);
    for (const Slab& s : slabs_) LargeArrayAllocator<T>().deallocate(s.memory, s.chunks * kChunk);
    chunks_.clear();
    slabs_.clear();
    next_chunk_ = nullptr;
    spare_chunks_ = 0;
    size_ = 0;
  }
  void take(IdVector& other) {
    chunks_ = std::move(other.chunks_);
    slabs_ = std::move(other.slabs_);
    other.chunks_.clear();
    other.slabs_.clear();
    next_chunk_ = std::exchange(other.next_chunk_, nullptr);
    spare_chunks_ = std::exchange(other.spare_chunks_, 0);
    size_ = std::exchange(other.size_, 0);
  }

  std::vector<T*> chunks_;  ///< constructed chunks, kChunk elements each
  std::vector<Slab> slabs_;
  T* next_chunk_ = nullptr;  ///< where the next chunk starts in the last slab
  size_t spare_chunks_ = 0;
  size_t size_ = 0;
};

}  // namespace scalify::egraph
