// The user's notes on nodes: one text per (pane, node name), kept in the order they were first
// written, saved with a session (store::NodeNote).
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "store/session_file.h"

namespace scalify::views {

/// Notes by pane and node.
///
///   NodeNotes notes;
///   notes.set(store::Pane::kDistributed, "add.170", "the all-reduce is missing here");
///   notes.find(store::Pane::kDistributed, "add.170");   // the text, or nullptr
///   notes.set(store::Pane::kDistributed, "add.170", "");  // removes it
class NodeNotes {
 public:
  NodeNotes() = default;
  /// From a session's list (a later note on the same node replaces an earlier one).
  explicit NodeNotes(const std::vector<store::NodeNote>& notes);

  /// Sets the note of `node` in `pane`; an empty (or blank) text removes it.
  void set(store::Pane pane, const std::string& node, const std::string& text);
  /// The note's text, or nullptr.
  const std::string* find(store::Pane pane, const std::string& node) const;
  bool empty() const { return notes_.empty(); }
  size_t size() const { return notes_.size(); }
  /// Every note, in the order they were first written.
  const std::vector<store::NodeNote>& list() const { return notes_; }
  /// The notes of one pane, by node name.
  std::unordered_map<std::string, std::string> of_pane(store::Pane pane) const;
  void clear() { notes_.clear(); }

 private:
  std::vector<store::NodeNote> notes_;  ///< few: looked up linearly
};

}  // namespace scalify::views
