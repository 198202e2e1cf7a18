#include "views/graph_layout_engine.h"

#include <QtConcurrent/QtConcurrentRun>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <utility>

namespace scalify::views {

TEST_CASE("GraphLayoutEngine lays a small graph out from worker threads") {
  // A diamond with a tail: a → b, a → c, b → d, c → d, d → e.
  LayoutRequest r;
  for (const char* id : {"a", "b", "c", "d", "e"}) r.nodes.push_back({id, 90, 40});
  r.edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}};
  // Two layouts at once: the engine's mutex serialises them; both must come out whole.
  QFuture<GraphLayout> first = QtConcurrent::run([r] { return GraphLayoutEngine::layout(r); });
  QFuture<GraphLayout> second = QtConcurrent::run([r] { return GraphLayoutEngine::layout(r); });
  for (const GraphLayout& l : {first.result(), second.result()}) {
    REQUIRE(l.nodes.size() == 5);
    REQUIRE(l.edges.size() == 5);
    CHECK(l.width > 0);
    CHECK(l.height > 0);
    std::set<std::pair<long, long>> centres;
    for (const NodePlacement& n : l.nodes) {
      centres.insert({std::lround(n.x), std::lround(n.y)});
      CHECK(n.width == Approx(90).margin(1));
      CHECK(n.x - n.width / 2 >= -0.5);
      CHECK(n.x + n.width / 2 <= l.width + 0.5);
      CHECK(n.y - n.height / 2 >= -0.5);
      CHECK(n.y + n.height / 2 <= l.height + 0.5);
    }
    CHECK(centres.size() == 5);
    // Top to bottom with y pointing down: a source sits above its sinks.
    CHECK(l.nodes[0].y < l.nodes[3].y);
    CHECK(l.nodes[3].y < l.nodes[4].y);
    for (const EdgePlacement& e : l.edges) {
      CHECK(e.points.size() >= 4);
      CHECK((e.points.size() - 1) % 3 == 0);
    }
  }
}

TEST_CASE("GraphLayoutEngine returns an empty layout for an empty graph") {
  const GraphLayout l = GraphLayoutEngine::layout({});
  CHECK(l.nodes.empty());
  CHECK(l.edges.empty());
}

}  // namespace scalify::views
