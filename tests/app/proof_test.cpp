// `scalify proof verify` end to end: the proof `check --proof` writes and the one a report embeds
// are accepted (exit 0); a tampered proof is rejected (1) naming the fact; a proof resting on a
// step the independent checker does not model is "not re-checked" (3); bad input and usage
// give 2.
#include <catch2/catch.hpp>
#include <string>

#include "proofcheck/proof_file.h"
#include "support/json.h"
#include "test_support.h"

using scalify::test::run_cli;

namespace {

std::string pair_args(const std::string& ref, const std::string& dist) {
  const std::string dir = scalify::test::corpus_dir() + "/neuron_torchxla/";
  return dir + ref + " " + dir + dist;
}

}  // namespace

TEST_CASE("proof verify accepts what check --proof and --report write", "[app][proof]") {
  scalify::test::TempDir dir;
  const std::string proof = dir.path() + "/gpt2.proof.json";
  const std::string html = dir.path() + "/gpt2.html";
  const auto check =
      run_cli("check --no-cache " + pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo") +
              " --proof " + proof + " --report " + html);
  REQUIRE(check.exit_code == 0);
  for (const std::string& file : {proof, html}) {
    const auto r = run_cli("proof verify " + file);
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains(": accepted"));
    CHECK_THAT(r.out, Catch::Contains("3 of 3 goals proven; the proof supports: equivalent"));
    CHECK_THAT(r.out, Catch::Contains("2 assumption(s)"));
  }

  // Tampered: the first all-reduce said to give a partial value still.
  auto value = scalify::json::parse(scalify::test::read_file(proof));
  REQUIRE(value);
  for (auto& f : (*value)["result"]["derivation"].as_array()) {
    if (f["rule"].as_string() == "all-reduce") {
      f["layout"] = "partial(sum,tp)";
      break;
    }
  }
  const std::string tampered = dir.write("tampered.json", value->dump());
  const auto r = run_cli("proof verify " + tampered);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("rejected: fact ["));
  CHECK_THAT(r.out, Catch::Contains("(all-reduce)"));
}

TEST_CASE("proof verify accepts the proof of a refactoring check (one device)", "[app][proof]") {
  // Two single-device programs: the mesh has no axes, every layout is replicated.
  scalify::test::TempDir dir;
  const std::string proof = dir.path() + "/refactor.proof.json";
  const auto check =
      run_cli("check --no-cache " + pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp1.hlo") +
              " --proof " + proof);
  REQUIRE(check.exit_code == 0);
  const auto r = run_cli("proof verify " + proof);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("mesh (one device)"));
  CHECK_THAT(r.out, Catch::Contains("the proof supports: equivalent"));
}

namespace {

/// acc += x·w run as many times as parameter 2 says (a loop proven by induction); with 2 ranks
/// x holds columns and w rows, each step adds a partial sum, all-reduced after the loop.
std::string accumulate_loop(int ranks) {
  std::string text = R"(HloModule acc

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

body {
  p = STATE parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[4,4] get-tuple-element(p), index=1
  x = f32[4,C] get-tuple-element(p), index=2
  w = f32[C,4] get-tuple-element(p), index=3
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,4] add(acc, d)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = STATE tuple(n, s, x, w)
}

cond {
  p = STATE parameter(0)
  i = s32[] get-tuple-element(p), index=0
  steps = s32[] constant(10000)
  ROOT lt = pred[] compare(i, steps), direction=LT
}

ENTRY e {
  x = f32[4,C] parameter(0)
  w = f32[C,4] parameter(1)
  start = s32[] parameter(2)
  z = f32[] constant(0)
  zeros = f32[4,4] broadcast(z), dimensions={}
  init = STATE tuple(start, zeros, x, w)
  loop = STATE while(init), condition=cond, body=body
  acc = f32[4,4] get-tuple-element(loop), index=1
  ROOT r = f32[4,4] COMBINE
}
)";
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
      at += to.size();
    }
  };
  replace_all("STATE", "(s32[], f32[4,4], f32[4,C], f32[C,4])");
  replace_all("C]", std::to_string(8 / ranks) + "]");
  replace_all("[C,", "[" + std::to_string(8 / ranks) + ",");
  replace_all("COMBINE",
              ranks > 1 ? "all-reduce(acc), replica_groups={{0,1}}, to_apply=sum" : "copy(acc)");
  if (ranks > 1) replace_all("HloModule acc", "HloModule acc, num_partitions=2");
  return text;
}

}  // namespace

TEST_CASE("proof verify re-checks a loop proven by induction, its body's proof included",
          "[app][proof]") {
  scalify::test::TempDir dir;
  const std::string ref = dir.write("ref.hlo", accumulate_loop(1));
  const std::string dist = dir.write("dist.hlo", accumulate_loop(2));
  const std::string proof = dir.path() + "/loop.proof.json";
  const auto check = run_cli("check --no-cache " + ref + " " + dist + " --proof " + proof);
  INFO(check.out << check.err);
  REQUIRE(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("by induction"));
  const auto r = run_cli("proof verify " + proof);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("the proof supports: equivalent"));
}

