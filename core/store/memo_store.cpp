#include "store/memo_store.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "store/sqlite_support.h"

namespace scalify::store {

namespace {

constexpr std::string_view kApplication = "scalify-part-memo";

Diagnostic error_at(const std::string& path, const std::string& message) {
  return Diagnostic{path, {}, message, ""};
}

/// The meta value `key`, if the table and the row exist.
std::optional<std::string> meta(sqlite3* db, const char* key) {
  Statement st(db, "SELECT value FROM meta WHERE key = ?1");
  if (!st) return std::nullopt;
  sqlite3_bind_text(st.s, 1, key, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_ROW) return std::nullopt;
  const auto* text = sqlite3_column_text(st.s, 0);
  return text ? std::string(reinterpret_cast<const char*>(text)) : std::string();
}

/// Opens `path` as a cache of this schema; on failure says why (and closes what it opened).
sqlite3* open_ours(const std::string& path, std::string* why) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    *why = db ? sqlite3_errmsg(db) : "cannot open";
    sqlite3_close(db);
    return nullptr;
  }
  sqlite3_busy_timeout(db, 10'000);  // other runs may hold the write lock for a moment
  const bool fresh = [&] {
    Statement st(db, "SELECT count(*) FROM sqlite_master");
    return st && sqlite3_step(st.s) == SQLITE_ROW && sqlite3_column_int(st.s, 0) == 0;
  }();
  // A file that is not a database fails here (SQLITE_NOTADB), before anything is written.
  if (!exec(db, "PRAGMA journal_mode=WAL", why) || !exec(db, "PRAGMA quick_check", why)) {
    sqlite3_close(db);
    return nullptr;
  }
  if (fresh) {
    const std::string schema =
        "BEGIN IMMEDIATE;"
        "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS results(key TEXT PRIMARY KEY, value TEXT NOT NULL,"
        " created INTEGER NOT NULL);"
        "INSERT OR IGNORE INTO meta VALUES('application', '" +
        std::string(kApplication) + "');INSERT OR IGNORE INTO meta VALUES('schema_version', '" +
        std::to_string(MemoStore::kSchemaVersion) + "');COMMIT;";
    if (!exec(db, schema.c_str(), why)) {
      sqlite3_close(db);
      return nullptr;
    }
  }
  const auto app = meta(db, "application");
  const auto version = meta(db, "schema_version");
  if (app != std::string(kApplication)) {
    *why = "it is not a Scalify cache";
  } else if (version != std::to_string(MemoStore::kSchemaVersion)) {
    *why = "its schema version is " + version.value_or("missing") + ", this Scalify writes " +
           std::to_string(MemoStore::kSchemaVersion);
  } else {
    return db;
  }
  sqlite3_close(db);
  return nullptr;
}

}  // namespace

Expected<std::unique_ptr<MemoStore>> MemoStore::open(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty()) fs::create_directories(folder, ec);
  if (ec) return error_at(path, "cannot create the cache folder: " + ec.message());
  std::string why;
  if (sqlite3* db = open_ours(path, &why)) {
    return std::unique_ptr<MemoStore>(new MemoStore(db, ""));
  }
  // Not a cache we can use: move it aside (never delete what may be someone's file) and start
  // a new one.
  if (!fs::exists(path, ec)) return error_at(path, "cannot open the cache: " + why);
  const auto stamp = std::chrono::system_clock::now().time_since_epoch().count();
  const std::string aside = path + ".unusable-" + std::to_string(stamp);
  fs::rename(path, aside, ec);
  if (ec)
    return error_at(
        path, "the cache is unusable (" + why + ") and cannot be moved aside: " + ec.message());
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path + suffix, ec);
  std::string again;
  sqlite3* db = open_ours(path, &again);
  if (!db) return error_at(path, "cannot create a new cache: " + again);
  return std::unique_ptr<MemoStore>(
      new MemoStore(db, path + ": " + why + "; moved to " + aside + " and made a new cache"));
}

MemoStore::~MemoStore() { sqlite3_close(db_); }

std::optional<std::string> MemoStore::get(std::string_view key) {
  std::lock_guard lock(mutex_);
  Statement st(db_, "SELECT value FROM results WHERE key = ?1");
  if (!st) return std::nullopt;
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(st.s) != SQLITE_ROW) return std::nullopt;
  const auto* text = sqlite3_column_text(st.s, 0);
  if (!text) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(st.s, 0)));
}

void MemoStore::put(std::string_view key, std::string_view value) {
  std::lock_guard lock(mutex_);
  Statement st(db_, "INSERT OR REPLACE INTO results(key, value, created) VALUES(?1, ?2, ?3)");
  if (!st) return;  // a cache that cannot be written is only slower
  sqlite3_bind_text(st.s, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(st.s, 2, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  sqlite3_bind_int64(st.s, 3,
                     std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count());
  sqlite3_step(st.s);
}

size_t MemoStore::size() {
  std::lock_guard lock(mutex_);
  Statement st(db_, "SELECT count(*) FROM results");
  if (!st || sqlite3_step(st.s) != SQLITE_ROW) return 0;
  return static_cast<size_t>(sqlite3_column_int64(st.s, 0));
}

std::string default_cache_path() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/scalify/memo.sqlite";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/scalify/memo.sqlite";
  }
  return "";
}

}  // namespace scalify::store
