#include "views/node_marks.h"

#include <cstdint>

namespace scalify::views {

QColor match_colour(const std::string& ref_name) {
  // FNV-1a: stable across runs and platforms, so a value keeps its colour on Reload.
  uint32_t h = 2166136261u;
  for (unsigned char c : ref_name) h = (h ^ c) * 16777619u;
  return QColor::fromHsv(static_cast<int>(h % 360), 70, 245);
}

QString layout_badge(const verify::Layout& layout) {
  if (layout.is_rep()) return QStringLiteral("R");
  QString out;
  for (const verify::AxisLayout& a : layout.axes) {
    if (a.is_rep()) continue;
    if (!out.isEmpty()) out += QChar(0x00B7);
    out += a.is_shard() ? QStringLiteral("S(%1)").arg(a.dim) : QStringLiteral("P");
  }
  return out;
}

NodeMarks reference_marks(const verify::CheckResult& result) {
  NodeMarks marks;
  // The divergence's closest reference node is not wrong itself: selection shows it, not red.
  for (const verify::NodeMatch& m : result.matches) marks.fill[m.ref] = match_colour(m.ref);
  return marks;
}

NodeMarks distributed_marks(const verify::CheckResult& result) {
  NodeMarks marks;
  for (const verify::NodeMatch& m : result.matches) {
    marks.fill[m.dist] = match_colour(m.ref);
    marks.badge[m.dist] = layout_badge(m.layout);
  }
  if (result.divergence) marks.divergent = result.divergence->dist_node;
  return marks;
}

}  // namespace scalify::views
