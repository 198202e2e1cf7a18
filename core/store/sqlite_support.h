// Small helpers over SQLite's C API shared by core/store: running a statement without results,
// and a prepared statement that finalises itself.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

namespace scalify::store {

/// Runs `sql` (no results wanted); false and `why` on failure.
inline bool exec(sqlite3* db, const char* sql, std::string* why = nullptr) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK && why) *why = message ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return rc == SQLITE_OK;
}

/// A statement that finalises itself.
struct Statement {
  sqlite3_stmt* s = nullptr;
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s, nullptr); }
  ~Statement() { sqlite3_finalize(s); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  explicit operator bool() const { return s != nullptr; }

  /// Binds text parameter `i` (1-based), copied.
  void bind(int i, std::string_view text) {
    sqlite3_bind_text(s, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  /// Column `i` (0-based) as text; "" for NULL.
  std::string text(int i) const {
    const auto* t = sqlite3_column_text(s, i);
    return t ? std::string(reinterpret_cast<const char*>(t),
                           static_cast<size_t>(sqlite3_column_bytes(s, i)))
             : std::string();
  }
};

}  // namespace scalify::store
