// The independent proof checker: the proofs the checker exports for the corpus pairs and the
// gallery are accepted; tampered proofs (a layout, a premise, a rule, a goal, a reference node, a
// verdict) and the original proofs of mutated programs are rejected; reports and sessions carry
// proofs that re-check.
#include "proofcheck/proof_check.h"

#include <catch2/catch.hpp>
#include <map>

#include "hlo/printer.h"
#include "modelgen/gallery.h"
#include "proofcheck/proof_file.h"
#include "report/report.h"
#include "store/session_file.h"
#include "support/hlo_mutations.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

using proofcheck::ProofCheckReport;
using proofcheck::ProofFile;
using Outcome = ProofCheckReport::Outcome;

ProofFile proof_of(const std::string& ref_text, const std::string& dist_text,
                   const std::string& ref_path = "ref.hlo",
                   const std::string& dist_path = "dist.hlo") {
  const ir::Module ref = test::parse_module(ref_text, ref_path);
  const ir::Module dist = test::parse_module(dist_text, dist_path);
  auto result = verify::check(ref, dist, {});
  REQUIRE(result);
  return {ref_path, hlo::print_module(ref), dist_path, hlo::print_module(dist), *result};
}

/// The proof of a Neuron corpus pair, made once.
const ProofFile& corpus_proof(const std::string& ref, const std::string& dist) {
  static std::map<std::string, ProofFile> made;
  auto found = made.find(dist);
  if (found == made.end()) {
    const std::string dir = test::corpus_dir() + "/neuron_torchxla/";
    found = made.emplace(dist, proof_of(test::read_file(dir + ref), test::read_file(dir + dist),
                                        ref, dist))
                .first;
  }
  return found->second;
}

const ProofFile& gpt2() { return corpus_proof("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"); }
const ProofFile& mnist() {
  return corpus_proof("mnist_mlp_train_single.hlo", "mnist_mlp_train_dp.hlo");
}

ProofCheckReport recheck(const ProofFile& proof) {
  auto report = proofcheck::check_proof(proof);
  REQUIRE(report);
  return *report;
}

/// `original` with fact i's layout changed to `lie`, and the goals it proves saying so.
ProofFile with_layout(const ProofFile& original, size_t i, const verify::Layout& lie) {
  ProofFile tampered = original;
  tampered.result.derivation[i].layout = lie;
  for (verify::Goal& g : tampered.result.goals) {
    if (g.fact == i) g.layout = lie;
  }
  return tampered;
}

/// The facts the proven goals rest on.
std::vector<size_t> closure(const verify::CheckResult& r) {
  std::vector<bool> seen(r.derivation.size(), false);
  std::vector<size_t> stack;
  for (const verify::Goal& g : r.goals) {
    if (g.proven && g.fact) stack.push_back(*g.fact);
  }
  while (!stack.empty()) {
    const size_t i = stack.back();
    stack.pop_back();
    if (seen[i]) continue;
    seen[i] = true;
    for (size_t p : r.derivation[i].premises) stack.push_back(p);
  }
  std::vector<size_t> out;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i]) out.push_back(i);
  }
  return out;
}

/// Another layout of the same mesh: rep becomes partial(sum) on the first axis, anything else
/// rep.
verify::Layout other(const verify::Layout& l, const verify::Mesh& mesh) {
  if (l.is_rep())
    return verify::Layout::on(mesh, 0, verify::AxisLayout::partial(verify::ReduceOp::kSum));
  return verify::Layout::replicated(mesh.rank());
}

TEST_CASE("proof check: every corpus pair's proof is accepted", "[proofcheck][corpus]") {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"linear3_fwd_single.hlo", "linear3_fwd_spmd_megatron.hlo"},
      {"mnist_mlp_train_single.hlo", "mnist_mlp_train_dp.hlo"},
      {"gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"},
      {"llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp2.hlo"},
      {"llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp8.hlo"},
      {"bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo"}};
  for (const auto& [ref, dist] : pairs) {
    INFO(dist);
    const ProofFile& proof = corpus_proof(ref, dist);
    REQUIRE(proof.result.verdict == verify::Verdict::kEquivalent);
    const ProofCheckReport r = recheck(proof);
    INFO(r.why);
    CHECK(r.outcome == Outcome::kAccepted);
    CHECK(r.verdict == "equivalent");
    CHECK(r.goals == r.goals_in_all);
    CHECK(r.goals + r.unmatched_outputs > 0);
    CHECK(r.facts == closure(proof.result).size());
    CHECK(r.parameters > 0);
  }
}

