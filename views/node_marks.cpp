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

namespace {

/// The divergent node (red) and where its cause began (outlined), in the distributed pane.
void mark_divergence(NodeMarks& marks, const verify::CheckResult& result) {
  if (!result.divergence) return;
  marks.divergent = result.divergence->dist_node;
  marks.origin = result.divergence->origin_node;
}

}  // namespace

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
  mark_divergence(marks, result);
  return marks;
}

NodeMarks distributed_marks_at(const verify::CheckResult& result, size_t step) {
  if (step + 1 >= result.derivation.size()) return distributed_marks(result);
  NodeMarks marks;
  marks.dim_unlit = true;
  for (size_t i = 0; i <= step; ++i) {
    const verify::DerivedFact& f = result.derivation[i];
    marks.lit.insert(f.dist);
    // As NodeMatch: an array value's first fact that names a reference node.
    if (f.element >= 0 || f.ref.empty() || marks.fill.count(f.dist)) continue;
    marks.fill[f.dist] = match_colour(f.ref);
    marks.badge[f.dist] = layout_badge(f.layout);
  }
  mark_divergence(marks, result);
  return marks;
}

}  // namespace scalify::views
