// A program the SPMD partitioner has not run on yet (JAX's `before_optimizations` dump, with
// `Sharding` custom calls and `sharding=` on parameters that keep their whole shapes) is one
// device's program: checked against itself it is proven; changed, it is not.
#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "support/hlo_mutations.h"
#include "test_support.h"
#include "verify/check.h"

using namespace scalify;
using verify::Verdict;

TEST_CASE("an unpartitioned MaxText step is one device's program", "[verify]") {
  auto m = hlo::read_module_file(test::corpus_dir() +
                                 "/xla/maxtext_train_step_before_optimizations.hlo");
  REQUIRE(m);
  const auto same = verify::check(*m, *m, {});
  REQUIRE(same);
  CHECK(same->mesh.device_count() == 1);
  CHECK(same->verdict == Verdict::kEquivalent);
  CHECK(same->bijection.size() == m->entry().parameters().size());

  // A bug in it is never equivalent, and is found.
  const auto sites = test::mutation_sites(*m, test::MutationKind::kSwapOperands);
  REQUIRE(sites.size() >= 3);
  for (size_t i : {size_t{0}, sites.size() / 2, sites.size() - 1}) {
    const auto bad = test::apply_mutation(*m, sites[i]);
    REQUIRE(bad);
    const auto r = verify::check(*m, bad->module, {});
    REQUIRE(r);
    INFO(sites[i].node);
    CHECK(r->verdict == Verdict::kDivergent);
  }
}
