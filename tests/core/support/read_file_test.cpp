#include "support/read_file.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>

#include "test_support.h"

using scalify::FileText;
using scalify::map_whole_file;
using scalify::read_whole_file;

TEST_CASE("map_whole_file: the same bytes as read_whole_file, mapped or read", "[support][file]") {
  scalify::test::TempDir dir;
  // A page exactly (the mapping ends where the file does: no terminating NUL to lean on), a
  // few bytes, and a file of several pages that does not end on one.
  const std::string page(4096, 'a');
  std::string pages;
  for (int i = 0; i < 3000; ++i) pages += "line " + std::to_string(i) + "\n";
  for (const std::string& content : {page, std::string("HloModule m"), pages}) {
    const std::string path = dir.write("f.txt", content);
    std::string why;
    const auto mapped = map_whole_file(path, &why);
    REQUIRE(mapped.has_value());
    CHECK(mapped->view() == content);
    CHECK(mapped->view() == *read_whole_file(path));
  }
}

TEST_CASE("map_whole_file: an empty file is read, a missing one gives the reason",
          "[support][file]") {
  scalify::test::TempDir dir;
  const auto empty = map_whole_file(dir.write("empty.txt", ""));
  REQUIRE(empty.has_value());
  CHECK(empty->view().empty());
  std::string why;
  CHECK_FALSE(map_whole_file(dir.path() + "/nope.txt", &why).has_value());
  CHECK(why.find("cannot open the file") != std::string::npos);
}

TEST_CASE("map_whole_file: a moved text still shows the file", "[support][file]") {
  scalify::test::TempDir dir;
  const std::string path = dir.write("f.txt", "abc\n");
  auto first = map_whole_file(path);
  REQUIRE(first.has_value());
  FileText moved = std::move(*first);
  CHECK(moved.view() == "abc\n");
  auto other = map_whole_file(dir.write("g.txt", "xyz"));
  REQUIRE(other.has_value());
  moved = std::move(*other);
  CHECK(moved.view() == "xyz");
}
