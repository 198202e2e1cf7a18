#include "views/graph_model.h"

#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"
#include "views/pair_files.h"

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

TEST_CASE("a loaded pair shows its loops unrolled, as the checker names their nodes") {
  const std::string text = R"(HloModule scan
body {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[4] get-tuple-element(p), index=1
  t = f32[4] tanh(h)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT r = (s32[], f32[4]) tuple(n, t)
}
cond {
  p = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  k = s32[] constant(3)
  ROOT lt = pred[] compare(i, k), direction=LT
}
ENTRY e {
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  s = (s32[], f32[4]) tuple(z, x)
  loop = (s32[], f32[4]) while(s), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}
)";
  const scalify::views::LoadedPair pair =
      scalify::views::parse_pair({"ref.hlo", "dist.hlo"}, text, text);
  REQUIRE(pair.error.isEmpty());
  CHECK(pair.dist->entry().find("loop"));  // the program itself, as written, is what is checked
  CHECK(pair.dist_graph->find("loop.iter2.t") == std::vector<std::string>{"loop.iter2.t"});
  CHECK(pair.dist_graph->find("loop.iter3.").empty());
}