TEST_CASE("proof check: mnist's proof rests on its balanced-partials assumptions, stated",
          "[proofcheck][corpus]") {
  const ProofFile& proof = mnist();
  REQUIRE(proof.result.verdict == verify::Verdict::kEquivalent);
  const ProofCheckReport r = recheck(proof);
  INFO(r.why);
  CHECK(r.outcome == Outcome::kAccepted);
  CHECK(r.verdict == "equivalent");
  CHECK(r.unmatched_outputs == 1);  // as the result says
  CHECK(r.assumptions.size() == proof.result.assumptions.size());
  CHECK(r.identities.count("constant-factor") == 1);
  CHECK(r.identities.count("assumed-nonzero") == 1);
  // Without any one of them, the proof does not hold.
  for (size_t k = 0; k < proof.result.assumptions.size(); ++k) {
    ProofFile p = proof;
    p.result.assumptions.erase(p.result.assumptions.begin() + static_cast<long>(k));
    INFO("without " << proof.result.assumptions[k].dist);
    CHECK(recheck(p).outcome == Outcome::kRejected);
  }
  // Nor with an output it leaves unmatched that the result does not state.
  ProofFile p = proof;
  p.result.unmatched_ref_outputs.clear();
  CHECK(recheck(p).outcome == Outcome::kRejected);
}

TEST_CASE("proof check: every gallery example's proof is accepted", "[proofcheck][modelgen]") {
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    INFO(e.name);
    auto pair = modelgen::generate_example(e);
    REQUIRE(pair);
    const ProofCheckReport r = recheck(proof_of(pair->correct.ref_hlo, pair->correct.dist_hlo));
    INFO(r.why);
    CHECK(r.outcome == Outcome::kAccepted);
    CHECK(r.verdict == "equivalent");
  }
}

TEST_CASE("proof check: a changed layout is rejected at every fact of the proof",
          "[proofcheck][corpus]") {
  const ProofFile* which = GENERATE(as<const ProofFile*>{}, &gpt2(), &mnist());
  const ProofFile& original = *which;
  const std::vector<size_t> facts = closure(original.result);
  REQUIRE(facts.size() >= 100);
  size_t rejected = 0;
  for (size_t i : facts) {
    ProofFile tampered =
        with_layout(original, i, other(original.result.derivation[i].layout, original.result.mesh));
    const verify::DerivedFact& f = tampered.result.derivation[i];
    // A parameter's fact and its bijection entry changed together: the contract itself lies.
    for (verify::BijectionEntry& b : tampered.result.bijection) {
      if (b.dist == f.dist) b.layout = f.layout;
    }
    for (verify::Assumption& a : tampered.result.assumptions) {
      if (a.dist == f.dist) a.layout = f.layout;
    }
    const ProofCheckReport r = recheck(tampered);
    INFO("fact [" << i << "] " << f.dist << " " << f.rule << " -> "
                  << f.layout.to_string(tampered.result.mesh) << ": " << r.why);
    CHECK(r.outcome == Outcome::kRejected);
    rejected += r.outcome == Outcome::kRejected ? 1 : 0;
  }
  CHECK(rejected == facts.size());
}

