// LargeArrayAllocator: an allocator for arrays of many megabytes read at random (an e-graph's
// hash table, union-find, per-id records), which asks Linux for transparent huge pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace scalify {

namespace detail {

inline constexpr size_t kHugePage = size_t{2} << 20;
/// Blocks this large get their own mapping; smaller ones come from operator new as usual.
inline constexpr size_t kLargeBlock = 2 * kHugePage;
#if defined(__linux__)
inline constexpr bool kMapsLargeBlocks = true;
#else
inline constexpr bool kMapsLargeBlocks = false;
#endif

/// A mapping of `bytes` (a multiple of kHugePage) aligned to kHugePage and advised to use huge
/// pages; nullptr when the system refuses (or is not Linux).
inline void* map_huge(size_t bytes) {
#if defined(__linux__)
  // Over-map by one huge page, then unmap the ends, so that the block starts on a huge page.
  const size_t mapped = bytes + kHugePage;
  void* raw = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
  if (aligned > start) munmap(raw, aligned - start);
  const uintptr_t end = start + mapped;
  if (end > aligned + bytes)
    munmap(reinterpret_cast<void*>(aligned + bytes), end - aligned - bytes);
  void* block = reinterpret_cast<void*>(aligned);
  madvise(block, bytes, MADV_HUGEPAGE);  // a hint: without huge pages the block still works
  return block;
#else
  (void)bytes;
  return nullptr;
#endif
}

inline void unmap_huge(void* block, size_t bytes) {
#if defined(__linux__)
  munmap(block, bytes);
#else
  (void)block;
  (void)bytes;
#endif
}

inline size_t huge_rounded(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }

}  // namespace detail

/// std::allocator, except that blocks of 4 MB or more are mapped on 2 MB boundaries and advised
/// to use transparent huge pages: a table of tens of MB read at random then takes one page
/// fault and one TLB entry per 2 MB rather than per 4 KB (on the egg workloads of
/// tests/bench/egg_math_bench, about a third of the run time). Small arrays (most e-graphs the
/// checker builds) are untouched.
///
///   std::vector<Slot, LargeArrayAllocator<Slot>> slots;
template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (detail::kMapsLargeBlocks && bytes >= detail::kLargeBlock) {
      void* block = detail::map_huge(detail::huge_rounded(bytes));
      if (block == nullptr) throw std::bad_alloc();
      return static_cast<T*>(block);
    }
    return static_cast<T*>(::operator new (bytes, std::align_val_t{alignof(T)}));
  }
  void deallocate(T* p, size_t n) noexcept {
    const size_t bytes = n * sizeof(T);
    if (detail::kMapsLargeBlocks && bytes >= detail::kLargeBlock) {
      detail::unmap_huge(p, detail::huge_rounded(bytes));
      return;
    }
    ::operator delete (p, std::align_val_t{alignof(T)});
  }
  friend bool operator==(const LargeArrayAllocator&, const LargeArrayAllocator&) { return true; }
};

}  // namespace scalify
