// The one door to Graphviz: a plain graph in, node and edge positions out. Every Graphviz call
// runs behind one process-wide mutex (Graphviz keeps global state and is not thread-safe), and
// callers run it off the GUI thread (QtConcurrent::run), because `dot` can take seconds.
#pragma once

#include <string>
#include <vector>

namespace scalify::views {

/// A node to place: its size in points (1/72 inch), as the view will draw it.
struct LayoutNodeSpec {
  std::string id;
  double width = 72, height = 36;
};

/// An edge between two nodes, by index into LayoutRequest::nodes.
struct LayoutEdgeSpec {
  int from = 0, to = 0;
};

struct LayoutRequest {
  std::vector<LayoutNodeSpec> nodes;
  std::vector<LayoutEdgeSpec> edges;
};

struct LayoutPoint {
  double x = 0, y = 0;
};

/// A placed node: centre and size in points, y pointing down (Qt's convention).
struct NodePlacement {
  double x = 0, y = 0, width = 0, height = 0;
};

/// A placed edge: the cubic Bézier control points of its spline (1 + 3k points), y down, and
/// where its arrow head ends (the spline stops short of the node by the head's length).
struct EdgePlacement {
  int from = 0, to = 0;
  std::vector<LayoutPoint> points;
  bool has_tip = false;
  LayoutPoint tip;
};

/// The layout: one placement per requested node and edge, in request order, inside
/// [0, width] x [0, height].
struct GraphLayout {
  std::vector<NodePlacement> nodes;
  std::vector<EdgePlacement> edges;
  double width = 0, height = 0;
};

/// Lays graphs out with Graphviz `dot`, top to bottom.
///
///   LayoutRequest r;
///   r.nodes = {{"a", 80, 30}, {"b", 80, 30}};
///   r.edges = {{0, 1}};
///   GraphLayout l = GraphLayoutEngine::layout(r);   // l.nodes[0].y < l.nodes[1].y
class GraphLayoutEngine {
 public:
  /// Blocks for as long as `dot` takes: never call it on the GUI thread.
  static GraphLayout layout(const LayoutRequest& request);
};

}  // namespace scalify::views