TEST_CASE("proof check: BERT's heads, read block by block and moved between size-1 dims",
          "[proofcheck][corpus]") {
  // One head per rank: the scores and contexts are dots read block by block, shards move to a
  // size-1 dim next to them (rule `view`), the dropout draws each rank's block (an assumption).
  const ProofFile& original =
      corpus_proof("bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo");
  const std::vector<size_t> facts = closure(original.result);
  size_t views = 0, blockwise = 0, rejected = 0;
  for (size_t i : facts) {
    const verify::DerivedFact& f = original.result.derivation[i];
    const bool view = f.rule == "view";
    const bool blocks = f.rule == "factor:dot" && f.premises.size() == 2 &&
                        !original.result.derivation[f.premises[0]].layout.is_rep() &&
                        !original.result.derivation[f.premises[1]].layout.is_rep() &&
                        !f.layout.has_partial();
    if (!view && !blocks) continue;
    views += view ? 1 : 0;
    blockwise += blocks ? 1 : 0;
    const ProofFile tampered = with_layout(original, i, other(f.layout, original.result.mesh));
    const verify::DerivedFact& t = tampered.result.derivation[i];
    const ProofCheckReport r = recheck(tampered);
    INFO("fact [" << i << "] " << t.dist << " " << t.rule << " -> "
                  << t.layout.to_string(tampered.result.mesh) << ": " << r.why);
    CHECK(r.outcome == Outcome::kRejected);
    rejected += r.outcome == Outcome::kRejected ? 1 : 0;
  }
  CHECK(views >= 2);
  CHECK(blockwise >= 6);  // scores, contexts and their gradients
  CHECK(rejected == views + blockwise);
  // The random block is stated, as a shard of the reference's draws.
  const ProofCheckReport r = recheck(original);
  REQUIRE(r.outcome == Outcome::kAccepted);
  CHECK(std::count_if(original.result.assumptions.begin(), original.result.assumptions.end(),
                      [](const verify::Assumption& a) { return !a.layout.is_rep(); }) == 1);
}

TEST_CASE("proof check: an all-to-all reshard and the shard moved at the output", "[proofcheck]") {
  // GSPMD's reshard of a row-sharded value to a column-sharded one (all-to-all along a dim cut
  // from the columns), squared: the all-to-all gives a shard of a view, moved at the output.
  const std::string ref = R"hlo(HloModule r
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT m = f32[8,4] multiply(x, x)
}
)hlo";
  const std::string dist = R"hlo(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,4] parameter(0), sharding={devices=[2,1]0,1}
  r = f32[4,2,2] reshape(x)
  a = f32[4,2,2] all-to-all(r), replica_groups={{0,1}}, dimensions={1}
  t = f32[2,4,2] transpose(a), dimensions={1,0,2}
  y = f32[8,2] reshape(t)
  ROOT m = f32[8,2] multiply(y, y)
}
)hlo";
  const ProofFile original = proof_of(ref, dist, "ref.hlo", "dist.hlo");
  REQUIRE(original.result.verdict == verify::Verdict::kEquivalent);
  REQUIRE(recheck(original).outcome == Outcome::kAccepted);
  size_t tampered_facts = 0;
  for (size_t i : closure(original.result)) {
    const verify::DerivedFact& f = original.result.derivation[i];
    if (f.rule != "all-to-all" && f.rule != "view") continue;
    ++tampered_facts;
    // Replicated, or sharded along the other dim: both lies.
    const int32_t dim = f.layout.axes[0].dim;
    for (const verify::Layout& lie :
         {other(f.layout, original.result.mesh),
          verify::Layout::on(original.result.mesh, 0, verify::AxisLayout::shard(dim == 0))}) {
      INFO(f.dist << " " << f.rule << " -> " << lie.to_string(original.result.mesh));
      CHECK(recheck(with_layout(original, i, lie)).outcome == Outcome::kRejected);
    }
  }
  CHECK(tampered_facts >= 2);
}

