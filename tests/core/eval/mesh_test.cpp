// Values across a simulated mesh axis: every layout's per-rank values hold their reference and
// collect back to it, and the collectives move blocks between ranks as HLO defines them.
#include "eval/mesh.h"

#include <catch2/catch.hpp>

using namespace scalify::eval;
using mesh::Layout;
using mesh::Reduction;

namespace {

Tensor iota(std::vector<int64_t> dims) {
  Tensor t = Tensor::filled(std::move(dims), 0.0);
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<double>(i) + 1.0;
  return t;
}

}  // namespace

TEST_CASE("mesh: every layout distributes and collects back to the reference", "[eval]") {
  std::mt19937_64 rng(3);
  const Tensor X = iota({4, 6});
  const Layout layouts[] = {{Layout::Kind::kRep, 0, Reduction::kSum},
                            {Layout::Kind::kShard, 0, Reduction::kSum},
                            {Layout::Kind::kShard, 1, Reduction::kSum},
                            {Layout::Kind::kPartial, 0, Reduction::kSum},
                            {Layout::Kind::kPartial, 0, Reduction::kMean},
                            {Layout::Kind::kPartial, 0, Reduction::kMax},
                            {Layout::Kind::kPartial, 0, Reduction::kMin},
                            {Layout::Kind::kPartial, 0, Reduction::kProduct}};
  for (const Layout& l : layouts) {
    INFO(mesh::to_string(l));
    auto x = mesh::distribute(X, l, 2, rng);
    REQUIRE(x);
    REQUIRE(x->size() == 2);
    std::string why;
    CHECK(mesh::holds(*x, X, l, 1e-9, 1e-9, &why));
    auto back = mesh::collect(*x, l, 1e-9, 1e-9);
    REQUIRE(back);
    CHECK(all_close(*back, X, 1e-9, 1e-9));
  }
}

TEST_CASE("mesh: partial values are not the reference on any one rank", "[eval]") {
  std::mt19937_64 rng(5);
  const Tensor X = iota({3});
  auto x = mesh::distribute(X, {Layout::Kind::kPartial, 0, Reduction::kSum}, 3, rng);
  REQUIRE(x);
  // Rep does not hold of partial sums, and partial sums do not hold as maxima.
  std::string why;
  CHECK_FALSE(mesh::holds(*x, X, {Layout::Kind::kRep, 0, Reduction::kSum}, 1e-9, 1e-9, &why));
  CHECK_THAT(why, Catch::Contains("rank"));
  CHECK_FALSE(mesh::holds(*x, X, {Layout::Kind::kPartial, 0, Reduction::kMax}, 1e-9, 1e-9));
  // Rep cannot be collected from ranks that differ.
  CHECK_FALSE(mesh::collect(*x, {Layout::Kind::kRep, 0, Reduction::kSum}, 1e-9, 1e-9));
}

TEST_CASE("mesh: a shard must divide among the ranks, and shapes must fit", "[eval]") {
  std::mt19937_64 rng(1);
  auto bad = mesh::distribute(iota({5, 2}), {Layout::Kind::kShard, 0, Reduction::kSum}, 2, rng);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("does not divide"));
  const std::vector<Tensor> x = {iota({2, 2}), iota({2, 2})};
  std::string why;
  CHECK_FALSE(mesh::holds(x, iota({4, 2}), {Layout::Kind::kShard, 1, Reduction::kSum}, 0, 0, &why));
  CHECK_THAT(why, Catch::Contains("cannot be Shard(1)"));
}

TEST_CASE("mesh: the collectives", "[eval]") {
  const std::vector<Tensor> x = {Tensor{{2, 2}, {1, 2, 3, 4}}, Tensor{{2, 2}, {10, 20, 30, 40}}};
  const auto reduced = mesh::all_reduce(x, Reduction::kSum);
  CHECK(reduced[1] == Tensor{{2, 2}, {11, 22, 33, 44}});
  CHECK(mesh::all_reduce(x, Reduction::kMax)[0] == x[1]);
  CHECK(mesh::all_gather(x, 1)[0] == Tensor{{2, 4}, {1, 2, 10, 20, 3, 4, 30, 40}});
  auto scattered = mesh::reduce_scatter(x, 0, Reduction::kSum);
  REQUIRE(scattered);
  CHECK((*scattered)[0] == Tensor{{1, 2}, {11, 22}});
  CHECK((*scattered)[1] == Tensor{{1, 2}, {33, 44}});
  // all-to-all: rank r keeps block r of every rank's split, in rank order.
  auto moved = mesh::all_to_all(x, 0, 1);
  REQUIRE(moved);
  CHECK((*moved)[0] == Tensor{{1, 4}, {1, 2, 10, 20}});
  CHECK((*moved)[1] == Tensor{{1, 4}, {3, 4, 30, 40}});
  const std::vector<Tensor> odd = {Tensor{{3}, {1, 2, 3}}, Tensor{{3}, {1, 2, 3}}};
  CHECK_FALSE(mesh::all_to_all(odd, 0, 0));
}
