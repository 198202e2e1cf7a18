// Asking the C library to serve a batch run's small allocations from transparent huge pages.
#pragma once

#include <cstddef>

namespace scalify::support {

/// Reserves `reserve` bytes of address space at the top of the C library's heap and advises
/// Linux to back them with transparent huge pages (2 MB), so that the first `reserve` bytes
/// the process allocates take one page fault per 2 MB rather than per 4 KB. Large blocks come
/// from that heap too (not from mappings of their own), and freed memory stays in the heap
/// for reuse instead of being returned to the system and faulted in again.
///
/// For a batch process that reads a large module: reading Llama-3.1-405B's 6.7 MB of HLO
/// builds about 70 MB of small objects, and on this project's 2-core VM the kernel's page
/// faults were a third of `scalify check`'s time (17,500 faults; 1,000 with this advice).
/// Only address space is reserved: memory is used as it is touched. Not for a long-running
/// window, which should give freed memory back. Returns false on systems other than Linux with
/// glibc, when the heap cannot grow by `reserve` or the advice is refused (4 MB ≤ `reserve` ≤
/// 1 GB); the program works the same either way, only slower.
///
///   int main(int argc, char** argv) {
///     scalify::support::use_huge_pages_for_heap();   // first, before the heap grows
///     ...
///   }
bool use_huge_pages_for_heap(size_t reserve = size_t{512} << 20);

/// The same for the calling thread's heap (glibc gives each thread but the main one an arena of
/// its own, a 64 MB mapping aligned to its size): grows it by `reserve` bytes (4 MB to 31 MB)
/// and advises huge pages for it. For a batch process's worker that builds much (a second
/// module read beside the first). Does nothing, and returns false, unless the process took
/// use_huge_pages_for_heap's advice, or on the main thread (its heap is that one).
///
///   std::jthread reader([&] { use_huge_pages_for_thread_heap(); m = read(...); });
bool use_huge_pages_for_thread_heap(size_t reserve = size_t{24} << 20);

}  // namespace scalify::support
