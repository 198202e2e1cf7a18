// use_huge_pages_for_heap, checked in a process of its own (the advice changes the C library's
// settings for the rest of the process, and it is meant for a fresh one, as `scalify` takes it
// first thing): out-of-range reserves are refused; the heap's reserve is advised to use huge
// pages (the mapping holding fresh blocks carries the `hg` flag); and memory allocated, filled,
// freed and allocated again afterwards holds what is written to it. The same for a thread's heap
// (use_huge_pages_for_thread_heap), which is advised only once the process's is.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "support/heap_huge_pages.h"

namespace {

int failures = 0;

void expect(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "heap_huge_pages_check: FAILED: %s\n", what);
    ++failures;
  }
}

/// The VmFlags line of the mapping holding `address`, from /proc/self/smaps ("" if not found).
std::string mapping_flags(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long low = 0, high = 0;
    const size_t dash = line.find('-');
    if (dash != std::string::npos && dash < 17 &&
        std::sscanf(line.c_str(), "%lx-%lx ", &low, &high) == 2) {
      inside = low <= at && at < high;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return "";
}

}  // namespace

int main() {
  using scalify::support::use_huge_pages_for_heap;
  using scalify::support::use_huge_pages_for_thread_heap;
  std::thread([] {
    expect(!use_huge_pages_for_thread_heap(),
           "a thread's heap is not advised before the process's");
  }).join();
  expect(!use_huge_pages_for_heap(size_t{1} << 20), "a 1 MB reserve is refused");
  expect(!use_huge_pages_for_heap(size_t{2} << 30), "a 2 GB reserve is refused");
#if defined(__linux__) && defined(__GLIBC__)
  expect(use_huge_pages_for_heap(size_t{64} << 20), "the advice is taken in a fresh process");
  std::vector<std::vector<uint64_t>> blocks;  // about 48 MB, in small and large blocks
  for (uint64_t i = 0; i < 3000; ++i) blocks.emplace_back(2000 + i % 7, i);
  for (uint64_t i = 0; i < 3; ++i) blocks.emplace_back(size_t{1} << 20, i);
  expect(mapping_flags(blocks[1500].data()).find(" hg") != std::string::npos,
         "the heap holding new blocks is advised to use huge pages (VmFlags hg)");
  for (uint64_t i = 0; i < 3000; ++i) {
    expect(blocks[i].front() == i && blocks[i].back() == i, "a block holds what was written");
    if (failures > 0) break;
  }
  blocks.clear();
  std::vector<uint64_t> again(size_t{4} << 20, 9);  // reuses what was freed
  expect(again.back() == 9, "memory allocated after freeing holds what was written");
  expect(!use_huge_pages_for_thread_heap(), "the main thread's heap is not a thread's");
  std::thread([] {
    expect(!use_huge_pages_for_thread_heap(size_t{1} << 20), "a 1 MB thread reserve is refused");
    expect(!use_huge_pages_for_thread_heap(size_t{32} << 20), "a 32 MB thread reserve is refused");
    expect(use_huge_pages_for_thread_heap(), "a thread's heap is advised");
    std::vector<std::vector<uint64_t>> mine;
    for (uint64_t i = 0; i < 1000; ++i) mine.emplace_back(1000 + i % 5, i);
    expect(mapping_flags(mine[500].data()).find(" hg") != std::string::npos,
           "the thread's heap holding its new blocks is advised to use huge pages");
    for (uint64_t i = 0; i < 1000; ++i) {
      expect(mine[i].front() == i && mine[i].back() == i,
             "a thread's block holds what was written");
      if (failures > 0) break;
    }
  }).join();
#endif
  if (failures == 0) std::puts("heap_huge_pages_check: all passed");
  return failures == 0 ? 0 : 1;
}
