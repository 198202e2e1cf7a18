// A saved Scalify Studio session (`.scalify`): one SQLite file holding both programs' HLO text
// and where they were read from, the user's bijection overrides (as a spec's JSON text), the
// check's result with its proofs, the layers open in each pane and the user's notes on nodes.
// Saving is atomic (a temporary file beside the target, renamed over it); opening never changes
// the file, and a file that is not a session, a damaged one or one from a newer Scalify is
// refused with a message saying so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/expected.h"
#include "verify/check_result.h"

namespace scalify::store {

/// The two graph panes of the window.
enum class Pane : uint8_t { kReference, kDistributed };
/// "reference" / "distributed".
std::string_view pane_name(Pane pane);
std::optional<Pane> parse_pane(std::string_view name);

/// One program of the pair: where it was read from, its text as read, and the groups (layer
/// boxes, by title: "layer 3") its pane had open.
struct SessionProgram {
  std::string path;
  std::string hlo;
  std::vector<std::string> expanded_groups;
  friend bool operator==(const SessionProgram&, const SessionProgram&) = default;
};

/// A note the user attached to a node of one pane.
struct NodeNote {
  Pane pane = Pane::kDistributed;
  std::string node;  ///< the instruction's name, without '%'
  std::string text;
  friend bool operator==(const NodeNote&, const NodeNote&) = default;
};

/// Everything a session restores.
///
///   Session s;
///   s.reference = {"ref.hlo", ref_text, {}};
///   s.distributed = {"dist.hlo", dist_text, {"layer 3"}};
///   s.spec = verify::spec_to_json(overrides).dump(2);   // "" when nothing is pinned
///   s.result = result;                                    // nullopt: check when opened
///   s.notes.push_back({Pane::kDistributed, "add.170", "the all-reduce goes here"});
///   if (auto saved = save_session("bug.scalify", s); !saved) show(saved.error().format());
///   auto back = open_session("bug.scalify");
struct Session {
  SessionProgram reference, distributed;
  /// The JSON text of a verify::Spec (verify/spec_json.h), read back with verify::parse_spec;
  /// empty when the user pinned nothing.
  std::string spec;
  /// The check's result as it was shown (proofs are its goals' lines); nullopt when there was
  /// none yet.
  std::optional<verify::CheckResult> result;
  std::vector<NodeNote> notes;
};

/// The format this Scalify writes and reads (a file of a higher one is refused).
inline constexpr int kSessionFormatVersion = 1;
/// The SQLite application_id of a session file ("SCLF").
inline constexpr int32_t kSessionApplicationId = 0x53434C46;

/// Writes `session` to `path`: first to `path.partial` beside it, then renamed over `path`, so
/// a failure (a full disk, a folder that cannot be written, a crash) leaves the previous file
/// as it was and no temporary file behind. An error names the path and says why.
Expected<bool> save_session(const std::string& path, const Session& session);

/// Reads the session at `path`, which is never changed, moved or deleted. Errors say what the
/// file is: not a Scalify session (not an SQLite file, or another program's), truncated or
/// damaged, or written by a newer Scalify ("… was written by a newer Scalify (format 3; this
/// one reads 1)").
Expected<Session> open_session(const std::string& path);

}  // namespace scalify::store
