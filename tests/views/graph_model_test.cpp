#include "views/graph_model.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"

namespace scalify::views {

namespace {

std::shared_ptr<const ir::Module> generated_dist(int64_t layers) {
  modelgen::GenOptions options;
  options.model = *modelgen::llama_preset("tiny");
  options.model.layers = layers;
  options.tp = 2;
  auto pair = modelgen::generate_llama(options);
  REQUIRE(pair);
  auto m = hlo::read_module(pair->dist_hlo, "dist.hlo");
  REQUIRE(m);
  return std::make_shared<const ir::Module>(std::move(*m));
}

}  // namespace

TEST_CASE("without_implied_edges keeps the edges no longer path implies") {
  using Edges = std::vector<std::pair<int, int>>;
  CHECK(without_implied_edges(3, {{0, 1}, {1, 2}, {0, 2}}) == Edges{{0, 1}, {1, 2}});
  // A hub feeding every node of a chain: only the chain and the hub's first edge remain.
  CHECK(without_implied_edges(4, {{0, 1}, {1, 2}, {2, 3}, {0, 2}, {0, 3}}) ==
        Edges{{0, 1}, {1, 2}, {2, 3}});
  CHECK(without_implied_edges(3, {{0, 1}, {0, 2}}) == Edges{{0, 1}, {0, 2}});
}

TEST_CASE("GraphModel shows a small program whole") {
  const auto m = generated_dist(1);
  REQUIRE(m->entry().size() <= GraphModel::kDetailLimit);
  const GraphModel g(m);
  CHECK(!g.is_overview());
  CHECK(g.top().nodes.size() == m->entry().size());
  CHECK(!g.top().edges.empty());
  CHECK(!g.group_of(m->entry().instructions.back().name));
  CHECK(g.find("all-reduce").size() >= 1);
}

TEST_CASE("GraphModel shows a big program as layer boxes that open one at a time") {
  const auto m = generated_dist(16);
  REQUIRE(m->entry().size() > GraphModel::kDetailLimit);
  const GraphModel g(m);
  REQUIRE(g.is_overview());
  size_t layer_boxes = 0, members = 0;
  for (const ViewNode& n : g.top().nodes) {
    CHECK(n.is_group);
    if (n.group >= 0 && n.group < 16) ++layer_boxes;
    members += g.group_graph(n.group).nodes.size();
  }
  CHECK(layer_boxes == 16);
  CHECK(members == m->entry().size());  // every instruction in exactly one box
  CHECK(!g.top().edges.empty());

  // An instruction scoped in layer 3 opens layer 3.
  for (const ir::Instruction& instr : m->entry().instructions) {
    if (instr.metadata.op_name.find("layers.3.") == std::string::npos) continue;
    CHECK(g.group_of(instr.name) == 3);
    break;
  }
  const ViewGraph layer = g.group_graph(3);
  CHECK(!layer.nodes.empty());
  CHECK(!layer.edges.empty());
  CHECK(g.group_graph(12345).nodes.empty());
}

}  // namespace scalify::views
