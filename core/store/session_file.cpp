#include "store/session_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <system_error>

#include "store/sqlite_support.h"
#include "support/json.h"
#include "support/read_file.h"
#include "verify/check_json.h"
#include "verify/spec.h"

namespace scalify::store {

namespace {

constexpr std::string_view kApplication = "scalify-session";

constexpr const char* kSchema =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE programs(pane TEXT PRIMARY KEY, path TEXT NOT NULL, hlo TEXT NOT NULL);"
    "CREATE TABLE expanded_groups(pane TEXT NOT NULL, position INTEGER NOT NULL,"
    " title TEXT NOT NULL, PRIMARY KEY(pane, position));"
    "CREATE TABLE notes(position INTEGER PRIMARY KEY, pane TEXT NOT NULL, node TEXT NOT NULL,"
    " text TEXT NOT NULL);"
    // "spec" and "result", each only when the session has it.
    "CREATE TABLE documents(name TEXT PRIMARY KEY, text TEXT NOT NULL);";

Diagnostic error_at(const std::string& path, const std::string& message) {
  return Diagnostic{path, {}, message, ""};
}

/// An in-memory database, closed when it goes.
struct Database {
  sqlite3* db = nullptr;
  Database() {
    if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      sqlite3_close(db);
      db = nullptr;
    }
  }
  ~Database() { sqlite3_close(db); }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  std::string error() const { return db ? sqlite3_errmsg(db) : "out of memory"; }
};

/// Runs an INSERT of text values; false on failure.
bool insert(sqlite3* db, const char* sql, std::initializer_list<std::string_view> values) {
  Statement st(db, sql);
  if (!st) return false;
  int i = 0;
  for (std::string_view v : values) st.bind(++i, v);
  return sqlite3_step(st.s) == SQLITE_DONE;
}

/// The session as the bytes of an SQLite file; `why` on failure.
std::optional<std::string> serialise(const Session& s, std::string* why) {
  Database d;
  if (!d.db) {
    *why = d.error();
    return std::nullopt;
  }
  const std::string tag = "PRAGMA application_id = " + std::to_string(kSessionApplicationId);
  if (!exec(d.db, tag.c_str(), why) || !exec(d.db, "BEGIN", why) || !exec(d.db, kSchema, why)) {
    return std::nullopt;
  }
  bool ok = insert(d.db, "INSERT INTO meta VALUES('application', ?1)", {kApplication}) &&
            insert(d.db, "INSERT INTO meta VALUES('format_version', ?1)",
                   {std::to_string(kSessionFormatVersion)});
  for (Pane pane : {Pane::kReference, Pane::kDistributed}) {
    const SessionProgram& p = pane == Pane::kReference ? s.reference : s.distributed;
    ok = ok &&
         insert(d.db, "INSERT INTO programs VALUES(?1, ?2, ?3)", {pane_name(pane), p.path, p.hlo});
    for (size_t i = 0; i < p.expanded_groups.size(); ++i) {
      ok = ok && insert(d.db, "INSERT INTO expanded_groups VALUES(?1, ?2, ?3)",
                        {pane_name(pane), std::to_string(i), p.expanded_groups[i]});
    }
  }
  for (size_t i = 0; i < s.notes.size(); ++i) {
    const NodeNote& n = s.notes[i];
    ok = ok && insert(d.db, "INSERT INTO notes VALUES(?1, ?2, ?3, ?4)",
                      {std::to_string(i), pane_name(n.pane), n.node, n.text});
  }
  if (!s.spec.empty()) {
    ok = ok && insert(d.db, "INSERT INTO documents VALUES('spec', ?1)", {s.spec});
  }
  if (s.result) {
    const std::string result = verify::to_json(*s.result, {.matches = true}).dump();
    ok = ok && insert(d.db, "INSERT INTO documents VALUES('result', ?1)", {result});
  }
  if (!ok) {
    *why = d.error();
    return std::nullopt;
  }
  if (!exec(d.db, "COMMIT", why)) return std::nullopt;
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(d.db, "main", &size, 0);
  if (!bytes) {
    *why = "out of memory";
    return std::nullopt;
  }
  std::string out(reinterpret_cast<const char*>(bytes), static_cast<size_t>(size));
  sqlite3_free(bytes);
  return out;
}

/// Writes `bytes` to `path` and flushes it to the disk; `why` on failure, when a file it made
/// is removed again (and one it could not make, such as a folder of that name, left alone).
bool write_synced(const std::string& path, const std::string& bytes, std::string* why) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    *why = std::strerror(errno);
    return false;
  }
  const auto fail = [&](const char* what) {
    *why = what ? what : std::strerror(errno);
    ::close(fd);
    ::unlink(path.c_str());
    return false;
  };
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(nullptr);
    if (n == 0) return fail("nothing could be written (is the disk full?)");
    done += static_cast<size_t>(n);
  }
  // On the disk before the rename makes it the session: a crash then leaves the old file or
  // the whole new one.
  if (::fsync(fd) != 0) return fail(nullptr);
  if (::close(fd) != 0) {
    *why = std::strerror(errno);
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

uint32_t big_endian(const std::string& bytes, size_t at, size_t width) {
  uint32_t v = 0;
  for (size_t i = 0; i < width; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

/// Why the bytes cannot be a whole session file, from the SQLite header alone; "" when they may.
std::string header_problem(const std::string& bytes) {
  static constexpr std::string_view kMagic("SQLite format 3\0", 16);
  constexpr size_t kHeader = 100;
  if (bytes.size() < kMagic.size() || std::string_view(bytes).substr(0, 16) != kMagic) {
    return "it is not a Scalify session (not an SQLite file)";
  }
  if (bytes.size() < kHeader)
    return "the session is truncated (" + std::to_string(bytes.size()) +
           " bytes, not even its header)";
  if (static_cast<int32_t>(big_endian(bytes, 68, 4)) != kSessionApplicationId) {
    return "it is not a Scalify session (an SQLite database of another program)";
  }
  uint64_t page_size = big_endian(bytes, 16, 2);
  if (page_size == 1) page_size = 65536;
  const uint64_t pages = big_endian(bytes, 28, 4);
  // The page count is valid when the "version valid for" number matches the change counter.
  const bool count_valid = big_endian(bytes, 24, 4) == big_endian(bytes, 92, 4);
  if (count_valid && pages > 0 && page_size * pages > bytes.size()) {
    return "the session is truncated (" + std::to_string(bytes.size()) + " of its " +
           std::to_string(page_size * pages) + " bytes)";
  }
  return "";
}

/// The text of every row of a one-column query.
std::vector<std::string> column(sqlite3* db, const char* sql, std::string_view arg, bool* ok) {
  std::vector<std::string> out;
  Statement st(db, sql);
  if (!st) {
    *ok = false;
    return out;
  }
  st.bind(1, arg);
  int rc;
  while ((rc = sqlite3_step(st.s)) == SQLITE_ROW) out.push_back(st.text(0));
  if (rc != SQLITE_DONE) *ok = false;
  return out;
}

/// The session in an open, checked database; `why` on failure.
std::optional<Session> read_tables(sqlite3* db, std::string* why) {
  Session s;
  bool ok = true;
  for (Pane pane : {Pane::kReference, Pane::kDistributed}) {
    SessionProgram& p = pane == Pane::kReference ? s.reference : s.distributed;
    Statement st(db, "SELECT path, hlo FROM programs WHERE pane = ?1");
    if (!st) {
      *why = sqlite3_errmsg(db);
      return std::nullopt;
    }
    st.bind(1, pane_name(pane));
    if (sqlite3_step(st.s) != SQLITE_ROW) {
      *why = "it holds no " + std::string(pane_name(pane)) + " program";
      return std::nullopt;
    }
    p.path = st.text(0);
    p.hlo = st.text(1);
    p.expanded_groups =
        column(db, "SELECT title FROM expanded_groups WHERE pane = ?1 ORDER BY position",
               pane_name(pane), &ok);
  }
  {
    Statement st(db, "SELECT pane, node, text FROM notes ORDER BY position");
    if (!st) ok = false;
    int rc = SQLITE_DONE;
    while (st && (rc = sqlite3_step(st.s)) == SQLITE_ROW) {
      const auto pane = parse_pane(st.text(0));
      if (!pane) {
        *why = "a note is on an unknown pane '" + st.text(0) + "'";
        return std::nullopt;
      }
      s.notes.push_back({*pane, st.text(1), st.text(2)});
    }
    if (rc != SQLITE_DONE) ok = false;
  }
  const std::vector<std::string> spec =
      column(db, "SELECT text FROM documents WHERE name = ?1", "spec", &ok);
  const std::vector<std::string> result =
      column(db, "SELECT text FROM documents WHERE name = ?1", "result", &ok);
  if (!ok) {
    *why = sqlite3_errmsg(db);
    return std::nullopt;
  }
  if (!spec.empty()) {
    s.spec = spec[0];
    if (auto parsed = verify::parse_spec(s.spec, "its spec"); !parsed) {
      *why = "its spec: " + parsed.error().message;
      return std::nullopt;
    }
  }
  if (!result.empty()) {
    auto json = json::parse(result[0], "its result");
    if (!json) {
      *why = json.error().message;
      return std::nullopt;
    }
    auto r = verify::result_from_json(*json, "its result");
    if (!r) {
      *why = r.error().message;
      return std::nullopt;
    }
    s.result = std::move(*r);
  }
  return s;
}

}  // namespace

std::string_view pane_name(Pane pane) {
  return pane == Pane::kReference ? "reference" : "distributed";
}

std::optional<Pane> parse_pane(std::string_view name) {
  if (name == "reference") return Pane::kReference;
  if (name == "distributed") return Pane::kDistributed;
  return std::nullopt;
}

Expected<bool> save_session(const std::string& path, const Session& session) {
  std::string why;
  const std::optional<std::string> bytes = serialise(session, &why);
  if (!bytes) return error_at(path, "cannot save the session: " + why);
  // Beside the target, so that the rename stays on one file system.
  const std::string temporary = path + ".partial";
  if (!write_synced(temporary, *bytes, &why)) {
    return error_at(path, "cannot save the session: " + why);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    ::unlink(temporary.c_str());  // ours: just written
    return error_at(path, "cannot save the session: " + ec.message());
  }
  return true;
}

Expected<Session> open_session(const std::string& path) {
  // The whole file is read, then opened in memory: SQLite never touches the user's file (no
  // journal, no lock, no recovery written back into it).
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return error_at(path, "cannot open the session: it is a folder");
  }
  std::string unread;
  const std::optional<std::string> read = read_whole_file(path, &unread);
  if (!read) return error_at(path, unread + " (the session)");
  const std::string& bytes = *read;
  if (const std::string problem = header_problem(bytes); !problem.empty()) {
    return error_at(path, problem);
  }

  Database d;
  if (!d.db) return error_at(path, "cannot open the session: " + d.error());
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size()));
  if (!copy) return error_at(path, "cannot open the session: out of memory");
  std::memcpy(copy, bytes.data(), bytes.size());
  // SQLite owns `copy` from here on, whatever the outcome.
  if (sqlite3_deserialize(d.db, "main", copy, static_cast<sqlite3_int64>(bytes.size()),
                          static_cast<sqlite3_int64>(bytes.size()),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
      SQLITE_OK) {
    return error_at(path, "the session is damaged: " + d.error());
  }
  const auto damaged = [&](const std::string& why) {
    return error_at(path, "the session is damaged: " + why);
  };
  bool ok = true;
  const std::vector<std::string> app =
      column(d.db, "SELECT value FROM meta WHERE key = ?1", "application", &ok);
  const std::vector<std::string> version =
      column(d.db, "SELECT value FROM meta WHERE key = ?1", "format_version", &ok);
  if (!ok) return damaged(d.error());
  if (app.size() != 1 || app[0] != kApplication) {
    return error_at(path, "it is not a Scalify session (an SQLite database of another program)");
  }
  int format = 0;
  if (version.size() == 1) {
    const std::string& v = version[0];
    const auto [end, err] = std::from_chars(v.data(), v.data() + v.size(), format);
    if (err != std::errc() || end != v.data() + v.size()) format = 0;
  }
  if (format < 1) return damaged("its format version is missing");
  if (format > kSessionFormatVersion) {
    return error_at(path, "this session was written by a newer Scalify (format " +
                              std::to_string(format) + "; this one reads " +
                              std::to_string(kSessionFormatVersion) + ")");
  }
  {
    Statement st(d.db, "PRAGMA quick_check");
    if (!st) return damaged(d.error());
    const int rc = sqlite3_step(st.s);
    if (rc != SQLITE_ROW) return damaged(d.error());
    if (st.text(0) != "ok") return damaged(st.text(0));
  }
  std::string why;
  std::optional<Session> session = read_tables(d.db, &why);
  if (!session) return damaged(why);
  return std::move(*session);
}

}  // namespace scalify::store
