// How a check result marks the nodes of each pane: values proven equal share a pastel colour in
// both panes (keyed by the reference node they hold), distributed nodes carry a layout badge
// (`R`, `S(d)`, `P`), and the divergent node is red.
#pragma once

#include <QColor>
#include <QString>
#include <string>
#include <unordered_map>

#include "verify/check_result.h"

namespace scalify::views {

struct NodeMarks {
  std::unordered_map<std::string, QColor> fill;    ///< by node name; absent: unmatched
  std::unordered_map<std::string, QString> badge;  ///< by node name (distributed pane)
  std::string divergent;                           ///< the node to draw red, or empty
};

/// The colour of the values equal to reference node `ref_name`: a pastel hue from its name.
QColor match_colour(const std::string& ref_name);
/// `R` (replicated), `S(1)` (sharded along dim 1), `P` (partial); axes joined by `·`.
QString layout_badge(const verify::Layout& layout);
/// The marks of the reference pane: every matched reference node in its colour.
NodeMarks reference_marks(const verify::CheckResult& result);
/// The marks of the distributed pane: matched nodes in their reference node's colour, badges.
NodeMarks distributed_marks(const verify::CheckResult& result);

}  // namespace scalify::views
