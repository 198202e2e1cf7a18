// Layer partitioning and canonical fingerprints.
#include "verify/partition.h"

#include <catch2/catch.hpp>

#include "support/layered_example.h"
#include "test_support.h"
#include "verify/fingerprint.h"

using namespace scalify;
using verify::layer_of;

TEST_CASE("layer_of: the number of a layers/layer/h/blocks scope", "[verify][partition]") {
  CHECK(layer_of("model.layers.17.self_attn/aten__mm") == 17);
  CHECK(layer_of("model.layers.0/aten__add") == 0);
  CHECK(layer_of("transformer/h_3/attn/dot_general") == 3);
  CHECK(layer_of("jit(train)/blocks/12/mlp") == 12);
  CHECK(layer_of("decoder.layer.5.output") == 5);
  CHECK_FALSE(layer_of("aten__mm").has_value());
  CHECK_FALSE(layer_of("model.layers/aten__mm").has_value());     // no number
  CHECK_FALSE(layer_of("model.players.3/aten__mm").has_value());  // not the word
  CHECK_FALSE(layer_of("model.layers.3x/aten__mm").has_value());  // not a number
}

TEST_CASE("partition: one part per layer, each a module reading what came before",
          "[verify][partition]") {
  const ir::Module m = test::parse_module(test::layered_hlo({3}, 2));
  const auto parts = verify::partition_layers(m);
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].key == 0);
  CHECK(parts[2].key == 2);
  CHECK(parts[1].members.size() == 4);  // up, down, all-reduce, residual add

  const auto mods = verify::extract_parts(m, parts);
  REQUIRE(mods.size() == 3);
  const ir::Computation& entry = m.entry();
  // Layer 1 reads layer 0's output and its two weights, and hands its output on.
  std::vector<std::string> inputs;
  for (ir::InstrId id : mods[1].inputs) inputs.push_back(entry[id].name);
  CHECK(inputs == std::vector<std::string>{"x0_out", "pa1", "pb1"});
  REQUIRE(mods[1].outputs.size() == 1);
  CHECK(entry[mods[1].outputs[0]].name == "x1_out");
  CHECK_FALSE(mods[1].has_root);
  CHECK(mods[2].has_root);  // the program's ROOT and its outputs
  // Parameters keep their names; the part's own module is well formed.
  const ir::Computation& p1 = mods[1].module.entry();
  CHECK(p1[p1.parameters()[0]].name == "x0_out");
  CHECK(p1[p1.root].type.elements().size() == 1);
}

TEST_CASE("partition: programs without two named layers are not cut", "[verify][partition]") {
  const ir::Module one = test::parse_module(test::layered_hlo({1}, 2));
  CHECK(verify::partition_layers(one).empty());
  const ir::Module flat = test::parse_module(R"hlo(HloModule flat
ENTRY e {
  a = f32[2] parameter(0)
  ROOT n = f32[2] negate(a)
})hlo");
  CHECK(verify::partition_layers(flat).empty());
}

TEST_CASE("fingerprint: names and numbering do not count, the computation does",
          "[verify][partition]") {
  const ir::Module m = test::parse_module(test::layered_hlo({4}, 2));
  const auto mods = verify::extract_parts(m, verify::partition_layers(m));
  // Layers 1 and 2 differ in names, parameter numbers and channel ids only.
  CHECK(verify::fingerprint(mods[1].module) == verify::fingerprint(mods[2].module));
  // Layer 0 reads the program's input, not a previous layer: the same code, so the same print.
  CHECK(verify::fingerprint(mods[0].module) == verify::fingerprint(mods[1].module));
  // The last layer's ROOT is the program's one-element output tuple: the same code again.
  CHECK(verify::fingerprint(mods[3].module) == verify::fingerprint(mods[2].module));

  test::LayeredExample renamed{4};
  renamed.rename = true;
  const ir::Module r = test::parse_module(test::layered_hlo(renamed, 2));
  CHECK(verify::fingerprint(r) == verify::fingerprint(m));
  test::LayeredExample buggy{4};
  buggy.drop_all_reduce_at = 2;
  CHECK(verify::fingerprint(test::parse_module(test::layered_hlo(buggy, 2))) !=
        verify::fingerprint(m));
  CHECK(verify::hash128("a").size() == 32);
  CHECK(verify::hash128("a") != verify::hash128("b"));
}

TEST_CASE("iteration_of reads an unrolled loop's iteration from a name", "[verify]") {
  using verify::iteration_of;
  CHECK(iteration_of("while.3.iter17.dot.2") ==
        std::pair{std::string_view("while.3"), int64_t{17}});
  CHECK(iteration_of("loop.iter0.sq.iter1.vv") == std::pair{std::string_view("loop"), int64_t{0}});
  CHECK_FALSE(iteration_of("dot.2"));
  CHECK_FALSE(iteration_of("x.iterator.y"));
  CHECK_FALSE(iteration_of(".iter3.x"));
  CHECK_FALSE(iteration_of("w.iter3"));
}
