// Layout::parse: the inverse of Layout::to_string.
#include "verify/layout.h"

#include <catch2/catch.hpp>

using namespace scalify::verify;

TEST_CASE("Layout::parse reads what to_string writes", "[verify]") {
  const Mesh m = *Mesh::parse("dp=2,tp=4");
  const std::vector<Layout> layouts = {
      Layout::replicated(2),
      Layout::on(m, 1, AxisLayout::shard(1)),
      Layout::on(m, 1, AxisLayout::shard(0, 50257)),
      Layout::on(m, 1, AxisLayout::partial(ReduceOp::kSum)),
      Layout::on(m, 0, AxisLayout::partial(ReduceOp::kMax)),
      Layout{{AxisLayout::shard(0), AxisLayout::partial(ReduceOp::kMean)}},
      Layout{{AxisLayout::shard(2), AxisLayout::shard(2, 7)}},
  };
  for (const Layout& l : layouts) {
    INFO(l.to_string(m));
    const std::optional<Layout> back = Layout::parse(l.to_string(m), m);
    REQUIRE(back.has_value());
    CHECK(*back == l);
  }
}

TEST_CASE("Layout::parse examples, spaces and order of parts", "[verify]") {
  const Mesh m = *Mesh::parse("tp=2");
  CHECK(Layout::parse("rep", m) == Layout::replicated(1));
  CHECK(Layout::parse("shard(1,tp)", m) == Layout::on(m, 0, AxisLayout::shard(1)));
  CHECK(Layout::parse("shard(0,tp,pad 50257)", m) == Layout::on(m, 0, AxisLayout::shard(0, 50257)));
  CHECK(Layout::parse(" shard( 0 , tp , pad 5 ) ", m) == Layout::on(m, 0, AxisLayout::shard(0, 5)));
  CHECK(Layout::parse("partial(sum,tp)", m) ==
        Layout::on(m, 0, AxisLayout::partial(ReduceOp::kSum)));
  const Mesh m2 = *Mesh::parse("dp=2,tp=4");
  // Parts may come in any order; each lands on its axis.
  CHECK(Layout::parse("partial(sum,tp)+shard(0,dp)", m2) ==
        Layout::parse("shard(0,dp)+partial(sum,tp)", m2));
  // A one-device mesh has only rep.
  CHECK(Layout::parse("rep", Mesh()) == Layout::replicated(0));
}

TEST_CASE("Layout::parse rejects bad text and unknown axes", "[verify]") {
  const Mesh m = *Mesh::parse("dp=2,tp=4");
  for (const char* bad :
       {"", "rep+shard(0,tp)", "replicated", "shard(1,pp)", "shard(1)", "shard(-1,tp)",
        "shard(1,tp", "shard(1,tp)+", "shard(0,tp)+shard(1,tp)", "partial(avg,tp)",
        "shard(0,tp,pad 0)", "shard(0,tp,pad)", "shard(0,tp,50)", "partial(sum,tp,pad 3)",
        "shard(0,tp) x", "Shard(0,tp)", "shard(99999999999,tp)"}) {
    INFO(bad);
    CHECK_FALSE(Layout::parse(bad, m).has_value());
  }
  CHECK_FALSE(Layout::parse("shard(0,tp)", Mesh()).has_value());
}

TEST_CASE("Layout::means_as_sums reads partial means as partial sums of n times the value",
          "[verify]") {
  const Mesh tp2 = *Mesh::parse("tp=2");
  CHECK(Layout::on(tp2, 0, AxisLayout::partial(ReduceOp::kMean)).means_as_sums(tp2) ==
        std::pair{Layout::on(tp2, 0, AxisLayout::partial(ReduceOp::kSum)), int64_t{2}});
  // Two axes: the factor is the product; other parts stay as they are.
  const Mesh m = *Mesh::parse("dp=2,tp=4");
  const Layout both{{AxisLayout::partial(ReduceOp::kMean), AxisLayout::partial(ReduceOp::kMean)}};
  const Layout sums{{AxisLayout::partial(ReduceOp::kSum), AxisLayout::partial(ReduceOp::kSum)}};
  CHECK(both.means_as_sums(m) == std::pair{sums, int64_t{8}});
  const Layout mixed{{AxisLayout::shard(0), AxisLayout::partial(ReduceOp::kMean)}};
  const auto [read, n] = mixed.means_as_sums(m);
  CHECK(n == 4);
  CHECK(read.to_string(m) == "shard(0,dp)+partial(sum,tp)");
  // None: unchanged, factor 1.
  const Layout plain = Layout::on(m, 1, AxisLayout::partial(ReduceOp::kMax));
  CHECK(plain.means_as_sums(m) == std::pair{plain, int64_t{1}});
}
