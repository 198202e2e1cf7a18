// The memo's text form and renaming.
#include "verify/part_memo.h"

#include <catch2/catch.hpp>

using namespace scalify;
using verify::Verdict;

namespace {

verify::CheckResult sample() {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  verify::CheckResult r;
  r.mesh = mesh;
  r.verdict = Verdict::kDivergent;
  r.bijection.push_back(
      {"w", "w", 1, 1, *verify::Layout::parse("shard(1,tp)", mesh), "shape", {}, {}});
  verify::Goal g;
  g.ref = "out#0";
  g.dist = "out#0";
  g.proven = true;
  g.layout = *verify::Layout::parse("partial(sum,tp)", mesh);
  g.proof = {"add.7 is partial(sum,tp) of add.7"};
  r.goals.push_back(g);
  r.assumptions.push_back(
      {"w", *verify::Layout::parse("partial(sum,tp)", mesh), "'w' loaded once"});
  verify::Divergence d;
  d.dist_node = "add.7";
  d.ref_node = "add.7";
  d.reason = "operand 0 of add.7 is partial(sum,tp)";
  d.source = verify::SourceSite{"model.py", 12};
  r.divergence = d;
  r.notes = {"a note on add.7."};
  r.stats.enodes = 42;
  return r;
}

}  // namespace

TEST_CASE("memo entries survive their text form", "[verify][memo]") {
  verify::MemoEntry e{sample(), {"w", "add.7"}, {"w", "add.7"}};
  const std::string text = verify::to_text(e);
  const auto back = verify::memo_entry_from_text(text, sample().mesh);
  REQUIRE(back);
  CHECK(verify::to_text(*back) == text);
  CHECK(back->result.divergence->source->line == 12);
  CHECK(back->result.goals[0].layout->to_string(back->result.mesh) == "partial(sum,tp)");
  // Foreign or damaged text is no entry.
  CHECK_FALSE(verify::memo_entry_from_text("{}", sample().mesh));
  CHECK_FALSE(verify::memo_entry_from_text("not json", sample().mesh));
  CHECK_FALSE(verify::memo_entry_from_text(R"({"verdict": "maybe"})", sample().mesh));
}

TEST_CASE("renamed: each side's names in its own fields, both in free text", "[verify][memo]") {
  verify::Renames renames;
  renames.dist = {{"add.7", "add.91"}};
  renames.ref = {{"add.7", "add.55"}, {"w", "w2"}};
  const auto r = verify::renamed(sample(), renames);
  CHECK(r.divergence->dist_node == "add.91");
  CHECK(r.divergence->ref_node == "add.55");
  CHECK(r.divergence->reason == "operand 0 of add.7 is partial(sum,tp)");  // the two disagree
  CHECK(r.bijection[0].dist == "w");
  CHECK(r.bijection[0].ref == "w2");
  CHECK(r.notes[0] == "a note on add.7.");
  verify::Renames one;
  one.dist = {{"add.7", "add.91"}};
  CHECK(verify::renamed(sample(), one).notes[0] == "a note on add.91.");  // before a full stop
}
