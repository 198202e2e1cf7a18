// The rank simulator the generator tests compare with (test support, tests/support).
#include "support/rank_simulator.h"

#include <catch2/catch.hpp>

#include "eval/evaluator.h"
#include "hlo/reader.h"

namespace scalify::test {

using eval::Tensor;
using eval::Value;

TEST_CASE("the rank simulator does partition-id and the collectives between ranks",
          "[modelgen][eval]") {
  const auto m = hlo::read_module(R"(HloModule m, num_partitions=2
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(f32[] %a, f32[] %b)
}
ENTRY %e (p: f32[2]) -> (f32[2], f32[4], f32[1], s32[]) {
  %p = f32[2]{0} parameter(0)
  %ar = f32[2]{0} all-reduce(f32[2]{0} %p), replica_groups={{0,1}}, to_apply=%add
  %ag = f32[4]{0} all-gather(f32[2]{0} %p), replica_groups={{0,1}}, dimensions={0}
  %rs = f32[1]{0} reduce-scatter(f32[2]{0} %p), replica_groups={{0,1}}, dimensions={0}, to_apply=%add
  %id = u32[] partition-id()
  %c = s32[] convert(u32[] %id)
  ROOT %t = (f32[2]{0}, f32[4]{0}, f32[1]{0}, s32[]) tuple(%ar, %ag, %rs, %c)
}
)");
  REQUIRE(m);
  const std::vector<std::vector<Value>> args = {{Tensor{{2}, {1, 2}}}, {Tensor{{2}, {10, 20}}}};
  const auto r = simulate_ranks(*m, 2, args);
  REQUIRE(r);
  const auto& rank1 = (*r)[1].elements();
  CHECK(rank1[0].tensor().data == std::vector<double>{11, 22});
  CHECK(rank1[1].tensor().data == std::vector<double>{1, 2, 10, 20});
  CHECK(rank1[2].tensor().data == std::vector<double>{22});
  CHECK(rank1[3].tensor().data == std::vector<double>{1});
  CHECK((*r)[0].elements()[2].tensor().data == std::vector<double>{11});
}

TEST_CASE("sharded arguments are the reference's chunks, zero-padded when uneven",
          "[modelgen][eval]") {
  modelgen::ParameterInfo p;
  p.ref_dims = {3, 2};
  p.dist_dims = {2, 2};
  p.shard_dim = 0;
  const std::vector<Value> ref = {Tensor{{3, 2}, {1, 2, 3, 4, 5, 6}}};
  const auto ranks = shard_arguments({p}, ref, 2);
  CHECK(ranks[0][0].tensor().data == std::vector<double>{1, 2, 3, 4});
  CHECK(ranks[1][0].tensor().data == std::vector<double>{5, 6, 0, 0});
}

}  // namespace scalify::test
