// use_huge_pages_for_heap: the heap's reserve is advised to use huge pages, and a process that
// took the advice allocates, fills and frees as before. Run in a child process: the advice
// changes the C library's settings for the rest of the process.
#include "support/heap_huge_pages.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#if defined(__linux__) && defined(__GLIBC__)
#include <sys/wait.h>
#include <unistd.h>
#endif

using namespace scalify;

namespace {

#if defined(__linux__) && defined(__GLIBC__)
/// The VmFlags of the mapping holding `address`, from /proc/self/smaps ("" if not found).
std::string mapping_flags(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    uintptr_t low = 0, high = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &low, &high) == 2 && line.find('-') < 17) {
      inside = low <= at && at < high;
    } else if (inside && line.starts_with("VmFlags:")) {
      return line;
    }
  }
  return "";
}

/// Exit status of the child: 0 all held, 1 the advice was refused, 2 no huge-page flag on the
/// heap, 3 memory did not hold what was written.
int advised_child() {
  if (!support::use_huge_pages_for_heap(size_t{64} << 20)) return 1;
  std::vector<std::vector<uint64_t>> blocks;  // 48 MB in small and large pieces
  for (uint64_t i = 0; i < 3000; ++i) blocks.emplace_back(2000 + i % 7, i);
  for (uint64_t i = 0; i < 3; ++i) blocks.emplace_back(size_t{1} << 20, i);
  const std::string flags = mapping_flags(blocks[1500].data());
  if (flags.find(" hg") == std::string::npos) return 2;
  for (uint64_t i = 0; i < 3000; ++i) {
    if (blocks[i].front() != i || blocks[i].back() != i) return 3;
  }
  blocks.clear();
  std::vector<uint64_t> again(size_t{4} << 20, 9);  // reuses what was freed
  return again.back() == 9 ? 0 : 3;
}
#endif

}  // namespace

TEST_CASE("a reserve outside 4 MB..1 GB is refused and changes nothing", "[support]") {
  CHECK_FALSE(support::use_huge_pages_for_heap(1 << 20));
  CHECK_FALSE(support::use_huge_pages_for_heap(size_t{2} << 30));
}

TEST_CASE("the heap's reserve is advised to use huge pages and works as before", "[support]") {
#if defined(__linux__) && defined(__GLIBC__)
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(advised_child());
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
#else
  WARN("not Linux with glibc: the advice is not given");
#endif
}
