#include "support/heap_huge_pages.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>

#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace scalify::support {

namespace {

/// Whether the process asked for huge pages for its heap (and got them).
std::atomic<bool> heap_on_huge_pages{false};

}  // namespace

bool use_huge_pages_for_heap(size_t reserve) {
#if defined(__linux__) && defined(__GLIBC__)
  constexpr size_t kHugePage = size_t{2} << 20;
  constexpr int kDefaultTopPad = 128 << 10;  // glibc's M_TOP_PAD default
  if (reserve < 2 * kHugePage || reserve > (size_t{1} << 30)) return false;
  // Blocks up to 32 MB (glibc's largest threshold) from the heap: a growing vector's old
  // buffer is then reused rather than unmapped.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Never trim the top: a heap that shrank and grew again would grow without the advice.
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * reserve));
  // Grow the heap once by `reserve` and advise what it added: with a top pad of `reserve` and
  // no block mapped on its own, a block larger than all the free memory grows it.
  const auto brk_now = [] { return reinterpret_cast<uintptr_t>(sbrk(0)); };
  const uintptr_t before = brk_now();
  constexpr int kDefaultMmapMax = 65536;  // glibc's M_MMAP_MAX default
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TOP_PAD, static_cast<int>(reserve));
  void* probe = std::malloc(mallinfo2().fordblks + (size_t{1} << 20));
  const uintptr_t after = brk_now();
  std::free(probe);
  mallopt(M_TOP_PAD, kDefaultTopPad);  // and back to growing in small steps
  mallopt(M_MMAP_MAX, kDefaultMmapMax);
  if (probe == nullptr || after < before || after - before < reserve) return false;
  const uintptr_t low = (before + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t high = after & ~(kHugePage - 1);
  const bool advised = madvise(reinterpret_cast<void*>(low), high - low, MADV_HUGEPAGE) == 0;
  heap_on_huge_pages = advised;
  return advised;
#else
  (void)reserve;
  return false;
#endif
}

bool use_huge_pages_for_thread_heap(size_t reserve) {
#if defined(__linux__) && defined(__GLIBC__)
  // glibc gives a thread other than the main one an arena of heaps, each a mapping of
  // HEAP_MAX_SIZE (64 MB on 64-bit) aligned to its size, made writable as it grows.
  constexpr uintptr_t kHeapMax = uintptr_t{64} << 20;
  if (!heap_on_huge_pages || reserve < (size_t{4} << 20) || reserve >= kHeapMax / 2) return false;
  void* block = std::malloc(reserve);  // grows this thread's heap without touching it
  if (block == nullptr) return false;
  const auto at = reinterpret_cast<uintptr_t>(block);
  const uintptr_t heap = at & ~(kHeapMax - 1);
  // The main thread's heap ends at the program break; a thread's heap is mapped elsewhere.
  const bool own_heap = at >= reinterpret_cast<uintptr_t>(sbrk(0));
  const bool advised =
      own_heap && madvise(reinterpret_cast<void*>(heap), kHeapMax, MADV_HUGEPAGE) == 0;
  std::free(block);
  return advised;
#else
  (void)reserve;
  return false;
#endif
}

}  // namespace scalify::support
