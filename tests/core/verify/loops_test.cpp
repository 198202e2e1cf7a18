// Loops: a scan over layers (JAX's lax.scan, a fori_loop) is checked by unrolling both programs'
// loops (ir/inline_calls.h). A tensor-parallel scan is proven and its proof re-checked; bugs in
// the loop body or its trip count are found inside the iteration they break; a loop whose trip
// count comes from the data is proven by induction, and a conditional whose branch does branch by
// branch; XLA's windowed einsum (whose collective-permute moves shards) is `inconclusive`, never
// called divergent by mistake.
#include <catch2/catch.hpp>
#include <functional>
#include <memory>

#include "core/verify/check_texts.h"
#include "test_support.h"
#include "verify/check.h"

namespace scalify {
namespace {

/// A three-layer MLP scan (h = tanh(h·W1[i])·W2[i]) over stacked weights. `ranks` 1 is the
/// reference; with 2 ranks W1 is split by columns and W2 by rows (Megatron), and `reduce` is
/// the line that combines the partial sums. `counter_end` is the trip count's bound, `layer`
/// the index of the layer each iteration reads.
std::string scan(int ranks, const std::string& reduce = "", const std::string& counter_end = "3",
                 const std::string& layer = "i") {
  const std::string f = std::to_string(6 / ranks);
  const std::string w1 = "f32[3,8," + f + "]", w2 = "f32[3," + f + ",8]";
  const std::string state = "(s32[], f32[4,8], " + w1 + ", " + w2 + ")";
  std::string text =
      "HloModule scan" + (ranks > 1 ? ", num_partitions=" + std::to_string(ranks) : "");
  text +=
      R"(

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

body {
  p = )" +
      state + R"( parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[4,8] get-tuple-element(p), index=1
  w1s = )" +
      w1 + R"( get-tuple-element(p), index=2
  w2s = )" +
      w2 + R"( get-tuple-element(p), index=3
  zero = s32[] constant(0)
  one = s32[] constant(1)
  w1d = f32[1,8,)" +
      f + "] dynamic-slice(w1s, " + layer + ", zero, zero), dynamic_slice_sizes={1,8," + f + R"(}
  w1 = f32[8,)" +
      f + R"(] reshape(w1d)
  a = f32[4,)" +
      f + R"(] dot(h, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = f32[4,)" +
      f + R"(] tanh(a)
  w2d = f32[1,)" +
      f + ",8] dynamic-slice(w2s, " + layer + ", zero, zero), dynamic_slice_sizes={1," + f + R"(,8}
  w2 = f32[)" +
      f + R"(,8] reshape(w2d)
  o = f32[4,8] dot(g, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
)" + reduce +
      R"(
  next = s32[] add(i, one)
  ROOT t = )" +
      state + R"( tuple(next, )" + (reduce.empty() ? "o" : "r") + R"(, w1s, w2s)
}

cond {
  p = )" +
      state + R"( parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant()" +
      counter_end + R"()
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY main {
  x = f32[4,8] parameter(0)
  w1s = )" +
      w1 + R"( parameter(1)
  w2s = )" +
      w2 + R"( parameter(2)
  start = s32[] constant(0)
  init = )" +
      state + R"( tuple(start, x, w1s, w2s)
  loop = )" +
      state + R"( while(init), condition=cond, body=body
  ROOT out = f32[4,8] get-tuple-element(loop), index=1
}
)";
  return text;
}

const std::string kAllReduce = "  r = f32[4,8] all-reduce(o), replica_groups={{0,1}}, to_apply=sum";

verify::CheckResult check(const std::string& dist, const std::string& ref = scan(1)) {
  return test::check_texts(dist, ref);
}

using test::noted;

/// What the independent checker says of `r`'s proof once written to JSON and read back.
proofcheck::ProofCheckReport recheck_through_json(const std::string& ref, const std::string& dist,
                                                  const verify::CheckResult& r) {
  const proofcheck::ProofFile proof{"ref.hlo", ref, "dist.hlo", dist, r};
  auto back = proofcheck::proof_from_json(proofcheck::proof_to_json(proof), "proof.json");
  REQUIRE(back);
  auto report = proofcheck::check_proof(*back);
  REQUIRE(report);
  return *report;
}

/// The first fact of `r` that a loop's or conditional's steps prove.
size_t induction_fact(const verify::CheckResult& r) {
  for (const verify::DerivedFact& f : r.derivation) {
    if (f.control_flow) return f.index;
  }
  FAIL("no control-flow fact");
  return 0;
}

}  // namespace