TEST_CASE("proof verify: a step it does not model is not re-checked (exit 3)", "[app][proof]") {
  // A proof, written by hand, that the Cholesky factors of a batch of matrices split over the
  // ranks are split alike: true, but the independent checker has no rule for `cholesky` on
  // sharded values, and says so rather than accept or reject.
  scalify::proofcheck::ProofFile proof;
  proof.ref_path = "ref.hlo";
  proof.ref_hlo =
      "HloModule ref\nENTRY %e {\n  %p = f32[4,3,3] parameter(0)\n"
      "  %k = f32[4,3,3] parameter(1)\n"
      "  ROOT %s = f32[4,3,3] cholesky(%p), lower=true\n}\n";
  proof.dist_path = "dist.hlo";
  proof.dist_hlo =
      "HloModule dist, num_partitions=2\nENTRY %e {\n  %p = f32[2,3,3] parameter(0)\n"
      "  %k = f32[4,3,3] parameter(1)\n"
      "  ROOT %s = f32[2,3,3] cholesky(%p), lower=true\n}\n";
  scalify::verify::CheckResult& r = proof.result;
  r.verdict = scalify::verify::Verdict::kEquivalent;
  r.mesh = *scalify::verify::Mesh::parse("tp=2");
  const auto shard = scalify::verify::Layout::on(r.mesh, 0, scalify::verify::AxisLayout::shard(0));
  const auto rep = scalify::verify::Layout::replicated(1);
  r.bijection.push_back({"p", "p", 0, 0, shard, "by hand", {}, {}});
  r.bijection.push_back({"k", "k", 1, 1, rep, "by hand", {}, {}});
  r.derivation.push_back({0, "p", -1, shard, "p", -1, "bijection", {}, {}, nullptr});
  r.derivation.push_back({1, "k", -1, rep, "k", -1, "bijection", {}, {}, nullptr});
  r.derivation.push_back({2, "s", -1, shard, "s", -1, "factor:cholesky", {0}, {}, nullptr});
  scalify::verify::Goal goal;
  goal.ref = "s";
  goal.dist = "s";
  goal.proven = true;
  goal.layout = shard;
  goal.fact = 2;
  r.goals.push_back(goal);
  scalify::test::TempDir dir;
  const std::string file =
      dir.write("cholesky.json", scalify::proofcheck::proof_to_json(proof).dump());
  const auto out = run_cli("proof verify " + file);
  INFO(out.out << out.err);
  CHECK(out.exit_code == 3);
  CHECK_THAT(out.out, Catch::Contains("not re-checked: fact [2] s (factor:cholesky): the "
                                      "proof checker has no rule for `cholesky`"));
}

TEST_CASE("proof verify: usage and bad input exit 2", "[app][proof]") {
  scalify::test::TempDir dir;
  CHECK(run_cli("proof").exit_code == 2);
  CHECK(run_cli("proof check x.json").exit_code == 2);
  CHECK(run_cli("proof --help").exit_code == 0);
  const auto missing = run_cli("proof verify " + dir.path() + "/none.json");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("none.json"));
  const auto foreign = run_cli("proof verify " + dir.write("x.json", "[1, 2]"));
  CHECK(foreign.exit_code == 2);
  CHECK_THAT(foreign.err, Catch::Contains("not a Scalify proof"));
}

TEST_CASE("proof verify: a divergent result's proven goals only, said so", "[app][proof]") {
  scalify::test::TempDir dir;
  REQUIRE(run_cli("gen example mlp-column-row --out " + dir.path() + "/mlp").exit_code == 0);
  const std::string bug = dir.path() + "/mlp/bug/";
  const std::string proof = dir.path() + "/bug.json";
  REQUIRE(run_cli("check --no-cache " + bug + "ref.hlo " + bug + "dist.hlo --proof " + proof)
              .exit_code == 1);
  const auto r = run_cli("proof verify " + proof);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("only the proven goals were re-checked: the result is "
                                    "divergent at add."));
  CHECK_THAT(r.out, !Catch::Contains("the proof supports"));
}

TEST_CASE("proof verify --json: one object with the outcome and what it rests on", "[app][proof]") {
  scalify::test::TempDir dir;
  const std::string proof = dir.path() + "/gpt2.json";
  REQUIRE(run_cli("check --no-cache " + pair_args("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo") +
                  " --proof " + proof)
              .exit_code == 0);
  const auto r = run_cli("proof verify --json " + proof);
  REQUIRE(r.exit_code == 0);
  auto v = scalify::json::parse(r.out);
  REQUIRE(v);
  CHECK((*v)["outcome"].as_string() == "accepted");
  CHECK((*v)["supports"].as_string() == "equivalent");
  CHECK((*v)["goals_proven"].as_int() == 3);
  CHECK((*v)["facts"].as_int() > 100);
  CHECK((*v)["assumptions"].as_array().size() == 2);
  CHECK((*v)["rewrites"].find("neuron-transfer-identity") != nullptr);
}
