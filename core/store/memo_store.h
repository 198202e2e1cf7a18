// The SQLite cache of part results (verify::PersistentStore): a file that several runs may use
// at once, with a schema version, that never hands back a result it cannot vouch for. A file
// that is not such a cache (damaged, foreign, or of another schema) is moved aside, never
// deleted, and a new cache is made in its place.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "support/expected.h"
#include "verify/part_memo.h"

struct sqlite3;

namespace scalify::store {

/// The cache at `path` (its folder is created if missing).
///
///   auto cache = MemoStore::open("/home/me/.cache/scalify/memo.sqlite");
///   if (!cache) std::cerr << cache.error().format();
///   else if (!(*cache)->note().empty()) std::cerr << (*cache)->note();   // it was rebuilt
///   verify::PartMemo memo(cache->get());
class MemoStore final : public verify::PersistentStore {
 public:
  static Expected<std::unique_ptr<MemoStore>> open(const std::string& path);
  ~MemoStore() override;
  MemoStore(const MemoStore&) = delete;
  MemoStore& operator=(const MemoStore&) = delete;

  std::optional<std::string> get(std::string_view key) override;
  void put(std::string_view key, std::string_view value) override;

  /// What happened when it was opened, for the user ("… was not a Scalify cache: moved to …,
  /// a new cache was made"); empty when all was well.
  const std::string& note() const { return note_; }
  /// The number of results it holds.
  size_t size();

  static constexpr int kSchemaVersion = 1;

 private:
  explicit MemoStore(sqlite3* db, std::string note) : db_(db), note_(std::move(note)) {}
  sqlite3* db_;
  std::string note_;
  std::mutex mutex_;
};

/// Where the cache lives by default: $XDG_CACHE_HOME/scalify/memo.sqlite, else
/// $HOME/.cache/scalify/memo.sqlite; empty when neither variable is set.
std::string default_cache_path();

}  // namespace scalify::store
