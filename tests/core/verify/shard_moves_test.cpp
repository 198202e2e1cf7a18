// Moving a shard to another dim, checked numerically: the block a rank holds of a value is its
// block along the new dim of the value moved as ir::DataView::block_moved says (rule `view`);
// and the reference interpreter's all-to-all (eval::mesh) of a value sharded along dim e leaves
// each rank exactly its block, along the exchanged dim d, of the reference value moved as the
// lifted fact's view says.
#include <catch2/catch.hpp>
#include <numeric>

#include "eval/internal.h"
#include "eval/mesh.h"
#include "test_support.h"
#include "verify/propagation.h"

using namespace scalify;

namespace {

eval::Tensor iota(std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  eval::Tensor t{std::move(dims), std::vector<double>(static_cast<size_t>(n))};
  std::iota(t.data.begin(), t.data.end(), 0.0);
  return t;
}

eval::Tensor moved(eval::Tensor x, const ir::DataView& v) {
  x.dims = v.factors;
  x = eval::detail::transpose(x, v.order);  // the reference interpreter's
  x.dims = v.shape;
  return x;
}

std::string dims_text(const std::vector<int64_t>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

}  // namespace

TEST_CASE("all-to-all of a shard: each rank holds its block of the lifted view", "[verify]") {
  struct Case {
    std::vector<int64_t> ref;
    int64_t e, d, n;
  };
  const Case cases[] = {{{8, 4}, 0, 1, 2},    {{8, 4}, 1, 0, 2},    {{4, 6, 4}, 0, 2, 2},
                        {{4, 6, 8}, 2, 0, 4}, {{3, 8, 4}, 2, 1, 4}, {{8, 4, 2}, 0, 1, 2}};
  for (const Case& c : cases) {
    INFO("ref [" << dims_text(c.ref) << "] shard " << c.e << ", exchange " << c.d << ", n " << c.n);
    std::vector<int64_t> local = c.ref;
    local[static_cast<size_t>(c.e)] /= c.n;
    const std::string type = "f32[" + dims_text(local) + "]";
    std::string groups = "{{";
    for (int64_t r = 0; r < c.n; ++r) groups += (r ? "," : "") + std::to_string(r);
    groups += "}}";
    const ir::Module m = test::parse_module(
        "HloModule d, num_partitions=" + std::to_string(c.n) + "\nENTRY e {\n  x = " + type +
        " parameter(0)\n  ROOT a = " + type + " all-to-all(x), replica_groups=" + groups +
        ", dimensions={" + std::to_string(c.d) + "}\n}\n");
    const verify::Mesh mesh = *verify::Mesh::parse("tp=" + std::to_string(c.n));
    const verify::OperandView x{
        verify::Layout::on(mesh, 0, verify::AxisLayout::shard(static_cast<int32_t>(c.e))),
        ir::Type::array(ir::DType::kF32, c.ref), std::nullopt};
    const ir::Computation& comp = m.entry();
    auto lifted = verify::lift(m, comp, comp[comp.root], std::span(&x, 1), mesh);
    REQUIRE(std::holds_alternative<std::vector<verify::Lift>>(lifted));
    const verify::Lift& l = std::get<std::vector<verify::Lift>>(lifted).front();
    REQUIRE(l.view);
    CHECK(l.layout.to_string(mesh) == "shard(" + std::to_string(c.d) + ",tp)");
    // The interpreter: each rank's shard, exchanged.
    const eval::Tensor X = iota(c.ref);
    auto shards = eval::mesh::split(X, c.e, c.n);
    REQUIRE(shards);
    auto exchanged = eval::mesh::all_to_all(*shards, c.d, c.d);
    REQUIRE(exchanged);
    const eval::Tensor Y = moved(X, *l.view);
    REQUIRE(Y.dims == l.ref_type.dims());
    for (int64_t r = 0; r < c.n; ++r) {
      const int64_t block = local[static_cast<size_t>(c.d)];
      CHECK(eval::mesh::chunk(Y, c.d, r * block, block) == (*exchanged)[static_cast<size_t>(r)]);
    }
  }
}

TEST_CASE("a shard moved to another dim: the same block on every rank", "[verify]") {
  struct Case {
    std::vector<int64_t> dims;
    int64_t from, to, n;
  };
  const Case cases[] = {{{16, 2}, 0, 1, 2},
                        {{1, 1, 256, 128}, 2, 1, 2},
                        {{4, 6, 8}, 2, 0, 4},
                        {{6, 4, 3}, 1, 2, 2},
                        {{8, 3, 5}, 0, 2, 8}};
  for (const Case& c : cases) {
    INFO("[" << dims_text(c.dims) << "] " << c.from << " -> " << c.to << ", n " << c.n);
    const auto view = ir::DataView::block_moved(c.dims, c.from, c.to, c.n);
    REQUIRE(view);
    const eval::Tensor T = iota(c.dims);
    const eval::Tensor U = moved(T, *view);
    const int64_t a = c.dims[static_cast<size_t>(c.from)] / c.n;
    const int64_t b = U.dims[static_cast<size_t>(c.to)] / c.n;
    for (int64_t r = 0; r < c.n; ++r) {
      // The same shape on the rank, the same elements in the same order.
      CHECK(eval::mesh::chunk(T, c.from, r * a, a) == eval::mesh::chunk(U, c.to, r * b, b));
    }
  }
  CHECK_FALSE(ir::DataView::block_moved({6, 4}, 0, 1, 4));  // 4 does not divide 6
}