TEST_CASE("loops: a tensor-parallel scan is proven, and its proof re-checks", "[verify]") {
  const std::string dist = scan(2, kAllReduce);
  const verify::CheckResult r = check(dist);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  REQUIRE(r.goals.size() == 1);
  CHECK(r.goals[0].proven);
  CHECK(noted(r, "2 while loops unrolled"));
  // Without layer scopes the unrolled iterations are the parts, checked one by one.
  CHECK(noted(r, "checked as 3 parts (iteration 0 of loop to iteration 2 of loop)"));
  const proofcheck::ProofCheckReport report = test::recheck(scan(1), dist, r);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
  CHECK(report.verdict == "equivalent");
}

TEST_CASE("loops: bugs in the body or the trip count are found in the iteration they break",
          "[verify]") {
  struct Case {
    std::string what, dist, node, reason;
  };
  const std::vector<Case> cases = {
      {"the all-reduce dropped", scan(2, "  r = f32[4,8] copy(o)"), "loop.iter1.a",
       "partial(sum,tp)"},
      {"the all-reduce over groups of one",
       scan(2, "  r = f32[4,8] all-reduce(o), replica_groups={{0},{1}}, to_apply=sum"),
       "loop.iter0.r", "groups of one device"},
      {"one iteration short", scan(2, kAllReduce, "2"), "loop.iter1.r",
       "the reference returns another value"},
      {"every iteration reads layer 1", scan(2, kAllReduce, "3", "one"), "loop.iter0.w1d",
       "never computes"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const verify::CheckResult r = check(c.dist);
    REQUIRE(r.verdict == verify::Verdict::kDivergent);
    REQUIRE(r.divergence);
    CHECK(r.divergence->dist_node == c.node);
    CHECK(r.divergence->reason.find(c.reason) != std::string::npos);
    // The report points into the loop body's text, where the bug is written.
    CHECK(r.divergence->dist_line > 9);
    CHECK(r.divergence->dist_line < 28);
  }
}

/// `text` with its loop's counter starting at a parameter: a trip count from the data.
std::string counted_from_data(std::string text) {
  const std::string start = "  start = s32[] constant(0)";
  const auto at = text.find(start);
  REQUIRE(at != std::string::npos);
  return text.replace(at, start.size(), "  start = s32[] parameter(3)");
}

TEST_CASE("loops: a loop with a trip count from the data is proven by induction", "[verify]") {
  const std::string ref = counted_from_data(scan(1));
  const std::string dist = counted_from_data(scan(2, kAllReduce));
  const verify::CheckResult r = check(dist, ref);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  CHECK(noted(r, "proven: loop loop ~ loop (by induction"));
  // The induction's steps (the body and the condition, each checked as a program of its own)
  // are in the proof, also as written to a file, and the independent checker re-checks them.
  const proofcheck::ProofCheckReport report = recheck_through_json(ref, dist, r);
  INFO(report.why);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
  CHECK(report.verdict == "equivalent");
}

TEST_CASE("loops: a tampered induction is rejected by the proof checker", "[verify][proof]") {
  const std::string ref = counted_from_data(scan(1));
  const std::string dist = counted_from_data(scan(2, kAllReduce));
  const verify::CheckResult r = check(dist, ref);
  REQUIRE(r.verdict == verify::Verdict::kEquivalent);
  const size_t at = induction_fact(r);
  const auto& proof = *r.derivation[at].control_flow;
  REQUIRE(proof.steps.size() == 2);
  const verify::Mesh& mesh = r.mesh;
  const auto shard1 = verify::Layout::on(mesh, 0, verify::AxisLayout::shard(1));
  struct Tamper {
    std::string what, why;
    std::function<void(verify::ControlFlowProof&, verify::DerivedFact&)> apply;
  };
  const std::vector<Tamper> tampers = {
      {"the body checked on another invariant (the hidden state split by columns)",
       "state element 1 starts in rep, not in the invariant's shard(1,tp)",
       [&](verify::ControlFlowProof& p, verify::DerivedFact&) {
         auto body = *p.steps[0].result;
         body.bijection[1].layout = shard1;
         p.steps[0].result = std::make_shared<const verify::CheckResult>(body);
       }},
      {"a body whose output is claimed in another layout", "body: it gives output 1 in",
       [&](verify::ControlFlowProof& p, verify::DerivedFact&) {
         auto body = *p.steps[0].result;
         body.goals[1].layout = shard1;
         p.steps[0].result = std::make_shared<const verify::CheckResult>(body);
       }},
      {"the condition's step missing", "does not hold the checks of a body and a condition",
       [](verify::ControlFlowProof& p, verify::DerivedFact&) { p.steps.pop_back(); }},
      {"a step's own derivation broken", "body: fact [",
       [](verify::ControlFlowProof& p, verify::DerivedFact&) {
         auto body = *p.steps[0].result;
         // The second dot's partial sums claimed whole (as if the all-reduce were not needed).
         for (verify::DerivedFact& f : body.derivation) {
           if (f.rule == "factor:dot" && f.layout.axes[0].is_partial()) {
             f.layout = verify::Layout::replicated(1);
           }
         }
         p.steps[0].result = std::make_shared<const verify::CheckResult>(body);
       }},
      {"paired with another reference node", "the reference's 'x' are not two `while`s",
       [](verify::ControlFlowProof& p, verify::DerivedFact&) { p.ref_node = "x"; }},
  };
  for (const Tamper& t : tampers) {
    INFO(t.what);
    verify::CheckResult bad = r;
    auto changed = std::make_shared<verify::ControlFlowProof>(proof);
    verify::DerivedFact& fact = bad.derivation[at];
    t.apply(*changed, fact);
    for (verify::DerivedFact& f : bad.derivation) {
      if (f.control_flow) f.control_flow = changed;
    }
    const proofcheck::ProofCheckReport report = test::recheck(ref, dist, bad);
    CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kRejected);
    CHECK_THAT(report.why, Catch::Contains(t.why));
  }
  // Without its steps (a result from before they were kept) the fact is not re-checked.
  verify::CheckResult bare = r;
  for (verify::DerivedFact& f : bare.derivation) f.control_flow.reset();
  const proofcheck::ProofCheckReport report = test::recheck(ref, dist, bare);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kNotCheckable);
  CHECK_THAT(report.why, Catch::Contains("while-induction"));
}

