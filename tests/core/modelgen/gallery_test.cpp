// The teaching gallery: every example's correct variant is proven equivalent, and its buggy
// variant divergent at a node of the scope its explanation names, with a source line.
#include "modelgen/gallery.h"

#include <catch2/catch.hpp>

#include "test_support.h"
#include "verify/check.h"

using namespace scalify;

TEST_CASE("gallery: correct variants are equivalent, buggy ones divergent where documented",
          "[modelgen][verify]") {
  REQUIRE(modelgen::gallery().size() >= 7);
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    INFO(e.name);
    auto pair = modelgen::generate_example(e);
    REQUIRE(pair);
    CHECK(pair->readme.find(std::string(e.divergent_scope)) != std::string::npos);
    auto correct = verify::check(test::parse_module(pair->correct.ref_hlo),
                                 test::parse_module(pair->correct.dist_hlo), {});
    REQUIRE(correct);
    CHECK(correct->verdict == verify::Verdict::kEquivalent);
    auto buggy = verify::check(test::parse_module(pair->buggy.ref_hlo),
                               test::parse_module(pair->buggy.dist_hlo), {});
    REQUIRE(buggy);
    REQUIRE(buggy->verdict == verify::Verdict::kDivergent);
    const verify::Divergence& d = *buggy->divergence;
    INFO(d.dist_node + " (" + d.op_name + "): " + d.reason);
    CHECK(d.op_name.starts_with(std::string(e.divergent_scope) + "/"));
    REQUIRE(d.source);
    CHECK(d.source->file == "model.py");
    CHECK(d.source->line > 0);
  }
}

TEST_CASE("gallery: names are unique, and an unknown one lists them", "[modelgen]") {
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    auto found = modelgen::find_example(e.name);
    REQUIRE(found);
    CHECK(*found == &e);
  }
  auto unknown = modelgen::find_example("moe");
  REQUIRE_FALSE(unknown);
  CHECK_THAT(unknown.error().message, Catch::Contains("mlp-column-row"));
}
