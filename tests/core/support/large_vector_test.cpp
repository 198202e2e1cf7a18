// LargeVector: a vector of plain values that grows in place (by remapping) past a few MB. It
// must keep every value through that growth, through copies, moves, clear() and reuse, and
// behave as a plain heap vector while small.
#include "support/large_vector.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <utility>

using namespace scalify;

namespace {

struct Edge {  // 12 bytes: a size that does not divide a huge page
  uint32_t a, b, c;
};

}  // namespace

TEST_CASE("a large vector keeps its values as it grows past its mapping, in place", "[support]") {
  LargeVector<uint32_t> v;
  for (uint32_t i = 0; i < 100; ++i) v.push_back(i * 3);  // on the heap
  CHECK(v.capacity() * sizeof(uint32_t) < detail::kLargeBlock);
  for (uint32_t i = 100; i < 5'000'000; ++i) v.push_back(i * 3);  // 20 MB: mapped, remapped
  REQUIRE(v.size() == 5'000'000);
  for (uint32_t i = 0; i < v.size(); i += 7919) REQUIRE(v[i] == i * 3);
  CHECK(v.back() == 4'999'999u * 3);
#if defined(__linux__)
  CHECK(reinterpret_cast<uintptr_t>(v.data()) % detail::kHugePage == 0);
#endif
  const size_t capacity = v.capacity();
  v.clear();  // keeps its pages for the next fill
  CHECK(v.empty());
  CHECK(v.capacity() == capacity);
  v.push_back(42);
  CHECK(v[0] == 42);
}

TEST_CASE("a large vector of records copies, moves, resizes and appends like a vector",
          "[support]") {
  LargeVector<Edge> edges;
  constexpr uint32_t kCount = 1'000'000;  // 12 MB
  for (uint32_t i = 0; i < kCount; ++i) edges.emplace_back(Edge{i, i + 1, i + 2});
  REQUIRE(edges.size() == kCount);
  CHECK(edges[kCount - 1].c == kCount + 1);

  LargeVector<Edge> copy = edges;  // a mapping of its own
  edges[0].a = 99;
  CHECK(copy[0].a == 0);
  LargeVector<Edge> moved = std::move(edges);
  CHECK(edges.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  CHECK(moved[0].a == 99);
  CHECK(moved[kCount / 2].b == kCount / 2 + 1);

  moved.resize(kCount + 10, Edge{7, 7, 7});
  CHECK(moved[kCount + 9].b == 7);
  CHECK(moved[kCount - 1].c == kCount + 1);
  moved.resize(3);
  CHECK(moved.size() == 3);

  LargeVector<uint32_t> ids;
  ids.reserve(2'000'000);  // exactly: then appending within it never moves the data
  const uint32_t* before = ids.data();
  const uint32_t row[] = {1, 2, 3, 4};
  for (int i = 0; i < 500'000; ++i) ids.append(row, row + 4);
  CHECK(ids.data() == before);
  CHECK(ids.size() == 2'000'000);
  CHECK(ids[1'999'999] == 4);

  LargeVector<uint32_t> other(5, 1);
  other.swap(ids);
  CHECK(ids.size() == 5);
  CHECK(other.size() == 2'000'000);
  ids = other;  // copy-assign over a smaller one
  CHECK(ids[1'999'998] == 3);
}
