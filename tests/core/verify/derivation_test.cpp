// The derivation a check records: facts in order, premises before the facts resting on them,
// goals' proofs as renderings of their facts, a layered check's parts joined in the whole
// program's terms, and the memo keeping it all.
#include "verify/derivation.h"

#include <catch2/catch.hpp>
#include <set>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"
#include "test_support.h"
#include "verify/check.h"
#include "verify/check_json.h"
#include "verify/part_memo.h"
#include "verify/partition.h"

using namespace scalify;
using verify::DerivedFact;
using verify::Verdict;

namespace {

ir::Module read_corpus(const std::string& name) {
  auto m = hlo::read_module_file(test::corpus_dir() + "/neuron_torchxla/" + name);
  REQUIRE(m);
  return std::move(*m);
}

/// Indices are positions and every premise comes earlier.
void require_well_ordered(const std::vector<DerivedFact>& d) {
  for (size_t i = 0; i < d.size(); ++i) {
    INFO("fact " << i << ": " << d[i].dist << " by " << d[i].rule);
    REQUIRE(d[i].index == i);
    for (size_t p : d[i].premises) REQUIRE(p < i);
  }
}

/// A proven goal has a fact on its distributed output, and its proof is the facts that fact
/// rests on, line by line, then how the reference side meets the output.
void require_goal_proofs(const verify::CheckResult& r, size_t expand_from = 0) {
  for (const verify::Goal& g : r.goals) {
    if (!g.proven) continue;
    INFO("goal " << g.ref << " ~ " << g.dist);
    REQUIRE(g.fact);
    REQUIRE(*g.fact < r.derivation.size());
    const DerivedFact& f = r.derivation[*g.fact];
    CHECK(verify::value_name(f) == g.dist);
    CHECK(f.layout == *g.layout);
    const std::vector<size_t> closure = verify::proof_closure(r.derivation, *g.fact, expand_from);
    REQUIRE(g.proof.size() == closure.size() + 1);
    for (size_t k = 0; k < closure.size(); ++k) {
      CHECK(g.proof[k] == verify::fact_line(r.derivation[closure[k]], r.mesh));
    }
    CHECK_THAT(g.proof.back(), Catch::StartsWith("the reference term equals"));
  }
}

DerivedFact fact(size_t index, std::string dist, std::string rule, std::vector<size_t> premises,
                 const verify::Mesh& mesh) {
  DerivedFact f;
  f.index = index;
  f.dist = std::move(dist);
  f.layout = verify::Layout::replicated(mesh.rank());
  f.rule = std::move(rule);
  f.premises = std::move(premises);
  return f;
}

}  // namespace

TEST_CASE("derivation: linear3's facts are ordered and its goals' proofs render them",
          "[verify][derivation]") {
  const ir::Module ref = read_corpus("linear3_fwd_single.hlo");
  const ir::Module dist = read_corpus("linear3_fwd_spmd_megatron.hlo");
  auto r = verify::check(ref, dist, {});
  REQUIRE(r);
  REQUIRE(r->verdict == Verdict::kEquivalent);
  REQUIRE(!r->derivation.empty());
  require_well_ordered(r->derivation);
  require_goal_proofs(*r);

  // The leaves are the bijection's facts (or constants, which need no premise).
  std::set<std::string> parameters;
  for (const verify::BijectionEntry& b : r->bijection) parameters.insert(b.dist);
  size_t bijection_facts = 0;
  for (const DerivedFact& f : r->derivation) {
    if (f.rule != "bijection") continue;
    ++bijection_facts;
    CHECK(f.premises.empty());
    CHECK(parameters.count(f.dist) == 1);
  }
  CHECK(bijection_facts == r->bijection.size());

  // Every matched node's fact names the reference node the match names.
  for (const verify::NodeMatch& m : r->matches) {
    const size_t f = verify::fact_of_node(r->derivation, m.dist);
    REQUIRE(f < r->derivation.size());
    CHECK(r->derivation[f].ref == m.ref);
    CHECK(r->derivation[f].layout == m.layout);
  }
  CHECK(verify::fact_of_node(r->derivation, "no-such-node") == std::string::npos);

  // The JSON lists the same facts, and each goal its fact.
  const json::Value j = verify::to_json(*r);
  const json::Value* d = j.find("derivation");
  REQUIRE(d);
  REQUIRE(d->is_array());
  REQUIRE(d->as_array().size() == r->derivation.size());
  const json::Value& last = d->as_array().back();
  CHECK(last.find("dist")->as_string() == r->derivation.back().dist);
  CHECK(last.find("rule")->as_string() == r->derivation.back().rule);
  CHECK(last.find("premises")->as_array().size() == r->derivation.back().premises.size());
  const json::Value& goal = j.find("goals")->as_array().front();
  CHECK(static_cast<size_t>(goal.find("fact")->as_int()) == *r->goals.front().fact);
}

