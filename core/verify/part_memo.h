// Memoisation of part checks: a part's result keyed by a canonical fingerprint of (reference
// part, distributed part, their candidate layouts, mesh, rule set), kept in memory for the run
// and, through a PersistentStore (the SQLite cache of core/store), across runs. A result found
// for an identical part elsewhere in the model is renamed to this part's instructions.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "verify/check_result.h"

namespace scalify::verify {

/// Strings by key, kept across runs. Implementations must be safe to call from several threads.
class PersistentStore {
 public:
  virtual ~PersistentStore() = default;
  virtual std::optional<std::string> get(std::string_view key) = 0;
  virtual void put(std::string_view key, std::string_view value) = 0;
};

/// A part's result and the names of the instructions it speaks of: the distributed and the
/// reference part's instructions, in the canonical (topological) order of the fingerprint.
struct MemoEntry {
  CheckResult result;
  std::vector<std::string> dist_names, ref_names;
};

/// The text form a PersistentStore keeps: {"result": the result as verify::to_json writes it,
/// with its matches; "dist_names", "ref_names"}; and back. nullopt for text that is not one (a
/// foreign or damaged entry, one of an older form, one on another mesh), which the caller then
/// recomputes.
std::string to_text(const MemoEntry& entry);
std::optional<MemoEntry> memo_entry_from_text(std::string_view text, const Mesh& mesh);

/// Instruction names to replace: the distributed and the reference program's (views of names
/// the caller keeps alive while it renames).
struct Renames {
  std::unordered_map<std::string_view, std::string_view> dist, ref;
  /// false: the goals' proof text is dropped rather than renamed (a caller that only needs the
  /// goals' layouts and the derivation: a layered check's parts before the last).
  bool proofs = true;
  /// false: the node matches are dropped rather than renamed (a caller that does not show them).
  bool matches = true;
  bool empty() const { return dist.empty() && ref.empty(); }
};

/// Fact `f` (of a derivation found on another part) with its names replaced; a loop's or
/// conditional's steps, whose names the renames do not cover, dropped.
void rename_fact(DerivedFact& f, const Renames& renames);

/// `result` with names replaced as whole words: distributed names in the fields that name
/// distributed nodes, reference names in those that name reference nodes, and in free text
/// (reasons, proofs, notes) both where they do not disagree.
///
///   renamed(r, {{{"add.7", "add.91"}}, {}}).divergence->dist_node == "add.91"
CheckResult renamed(const CheckResult& result, const Renames& renames);

/// The memo: thread-safe; `store` (may be null) is read on a miss and written on every put.
class PartMemo {
 public:
  explicit PartMemo(PersistentStore* store = nullptr) : store_(store) {}

  std::optional<MemoEntry> find(const std::string& key, const Mesh& mesh);
  void put(const std::string& key, const MemoEntry& entry);

 private:
  PersistentStore* store_;
  std::mutex mutex_;
  std::unordered_map<std::string, MemoEntry> entries_;
};

}  // namespace scalify::verify
