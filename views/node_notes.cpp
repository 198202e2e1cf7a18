#include "views/node_notes.h"

#include <algorithm>

namespace scalify::views {

namespace {

bool blank(const std::string& text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

}  // namespace

NodeNotes::NodeNotes(const std::vector<store::NodeNote>& notes) {
  for (const store::NodeNote& n : notes) set(n.pane, n.node, n.text);
}

void NodeNotes::set(store::Pane pane, const std::string& node, const std::string& text) {
  const auto it = std::find_if(notes_.begin(), notes_.end(), [&](const store::NodeNote& n) {
    return n.pane == pane && n.node == node;
  });
  if (blank(text)) {
    if (it != notes_.end()) notes_.erase(it);
  } else if (it != notes_.end()) {
    it->text = text;
  } else {
    notes_.push_back({pane, node, text});
  }
}

const std::string* NodeNotes::find(store::Pane pane, const std::string& node) const {
  for (const store::NodeNote& n : notes_) {
    if (n.pane == pane && n.node == node) return &n.text;
  }
  return nullptr;
}

std::unordered_map<std::string, std::string> NodeNotes::of_pane(store::Pane pane) const {
  std::unordered_map<std::string, std::string> out;
  for (const store::NodeNote& n : notes_) {
    if (n.pane == pane) out.emplace(n.node, n.text);
  }
  return out;
}

}  // namespace scalify::views