TEST_CASE("loops: a body that does not keep the state's layouts is named, not proven", "[verify]") {
  // Without its all-reduce the body returns a partial sum where the state holds the whole
  // value; another invariant might still hold, so the check is inconclusive, and says where.
  const std::string bug = counted_from_data(scan(2, "  r = f32[4,8] copy(o)"));
  const verify::CheckResult r = check(bug, counted_from_data(scan(1)));
  CHECK(r.verdict == verify::Verdict::kInconclusive);
  CHECK(noted(r,
              "its body does not keep the layouts the state starts in (step.r: the output is "
              "partial(sum,tp)"));
}

/// A gradient-accumulation style loop run 10,000 times (beyond unrolling): acc += x·w, where
/// with 2 ranks x holds columns and w rows, so each step adds a partial sum; `after` is what
/// follows the loop (the all-reduce, or nothing).
std::string accumulate(int ranks, const std::string& after = "") {
  const std::string c = std::to_string(8 / ranks);
  const std::string x = "f32[4," + c + "]", w = "f32[" + c + ",4]";
  const std::string st = "(s32[], f32[4,4], " + x + ", " + w + ")";
  return "HloModule acc" + (ranks > 1 ? ", num_partitions=" + std::to_string(ranks) : "") +
         R"(

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}

body {
  p = )" +
         st + R"( parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[4,4] get-tuple-element(p), index=1
  x = )" +
         x + R"( get-tuple-element(p), index=2
  w = )" +
         w + R"( get-tuple-element(p), index=3
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[4,4] add(acc, d)
  one = s32[] constant(1)
  n = s32[] add(i, one)
  ROOT t = )" +
         st + R"( tuple(n, s, x, w)
}

cond {
  p = )" +
         st + R"( parameter(0)
  i = s32[] get-tuple-element(p), index=0
  steps = s32[] constant(10000)
  ROOT lt = pred[] compare(i, steps), direction=LT
}

ENTRY e {
  x = )" +
         x + R"( parameter(0)
  w = )" +
         w + R"( parameter(1)
  start = s32[] constant(0)
  z = f32[] constant(0)
  zeros = f32[4,4] broadcast(z), dimensions={}
  init = )" +
         st + R"( tuple(start, zeros, x, w)
  loop = )" +
         st + R"( while(init), condition=cond, body=body
  acc = f32[4,4] get-tuple-element(loop), index=1
)" + (after.empty() ? "  r = f32[4,4] copy(acc)\n" : after) +
         R"(  ROOT out = f32[4,4] copy(r)
}
)";
}

