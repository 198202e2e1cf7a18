// The notes on nodes, and the bijection overrides read back from the spec they write.
#include "views/node_notes.h"

#include <catch2/catch.hpp>

#include "verify/spec_json.h"
#include "views/bijection_overrides.h"

namespace scalify::views {

TEST_CASE("NodeNotes: one note per pane and node, blank text removes it") {
  NodeNotes notes;
  notes.set(store::Pane::kDistributed, "add.7", "first");
  notes.set(store::Pane::kReference, "add.7", "on the reference");
  notes.set(store::Pane::kDistributed, "dot.3", "second");
  notes.set(store::Pane::kDistributed, "add.7", "replaced");
  REQUIRE(notes.size() == 3);
  CHECK(*notes.find(store::Pane::kDistributed, "add.7") == "replaced");
  CHECK(notes.list()[0].node == "add.7");  // kept in the order first written
  CHECK(notes.of_pane(store::Pane::kReference).size() == 1);
  notes.set(store::Pane::kDistributed, "add.7", "  \n");
  CHECK(notes.find(store::Pane::kDistributed, "add.7") == nullptr);
  CHECK(NodeNotes(notes.list()).list() == notes.list());
}

TEST_CASE("BijectionOverrides: read back from the spec text they write") {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  BijectionOverrides o;
  o.set("p3.4", {"p3.4", *verify::Layout::parse("partial(sum,tp)", mesh)});
  o.set("p5.6", {std::nullopt, verify::Layout::replicated(mesh.rank())});
  const std::string text = verify::spec_to_json(o.to_spec(mesh)).dump(2);
  auto spec = verify::parse_spec(text, "session");
  REQUIRE(spec);
  auto back = BijectionOverrides::from_spec(*spec);
  REQUIRE(back);
  CHECK(*back == o);

  // What the table cannot show is refused.
  auto by_number = verify::parse_spec(R"({"parameters": [{"dist": 3, "ref": null}]})", "s");
  REQUIRE(by_number);
  CHECK_FALSE(BijectionOverrides::from_spec(*by_number));
}

}  // namespace scalify::views
