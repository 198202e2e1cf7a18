// ParentLists: chains of blocks that append in place and merge by splicing.
#include "egraph/parent_lists.h"

#include <catch2/catch.hpp>
#include <vector>

using namespace scalify::egraph;

namespace {

std::vector<ClassId> listed(const ParentLists& lists, const ParentLists::Chain& chain) {
  std::vector<ClassId> out;
  lists.append_to(chain, out);
  return out;
}

}  // namespace

TEST_CASE("parent lists append across blocks and splice in order", "[egraph]") {
  ParentLists lists;
  ParentLists::Chain a, b, none;
  for (ClassId p = 0; p < 13; ++p) lists.push(a, p);  // three blocks, the last partial
  for (ClassId p = 100; p < 104; ++p) lists.push(b, p);
  CHECK(listed(lists, a).size() == 13);
  CHECK(listed(lists, a).back() == 12);
  lists.splice(a, b);
  CHECK(b.empty());
  std::vector<ClassId> want;
  for (ClassId p = 0; p < 13; ++p) want.push_back(p);
  for (ClassId p = 100; p < 104; ++p) want.push_back(p);
  CHECK(listed(lists, a) == want);
  // Appending after a splice goes to the spliced chain's last block.
  lists.push(a, 200);
  want.push_back(200);
  CHECK(listed(lists, a) == want);
  // Splicing from or into an empty list.
  lists.splice(a, none);
  CHECK(listed(lists, a) == want);
  lists.splice(none, a);
  CHECK(a.empty());
  CHECK(listed(lists, none) == want);
}
