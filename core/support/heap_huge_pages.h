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

}  // namespace scalify::support