TEST_CASE("derivation: a layered check joins its layers' facts in the whole program's terms",
          "[verify][derivation][layered]") {
  modelgen::GenOptions o;
  o.model = *modelgen::llama_preset("tiny");
  o.tp = 2;
  auto pair = modelgen::generate_llama(o);
  REQUIRE(pair);
  const ir::Module ref = test::parse_module(pair->ref_hlo, "ref.hlo");
  const ir::Module dist = test::parse_module(pair->dist_hlo, "dist.hlo");
  auto r = verify::check(ref, dist, {});
  REQUIRE(r);
  REQUIRE(r->verdict == Verdict::kEquivalent);
  REQUIRE(r->stats.parts >= 2);  // its two layers, the embedding and head joining them
  require_well_ordered(r->derivation);

  // Every fact names a node of the whole program (no part's own output tuple), and both layers'
  // nodes have facts.
  const ir::Computation& d = dist.entry();
  std::set<std::string> named;
  for (const DerivedFact& f : r->derivation) {
    INFO(f.dist);
    CHECK(d.find(f.dist).has_value());
    named.insert(f.dist);
  }
  size_t layers = 0;
  for (const verify::Part& part : verify::partition_layers(dist)) {
    if (part.key == verify::Part::kPrologue || part.key == verify::Part::kEpilogue) continue;
    ++layers;
    size_t with_facts = 0;
    for (ir::InstrId id : part.members) with_facts += named.count(d[id].name);
    INFO("layer " << part.key);
    CHECK(with_facts > part.members.size() / 2);
  }
  CHECK(layers == 2);

  // A layer's input rests on the fact the part before proved of it, so the first goal's
  // proof reaches back through both layers to the parameters.
  REQUIRE(!r->goals.empty());
  REQUIRE(r->goals[0].fact);
  std::set<std::string> rules, reached;
  for (size_t f : verify::proof_closure(r->derivation, *r->goals[0].fact)) {
    rules.insert(r->derivation[f].rule);
    reached.insert(r->derivation[f].dist);
  }
  CHECK(rules.count("bijection") == 1);
  for (const verify::Part& part : verify::partition_layers(dist)) {
    size_t in_proof = 0;
    for (ir::InstrId id : part.members) in_proof += reached.count(d[id].name);
    INFO("part " << part.key);
    CHECK(in_proof > 0);
  }
  for (const verify::Goal& g : r->goals) {
    if (!g.proven) continue;
    REQUIRE(g.fact);
    CHECK(verify::value_name(r->derivation[*g.fact]) == g.dist);
    CHECK(g.proof.size() >= 2);
    CHECK_THAT(g.proof.front(), Catch::StartsWith("["));
  }
}