TEST_CASE("proof check: changed premises, rules, names, goals and verdicts are rejected",
          "[proofcheck][corpus]") {
  const ProofFile& original = gpt2();
  const auto& d = original.result.derivation;
  const auto dot = std::find_if(d.begin(), d.end(), [](const verify::DerivedFact& f) {
    return f.rule == "factor:dot" && f.premises.size() == 2 && f.premises[0] != f.premises[1];
  });
  REQUIRE(dot != d.end());
  const size_t at = dot->index;
  auto rejected = [](const ProofFile& p, const std::string& says) {
    const ProofCheckReport r = recheck(p);
    INFO(r.why);
    CHECK(r.outcome == Outcome::kRejected);
    CHECK_THAT(r.why, Catch::Contains(says));
  };
  SECTION("premises swapped") {
    ProofFile p = original;
    std::swap(p.result.derivation[at].premises[0], p.result.derivation[at].premises[1]);
    rejected(p, "is not operand 0");
  }
  SECTION("a premise from later in the proof") {
    ProofFile p = original;
    p.result.derivation[at].premises[0] = at + 1;
    rejected(p, "comes later");
  }
  SECTION("another rule cited") {
    ProofFile p = original;
    p.result.derivation[at].rule = "factor:add";
    rejected(p, "the node is a `dot`");
    p.result.derivation[at].rule = "magic";
    rejected(p, "no rule is called 'magic'");
  }
  SECTION("another reference node named") {
    ProofFile p = original;
    p.result.derivation[at].ref = p.result.derivation[p.result.derivation[at].premises[0]].ref;
    rejected(p, "not reference node");
  }
  SECTION("a goal proven by another fact") {
    ProofFile p = original;
    verify::Goal& g = p.result.goals.front();
    REQUIRE(g.fact);
    g.fact = at;
    rejected(p, "not the distributed output");
  }
  SECTION("a goal whose name is not an output's") {
    ProofFile p = original;
    p.result.goals.front().ref += "#x";
    rejected(p, "not an output's name");
  }
  SECTION("equivalent with a reference output left unproven") {
    ProofFile p = original;
    REQUIRE(p.result.goals.size() > 1);
    p.result.goals.pop_back();
    rejected(p, "have no proven goal");
  }
  SECTION("two parameters' counterparts swapped") {
    ProofFile p = original;
    std::vector<size_t> params;
    for (size_t i : closure(p.result)) {
      if (d[i].rule == "bijection" && d[i].layout.is_rep()) params.push_back(i);
    }
    REQUIRE(params.size() >= 2);
    verify::DerivedFact& a = p.result.derivation[params[0]];
    verify::DerivedFact& b = p.result.derivation[params[1]];
    REQUIRE(a.ref != b.ref);
    std::swap(a.ref, b.ref);
    for (verify::BijectionEntry& e : p.result.bijection) {
      if (e.dist == a.dist) {
        e.ref = a.ref;
      } else if (e.dist == b.dist) {
        e.ref = b.ref;
      }
    }
    CHECK(recheck(p).outcome == Outcome::kRejected);
  }
}

TEST_CASE("proof check: the proof of a program does not prove its mutants",
          "[proofcheck][mutations][corpus]") {
  const ProofFile& original = gpt2();
  const ir::Module dist = test::parse_module(original.dist_hlo);
  size_t tried = 0, rejected = 0;
  for (auto kind : {test::MutationKind::kDropCollective, test::MutationKind::kSingletonGroups,
                    test::MutationKind::kSwapOperands, test::MutationKind::kChangeConstant,
                    test::MutationKind::kPermuteTranspose, test::MutationKind::kChangeOpcode}) {
    for (const test::Mutation& site : test::mutation_sites(dist, kind)) {
      auto mutant = test::apply_mutation(dist, site);
      REQUIRE(mutant);
      ProofFile p = original;
      p.dist_hlo = hlo::print_module(mutant->module);
      auto r = proofcheck::check_proof(p);
      REQUIRE(r);
      rejected += r->outcome == Outcome::kRejected ? 1 : 0;
      INFO(test::mutation_kind_name(kind) << " at " << site.node);
      CHECK(r->outcome == Outcome::kRejected);
      ++tried;
    }
  }
  CHECK(tried > 20);
  CHECK(rejected == tried);
}

TEST_CASE("proof check: an HTML report and a session carry a proof that re-checks",
          "[proofcheck][report][store]") {
  const ProofFile& proof = gpt2();
  const ir::Module ref = test::parse_module(proof.ref_hlo);
  const ir::Module dist = test::parse_module(proof.dist_hlo);
  test::TempDir dir;
  const std::string html = dir.path() + "/report.html";
  REQUIRE(report::write_report(html, {proof.result, ref, dist, proof.ref_path, proof.dist_path}));
  auto from_html = proofcheck::read_proof(html);
  REQUIRE(from_html);
  CHECK(from_html->dist_hlo == proof.dist_hlo);
  CHECK(recheck(*from_html).outcome == Outcome::kAccepted);

  store::Session s;
  s.reference = {"ref.hlo", proof.ref_hlo, {}};
  s.distributed = {"dist.hlo", proof.dist_hlo, {}};
  s.result = proof.result;
  const std::string session = dir.path() + "/s.scalify";
  REQUIRE(store::save_session(session, s));
  auto from_session = proofcheck::read_proof(session);
  REQUIRE(from_session);
  CHECK(recheck(*from_session).outcome == Outcome::kAccepted);

  const std::string json = dir.write("p.json", proofcheck::proof_to_json(proof).dump());
  auto from_json = proofcheck::read_proof(json);
  REQUIRE(from_json);
  CHECK(recheck(*from_json).outcome == Outcome::kAccepted);
}

