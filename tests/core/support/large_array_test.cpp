// LargeArrayAllocator: large blocks are mapped on huge-page boundaries, small ones come from
// operator new, and both hold what is written to them through growth, copies and moves.
#include "support/large_array.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "egraph/id_vector.h"

using namespace scalify;

TEST_CASE("large arrays keep their values through growth and start on a huge page", "[support]") {
  std::vector<uint32_t, LargeArrayAllocator<uint32_t>> v;
  for (uint32_t i = 0; i < 3'000'000; ++i) v.push_back(i * 7);  // grows past 4 MB (12 MB)
  for (uint32_t i = 0; i < v.size(); i += 9973) REQUIRE(v[i] == i * 7);
#if defined(__linux__)
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % detail::kHugePage == 0);
#endif
  auto copy = v;  // a second mapping
  v.clear();
  v.shrink_to_fit();  // the first is unmapped
  CHECK(copy[2'999'999] == 2'999'999u * 7);
  std::vector<uint32_t, LargeArrayAllocator<uint32_t>> small(10, 3);
  CHECK(small[9] == 3);
}

TEST_CASE("an id vector cut from slabs indexes, copies and moves like a vector", "[support]") {
  egraph::IdVector<std::vector<int>> ids;  // elements that own memory: constructed, destroyed
  constexpr int kCount = 4096 * 40;        // past the single chunks, into two slabs
  for (int i = 0; i < kCount; ++i) ids.emplace_back().push_back(i);
  REQUIRE(ids.size() == static_cast<size_t>(kCount));
  CHECK(ids[kCount - 1][0] == kCount - 1);
  CHECK(ids[4096 * 16 + 5][0] == 4096 * 16 + 5);
  egraph::IdVector<std::vector<int>> copy = ids;
  egraph::IdVector<std::vector<int>> moved = std::move(ids);
  CHECK(ids.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  CHECK(copy[123456][0] == 123456);
  CHECK(moved[123456][0] == 123456);
  ids = std::move(copy);
  CHECK(ids.back()[0] == kCount - 1);
}