TEST_CASE("derivation: joining drops a part's output tuple and inputs stated before",
          "[verify][derivation]") {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  verify::DerivationJoiner join([](const std::string& name) { return name != "m.part0.outputs"; });
  // Part 0: p ~ rep (bijection), a = f(p), the part's output tuple holds a.
  const auto first =
      join.append({fact(0, "p", "bijection", {}, mesh), fact(1, "a", "factor:exp", {0}, mesh),
                   fact(2, "m.part0.outputs", "tuple", {1}, mesh)});
  CHECK(first == std::vector<size_t>{0, 1, 1});
  // Part 1: its inputs a and p, bound as part 0 proved and bound them; b = g(a, p).
  const auto second = join.append(
      {fact(0, "a", "bijection", {}, mesh), fact(1, "p", "bijection", {}, mesh),
       fact(2, "q", "bijection", {}, mesh), fact(3, "b", "factor:add", {0, 1, 2}, mesh)});
  CHECK(second == std::vector<size_t>{1, 0, 2, 3});
  const std::vector<DerivedFact>& whole = join.derivation();
  REQUIRE(whole.size() == 4);
  CHECK(whole[3].dist == "b");
  CHECK(whole[3].index == 3);
  CHECK(whole[3].premises == std::vector<size_t>{1, 0, 2});
  CHECK(verify::proof_closure(whole, 3) == std::vector<size_t>{0, 1, 2, 3});
  CHECK(verify::proof_closure(whole, 3, 2) == std::vector<size_t>{0, 1, 2, 3});
  CHECK(verify::proof_closure(whole, 3, 4) == std::vector<size_t>{3});
  CHECK(verify::proof_closure(whole, 1, 2) == std::vector<size_t>{1});  // not followed
  CHECK(verify::fact_line(whole[3], mesh) ==
        "[3] b ~ rep of e-class -1   by factor:add from [1] [0] [2]");
}

TEST_CASE("derivation: the memo keeps it, renamed with the nodes", "[verify][derivation][memo]") {
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  verify::MemoEntry e;
  e.result.mesh = mesh;
  e.result.verdict = Verdict::kEquivalent;
  DerivedFact p = fact(0, "p.1", "bijection", {}, mesh);
  p.ref = "p.1";
  p.eclass = 4;
  DerivedFact a = fact(1, "add.7", "factor:add", {0}, mesh);
  a.layout = *verify::Layout::parse("partial(sum,tp)", mesh);
  a.ref = "add.3";
  a.rewrites = {"comm-add"};
  e.result.derivation = {p, a};
  verify::Goal g;
  g.ref = "add.3";
  g.dist = "add.7";
  g.proven = true;
  g.layout = a.layout;
  g.fact = 1;
  e.result.goals = {g};
  const auto back = verify::memo_entry_from_text(verify::to_text(e), mesh);
  REQUIRE(back);
  REQUIRE(back->result.derivation.size() == 2);
  const DerivedFact& b = back->result.derivation[1];
  CHECK(b.dist == "add.7");
  CHECK(b.ref == "add.3");
  CHECK(b.layout == a.layout);
  CHECK(b.rule == "factor:add");
  CHECK(b.premises == std::vector<size_t>{0});
  CHECK(b.rewrites == std::vector<std::string>{"comm-add"});
  CHECK(back->result.derivation[0].eclass == 4);
  REQUIRE(back->result.goals.size() == 1);
  CHECK(back->result.goals[0].fact == std::optional<size_t>(1));

  const verify::CheckResult moved =
      verify::renamed(e.result, {{{"add.7", "add.91"}}, {{"add.3", "add.55"}}});
  CHECK(moved.derivation[1].dist == "add.91");
  CHECK(moved.derivation[1].ref == "add.55");

  // An entry written before derivations were recorded is a miss (recomputed), not a result
  // without proofs.
  std::string old = verify::to_text(e);
  const size_t at = old.find("\"derivation\"");
  REQUIRE(at != std::string::npos);
  old.replace(at, 12, "\"derivatio_\"");
  CHECK(!verify::memo_entry_from_text(old, mesh));
}

TEST_CASE("derivation: a value's name taken apart, and back", "[verify][derivation]") {
  DerivedFact f;
  f.dist = "tuple.12";
  f.element = 3;
  const auto split = verify::split_value_name(verify::value_name(f));
  REQUIRE(split);
  CHECK(split->node == "tuple.12");
  CHECK(split->element == 3);
  CHECK(verify::split_value_name("dot.2")->element == -1);
  CHECK(verify::split_value_name("dot.2")->node == "dot.2");
  CHECK_FALSE(verify::split_value_name("tuple.12#x"));
  CHECK_FALSE(verify::split_value_name("tuple.12#"));
  CHECK_FALSE(verify::split_value_name("tuple.12#-1"));
  CHECK_FALSE(verify::split_value_name("tuple.12#99999999999999999999"));
}
