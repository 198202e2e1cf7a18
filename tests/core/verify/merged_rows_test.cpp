// A rank's heads merged into the rows of a batched matmul as the inner factor (GPT-NeoX's rotary
// step on Neuron: [1,4,32,96] → [1,128,96], a dot, split back to [1,4,32,96]): no dim of the
// merged value holds the rank's slab, yet the rows only pass through the dot. The checker reads
// the merged value as a shard of the rows moved rank-major, the bridge takes that move out of
// the dot (ir::dot_through), and the split gives back the reference's own value. The same merge
// before a dot that contracts the merged dim (heads flattened the wrong way before o_proj) stays
// a divergence at the reshape.
#include <catch2/catch.hpp>

#include "check_texts.h"

using namespace scalify;
using verify::Verdict;

namespace {

/// Rows (4 tokens) merged with `heads` heads of 6 values, a dot over each row, split back:
/// the reference holds 8 heads, each of two ranks 4 of them.
std::string merged_rows(const std::string& header, int heads) {
  const std::string h = std::to_string(heads), rows = std::to_string(4 * heads);
  return header + R"(
ENTRY e {
  x = f32[1,4,)" +
         h + R"(,6] parameter(0)
  w = f32[1,6,6] parameter(1)
  m = f32[1,)" +
         rows + R"(,6] reshape(x)
  d = f32[1,)" +
         rows +
         R"(,6] dot(m, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT s = f32[1,4,)" +
         h + R"(,6] reshape(d)
}
)";
}

const std::string kRef = merged_rows("HloModule r", 8);
const std::string kPerRank = merged_rows("HloModule d, num_partitions=2", 4);

}  // namespace

TEST_CASE("heads merged into a batched matmul's rows as the inner factor: proven and re-checked",
          "[check][reshape]") {
  const verify::CheckResult r = test::check_texts(kPerRank, kRef);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  REQUIRE(r.goals.size() == 1);
  CHECK(r.goals[0].layout->to_string(r.mesh) == "shard(2,tp)");
  test::check_proof_accepted(kRef, kPerRank, r);
}

TEST_CASE("merged rows read in another order are never equated", "[check][reshape]") {
  // The heads merged as the outer factor (each rank's rows head-major), split back and returned
  // so: each rank's values land on the wrong (token, head) places.
  const std::string head_major = R"(HloModule d, num_partitions=2
ENTRY e {
  x = f32[1,4,4,6] parameter(0)
  w = f32[1,6,6] parameter(1)
  h = f32[1,4,4,6] transpose(x), dimensions={0,2,1,3}
  m = f32[1,16,6] reshape(h)
  d = f32[1,16,6] dot(m, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  ROOT s = f32[1,4,4,6] reshape(d)
}
)";
  CHECK(test::check_texts(head_major, kRef).verdict != Verdict::kEquivalent);
  // The right rows, transposed on the way out.
  const std::string transposed = R"(HloModule d, num_partitions=2
ENTRY e {
  x = f32[1,4,4,6] parameter(0)
  w = f32[1,6,6] parameter(1)
  m = f32[1,16,6] reshape(x)
  d = f32[1,16,6] dot(m, w), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  s = f32[1,4,4,6] reshape(d)
  ROOT t = f32[1,4,4,6] transpose(s), dimensions={0,2,1,3}
}
)";
  const verify::CheckResult t = test::check_texts(transposed, kRef);
  CHECK(t.verdict != Verdict::kEquivalent);
}

TEST_CASE("heads merged as the inner factor of a contracted dim stay a divergence at the reshape",
          "[check][reshape]") {
  // o_proj over (head_dim, heads) flattened: the rank's heads are the inner factor of the
  // contracted dim, which no shard of the weight's rows pairs with.
  const std::string ref = R"(HloModule r
ENTRY e {
  a = f32[4,8,6] parameter(0)
  w = f32[48,5] parameter(1)
  t = f32[4,6,8] transpose(a), dimensions={0,2,1}
  f = f32[4,48] reshape(t)
  ROOT o = f32[4,5] dot(f, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  const std::string dist = R"(HloModule d, num_partitions=2
sum {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY e {
  a = f32[4,4,6] parameter(0)
  w = f32[24,5] parameter(1)
  t = f32[4,6,4] transpose(a), dimensions={0,2,1}
  f = f32[4,24] reshape(t)
  o = f32[4,5] dot(f, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[4,5] all-reduce(o), replica_groups={{0,1}}, to_apply=sum
}
)";
  const verify::CheckResult r = test::check_texts(dist, ref);
  CHECK(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "f");
  CHECK(r.divergence->reason.find("moves the sharded factor") != std::string::npos);
}