TEST_CASE("loops: an accumulator of partial sums keeps that invariant", "[verify]") {
  // The state starts as replicated zeros, which are also a partial sum of zeros: the invariant
  // under which each step adds a partial sum.
  const std::string ref = accumulate(1);
  const verify::CheckResult r = check(
      accumulate(2, "  r = f32[4,4] all-reduce(acc), replica_groups={{0,1}}, to_apply=sum\n"), ref);
  CHECK(r.verdict == verify::Verdict::kEquivalent);
  REQUIRE(r.goals.size() == 1);
  REQUIRE(r.goals[0].layout);
  CHECK(r.goals[0].layout->to_string(r.mesh) == "rep");
  CHECK(noted(r, "proven: loop loop ~ loop (by induction"));
  const auto report = recheck_through_json(
      ref, accumulate(2, "  r = f32[4,4] all-reduce(acc), replica_groups={{0,1}}, to_apply=sum\n"),
      r);
  INFO(report.why);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
  // Without the all-reduce the output is each rank's part, and the result says so.
  const verify::CheckResult parts = check(accumulate(2), ref);
  REQUIRE(parts.goals.size() == 1);
  REQUIRE(parts.goals[0].layout);
  CHECK(parts.goals[0].layout->to_string(parts.mesh) == "partial(sum,tp)");
  CHECK(noted(parts, "is returned as partial(sum,tp)"));
}

TEST_CASE("conditionals: a branch taken by the data is proven branch by branch", "[verify]") {
  auto program = [](int ranks, const std::string& op) {
    const std::string t = "f32[" + std::to_string(4 / ranks) + ",8]";
    return "HloModule c" + (ranks > 1 ? ", num_partitions=" + std::to_string(ranks) : "") +
           "\n\nneg {\n  x = " + t + " parameter(0)\n  ROOT n = " + t +
           " negate(x)\n}\n\nother {\n  y = " + t + " parameter(0)\n  ROOT e = " + t + " " + op +
           "(y)\n}\n\nENTRY e {\n  p = pred[] parameter(0)\n  x = " + t +
           " parameter(1)\n  ROOT c = " + t +
           " conditional(p, x, x), true_computation=neg, false_computation=other\n}\n";
  };
  const verify::CheckResult ok = check(program(2, "exponential"), program(1, "exponential"));
  CHECK(ok.verdict == verify::Verdict::kEquivalent);
  CHECK(noted(ok, "proven: conditional c ~ c (every branch checked"));
  const auto report =
      recheck_through_json(program(1, "exponential"), program(2, "exponential"), ok);
  INFO(report.why);
  CHECK(report.outcome == proofcheck::ProofCheckReport::Outcome::kAccepted);
  CHECK(report.verdict == "equivalent");
  // A branch that computes another value on the reference's operands is a divergence there.
  const verify::CheckResult bug = check(program(2, "tanh"), program(1, "exponential"));
  CHECK(bug.verdict == verify::Verdict::kDivergent);
  REQUIRE(bug.divergence);
  CHECK(bug.divergence->dist_node == "c");
  CHECK_THAT(bug.divergence->reason,
             Catch::StartsWith("its selector and operands are the reference's, but branch 1 is "
                               "not the reference's (step.e:"));
}

TEST_CASE("conditionals: branches that take nothing (an empty tuple) are checked too", "[verify]") {
  auto program = [](int then_value) {
    return "HloModule c\n\nthen {\n  p = () parameter(0)\n  ROOT k = s32[] constant(" +
           std::to_string(then_value) +
           ")\n}\n\nelse {\n  p = () parameter(0)\n  ROOT k = s32[] constant(1)\n}\n\n"
           "ENTRY e {\n  b = pred[] parameter(0)\n  t = () tuple()\n  ROOT c = s32[] "
           "conditional(b, t, t), true_computation=then, false_computation=else\n}\n";
  };
  const verify::CheckResult ok = check(program(0), program(0));
  CHECK(ok.verdict == verify::Verdict::kEquivalent);
  CHECK(noted(ok, "proven: conditional c ~ c (every branch checked"));
  const verify::CheckResult bug = check(program(2), program(0));
  CHECK(bug.verdict == verify::Verdict::kDivergent);
}

TEST_CASE("loops: XLA's windowed einsum unrolls, and its shard ring is not called a bug",
          "[verify][corpus]") {
  // The all-gather loop of a collective matmul: each rank passes its row block around the ring
  // (collective-permute) and writes dot(block, W) at the block's rows. Each rank's row block
  // meets its own column block of W: the product is a block of two dims along one axis, which
  // the checker does not model: inconclusive, naming that dot, never divergent.
  const std::string path =
      test::corpus_dir() + "/xla/tests_extracted/windowed_einsum_AgLoops_post_spmd.hlo";
  const std::string ref = R"(HloModule windowed_einsum_reference
ENTRY e {
  x = bf16[1,2048,24576] parameter(0)
  w = bf16[24576,98304] parameter(1)
  r = bf16[2048,24576] reshape(x)
  ROOT d = bf16[2048,98304] dot(r, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
)";
  const verify::CheckResult r = check(test::read_file(path), ref);
  CHECK(r.verdict == verify::Verdict::kInconclusive);
  CHECK(noted(r, "1 while loop unrolled"));
  CHECK(noted(r, "could not follow while.iter0.dot.2"));
}

}  // namespace scalify
