// The SQLite cache: results kept across openings, damaged and foreign files moved aside.
#include "store/memo_store.h"

#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "test_support.h"

using namespace scalify;
namespace fs = std::filesystem;

namespace {

/// How many files in `dir` have names starting with `prefix`.
size_t files_starting(const test::TempDir& dir, const std::string& prefix) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) {
    n += e.path().filename().string().rfind(prefix, 0) == 0;
  }
  return n;
}

}  // namespace

TEST_CASE("memo store: results persist across openings", "[store]") {
  test::TempDir dir;
  const std::string file = dir.path() + "/sub/memo.sqlite";  // folder made on open
  {
    auto s = store::MemoStore::open(file);
    REQUIRE(s);
    CHECK((*s)->note().empty());
    CHECK_FALSE((*s)->get("k").has_value());
    (*s)->put("k", "value one");
    (*s)->put("k", "value two");  // replaced
    (*s)->put("other", std::string(100000, 'x'));
    CHECK((*s)->size() == 2);
  }
  auto s = store::MemoStore::open(file);
  REQUIRE(s);
  CHECK((*s)->note().empty());
  CHECK((*s)->get("k") == "value two");
  CHECK((*s)->get("other")->size() == 100000);
}

TEST_CASE("memo store: a damaged or foreign file is moved aside, never deleted", "[store]") {
  test::TempDir dir;
  const std::string file = dir.path() + "/memo.sqlite";
  SECTION("not a database") {
    std::ofstream(file) << "my notes, not a cache\n";
    auto s = store::MemoStore::open(file);
    REQUIRE(s);
    CHECK_THAT((*s)->note(), Catch::Contains("moved to"));
    CHECK(files_starting(dir, "memo.sqlite.unusable-") == 1);
    (*s)->put("k", "v");
    CHECK((*s)->get("k") == "v");
  }
  SECTION("another program's database") {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "CREATE TABLE songs(title TEXT)", nullptr, nullptr, nullptr) ==
            SQLITE_OK);
    sqlite3_close(db);
    auto s = store::MemoStore::open(file);
    REQUIRE(s);
    CHECK_THAT((*s)->note(), Catch::Contains("not a Scalify cache"));
    CHECK(files_starting(dir, "memo.sqlite.unusable-") == 1);
  }
  SECTION("a cache of another schema version") {
    {
      auto s = store::MemoStore::open(file);
      REQUIRE(s);
    }
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(file.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "UPDATE meta SET value = '999' WHERE key = 'schema_version'", nullptr,
                         nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    auto s = store::MemoStore::open(file);
    REQUIRE(s);
    CHECK_THAT((*s)->note(), Catch::Contains("schema version is 999"));
  }
}

TEST_CASE("memo store: a folder that cannot be made is an error, not a crash", "[store]") {
  test::TempDir dir;
  dir.write("file", "x");
  auto s = store::MemoStore::open(dir.path() + "/file/memo.sqlite");
  CHECK_FALSE(s);
}
