#include "views/graph_layout_engine.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <mutex>

namespace scalify::views {

namespace {

/// Graphviz keeps global state (its plugin registry, cgraph's memory discipline): every call
/// into it, from any thread, goes through this one lock.
std::mutex& graphviz_mutex() {
  static std::mutex m;
  return m;
}

/// Graphviz 2.42 takes `char*` for names and values it never writes.
char* text(std::string& s) { return s.data(); }

void set(void* object, std::string key, std::string value) {
  std::string empty;
  agsafeset(object, text(key), text(value), text(empty));
}

constexpr double kPointsPerInch = 72.0;

}  // namespace

GraphLayout GraphLayoutEngine::layout(const LayoutRequest& request) {
  GraphLayout out;
  out.nodes.resize(request.nodes.size());
  if (request.nodes.empty()) return out;

  std::lock_guard lock(graphviz_mutex());
  GVC_t* gvc = gvContext();
  std::string graph_name = "g";
  Agraph_t* g = agopen(text(graph_name), Agdirected, nullptr);
  set(g, "rankdir", "TB");
  set(g, "nodesep", "0.25");
  set(g, "ranksep", "0.4");
  // Bound network simplex (ranking and x positions) to 2 x nodes iterations: unbounded, it ran
  // for over ten minutes on the 405B layer overview (126 boxes, each fed by the first one).
  set(g, "nslimit", "2");
  set(g, "nslimit1", "2");

  std::vector<Agnode_t*> nodes;
  nodes.reserve(request.nodes.size());
  for (size_t i = 0; i < request.nodes.size(); ++i) {
    // Graphviz names must be unique; the index is, whatever the caller's ids are.
    std::string name = "n" + std::to_string(i);
    Agnode_t* n = agnode(g, text(name), 1);
    const LayoutNodeSpec& spec = request.nodes[i];
    set(n, "shape", "box");
    set(n, "fixedsize", "true");
    set(n, "label", "");  // the view draws the text; sizes are given, so no font metrics
    set(n, "width", std::to_string(spec.width / kPointsPerInch));
    set(n, "height", std::to_string(spec.height / kPointsPerInch));
    nodes.push_back(n);
  }
  std::vector<Agedge_t*> edges;
  edges.reserve(request.edges.size());
  for (const LayoutEdgeSpec& e : request.edges) {
    const auto count = static_cast<int>(nodes.size());
    if (e.from < 0 || e.to < 0 || e.from >= count || e.to >= count) {
      edges.push_back(nullptr);
      continue;
    }
    std::string empty;
    edges.push_back(agedge(g, nodes[static_cast<size_t>(e.from)], nodes[static_cast<size_t>(e.to)],
                           text(empty), 1));
  }

  std::string engine = "dot";
  if (gvLayout(gvc, g, engine.c_str()) == 0) {
    const boxf bb = GD_bb(g);
    // Graphviz's y axis points up; Qt's points down: flip around the bounding box.
    auto flip = [&](pointf p) { return LayoutPoint{p.x - bb.LL.x, bb.UR.y - p.y}; };
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const LayoutPoint c = flip(ND_coord(nodes[i]));
      out.nodes[i] = {c.x, c.y, ND_width(nodes[i]) * kPointsPerInch,
                      ND_height(nodes[i]) * kPointsPerInch};
    }
    for (size_t i = 0; i < edges.size(); ++i) {
      EdgePlacement placed;
      placed.from = request.edges[i].from;
      placed.to = request.edges[i].to;
      // Two edges between the same nodes share one Graphviz edge; both get its spline.
      const splines* spl = edges[i] ? ED_spl(edges[i]) : nullptr;
      if (spl && spl->size > 0) {
        const bezier& bz = spl->list[0];
        for (int k = 0; k < bz.size; ++k) placed.points.push_back(flip(bz.list[k]));
        if (bz.eflag) {
          placed.has_tip = true;
          placed.tip = flip(bz.ep);
        }
      }
      out.edges.push_back(std::move(placed));
    }
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  gvFreeContext(gvc);
  return out;
}

}  // namespace scalify::views
