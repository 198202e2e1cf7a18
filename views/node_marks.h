// How a check result marks the nodes of each pane: values proven equal share a pastel colour in
// both panes (keyed by the reference node they hold), distributed nodes carry a layout badge
// (`R`, `S(d)`, `P`), the divergent node is red, and the node where its cause began is outlined
// in red.
#pragma once

#include <QColor>
#include <QString>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "verify/check_result.h"

namespace scalify::views {

struct NodeMarks {
  std::unordered_map<std::string, QColor> fill;    ///< by node name; absent: unmatched
  std::unordered_map<std::string, QString> badge;  ///< by node name (distributed pane)
  std::string divergent;                           ///< the node to draw red, or empty
  /// Where the divergence's cause began (Divergence::origin_node): outlined in red, or empty.
  std::string origin;
  /// The saturation timeline's view: when true, nodes not in `lit` are drawn faded.
  bool dim_unlit = false;
  std::unordered_set<std::string> lit;
};

/// The colour of the values equal to reference node `ref_name`: a pastel hue from its name.
QColor match_colour(const std::string& ref_name);
/// `R` (replicated), `S(1)` (sharded along dim 1), `P` (partial); axes joined by `·`.
QString layout_badge(const verify::Layout& layout);
/// The marks of the reference pane: every matched reference node in its colour.
NodeMarks reference_marks(const verify::CheckResult& result);
/// The marks of the distributed pane: matched nodes in their reference node's colour, badges.
NodeMarks distributed_marks(const verify::CheckResult& result);
/// The distributed pane after the first `step` + 1 facts of the derivation (the saturation
/// timeline): nodes with a fact by then lit, coloured and badged by their first fact naming a
/// reference node, the others faded. At the last step (or beyond): distributed_marks(result).
NodeMarks distributed_marks_at(const verify::CheckResult& result, size_t step);

}  // namespace scalify::views