TEST_CASE("proof check: files that hold no proof give a clear error", "[proofcheck]") {
  test::TempDir dir;
  auto error_of = [](const std::string& path) {
    auto p = proofcheck::read_proof(path);
    REQUIRE_FALSE(p);
    return p.error().message;
  };
  CHECK_THAT(error_of(dir.write("a.json", "{\"verdict\": \"equivalent\"}")),
             Catch::Contains("not a Scalify proof"));
  CHECK_THAT(error_of(dir.write("b.json", "{\"format\": \"scalify-check-proof-1\", ")),
             !Catch::Contains("accepted"));
  CHECK_THAT(error_of(dir.write("c.html", "<html><body>no proof</body></html>")),
             Catch::Contains("embeds no proof"));
  CHECK_THAT(error_of(dir.path() + "/missing.json"), Catch::Contains("cannot read"));
  std::string truncated = proofcheck::proof_to_json(gpt2()).dump();
  truncated.resize(truncated.size() / 2);
  CHECK_FALSE(proofcheck::read_proof(dir.write("t.json", truncated)));
  // A proof whose program does not read is bad input, not a rejected proof.
  ProofFile bad = gpt2();
  bad.dist_hlo = "HloModule broken\nENTRY e {\n";
  CHECK_FALSE(proofcheck::check_proof(bad));
}

}  // namespace
}  // namespace scalify

namespace scalify {

TEST_CASE("proof check: a block an all-to-all moved, read back as the reference's own value",
          "[proofcheck]") {
  // The reference's r1 is a transpose of a difference, which the proof checker writes as the
  // difference transposed; r5 reshapes it across the transpose's factors, which has no view
  // normal form. The rank reaches r5's elements through a reshard (all-to-all) and a shard move:
  // the same elements of one base in the same order, which the proof checker compares.
  const char* ref = R"(HloModule ref
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  p1 = f32[8,12] parameter(0)
  r0 = f32[12,8] transpose(p1), dimensions={1,0}
  r1 = f32[12,8] subtract(r0, r0)
  r5 = f32[8,12] reshape(r1)
  z = f32[] constant(0)
  r12 = f32[12] reduce(r5, z), dimensions={0}, to_apply=sum
  ROOT r13 = f32[8,12] broadcast(r12), dimensions={1}
}
)";
  const char* dist = R"(HloModule dist, num_partitions=2
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  p1 = f32[8,6] parameter(0)
  d0 = f32[6,8] transpose(p1), dimensions={1,0}
  d1 = f32[6,8] subtract(d0, d0)
  d5 = f32[4,12] reshape(d1)
  d7 = f32[4,2,6] reshape(d5)
  d8 = f32[4,2,6] all-to-all(d7), dimensions={1}, replica_groups={{0,1}}
  d9 = f32[2,4,6] transpose(d8), dimensions={1,0,2}
  d10 = f32[8,6] reshape(d9)
  z = f32[] constant(0)
  d12 = f32[6] reduce(d10, z), dimensions={0}, to_apply=sum
  d13 = f32[8,6] broadcast(d12), dimensions={1}
  ROOT d14 = f32[8,12] all-gather(d13), dimensions={1}, replica_groups={{0,1}}
}
)";
  const ProofFile proof = proof_of(ref, dist);
  REQUIRE(proof.result.verdict == verify::Verdict::kEquivalent);
  const ProofCheckReport report = recheck(proof);
  INFO(report.why);
  CHECK(report.outcome == Outcome::kAccepted);
}

}  // namespace scalify
