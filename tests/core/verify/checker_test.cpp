// The checker on the real corpus pairs (positive cases) and on injected bugs (mutations of the
// correct distributed programs): a bug is never called equivalent and is found near the change.
#include <catch2/catch.hpp>
#include <map>
#include <span>

#include "core/verify/check_texts.h"
#include "hlo/reader.h"
#include "support/hlo_mutations.h"
#include "support/two_axis_example.h"
#include "test_support.h"
#include "verify/bijection.h"
#include "verify/binding_search.h"
#include "verify/check.h"
#include "verify/output_alignment.h"

using namespace scalify;
using verify::Verdict;

namespace {

ir::Module read(const std::string& name) {
  auto m = hlo::read_module_file(test::corpus_dir() + "/neuron_torchxla/" + name);
  REQUIRE(m);
  return std::move(*m);
}

verify::CheckResult check(const ir::Module& ref, const ir::Module& dist) {
  auto r = verify::check(ref, dist, {});
  REQUIRE(r);
  return std::move(*r);
}

bool all_proven(const verify::CheckResult& r) {
  if (r.goals.empty()) return false;
  for (const auto& g : r.goals) {
    if (!g.proven || g.proof.empty()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("linear3 single vs Megatron SPMD: equivalent, padded shards gathered and trimmed",
          "[verify]") {
  const auto r = check(read("linear3_fwd_single.hlo"), read("linear3_fwd_spmd_megatron.hlo"));
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));
  CHECK(r.mesh.to_string() == "tp=2");
  bool padded = false;
  for (const auto& b : r.bijection)
    padded = padded || b.layout.to_string(r.mesh) == "shard(0,tp,pad 5)";
  CHECK(padded);
}

TEST_CASE("LLaMA-7B layer tp1 vs tp2: equivalent, vocab-sharded logits and sharded KV caches",
          "[verify]") {
  const auto r =
      check(read("llama7b_1layer_decode_tp1.hlo"), read("llama7b_1layer_decode_tp2.hlo"));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));
  REQUIRE(r.goals.size() == 3);
  CHECK(r.goals[0].layout->to_string(r.mesh) == "shard(0,tp)");
  CHECK(r.goals[1].layout->to_string(r.mesh) == "shard(2,tp)");
  CHECK(r.assumptions.empty());
}

TEST_CASE("GPT-2 tp1 vs tp2: equivalent only under the partial(sum) bias contract, stated",
          "[verify]") {
  const auto r = check(read("gpt2_decode_tp1.hlo"), read("gpt2_decode_tp2.hlo"));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));
  std::map<std::string, std::string> assumed;
  for (const auto& a : r.assumptions) assumed[a.dist] = a.layout.to_string(r.mesh);
  CHECK(assumed["p16.30"] == "partial(sum,tp)");
  CHECK(assumed["p22.36"] == "partial(sum,tp)");
  CHECK(r.goals[0].layout->to_string(r.mesh) == "shard(0,tp,pad 50257)");
}

TEST_CASE("LLaMA-7B tp8: 4 heads over 8 ranks, equivalent only if the padding summed over is zero",
          "[verify]") {
  const auto r =
      check(read("llama7b_1layer_decode_tp1.hlo"), read("llama7b_1layer_decode_tp8.hlo"));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));
  REQUIRE(r.assumptions.size() == 1);
  CHECK(r.assumptions[0].dist == "p10.31");  // o_proj: its padded rows meet the padded heads
  CHECK(r.assumptions[0].layout.to_string(r.mesh) == "shard(1,tp,pad 4096,zeros)");
  CHECK(r.goals[1].layout->to_string(r.mesh) == "shard(2,tp,pad 4)");
}

TEST_CASE(
    "MNIST data parallel: equivalent if every rank counts as many labels, loss a partial mean",
    "[verify]") {
  const auto r = check(read("mnist_mlp_train_single.hlo"), read("mnist_mlp_train_dp.hlo"));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));
  // The outputs are aligned by shape: the reference also returns its labels, the data-parallel
  // program does not.
  CHECK(r.unmatched_ref_outputs == std::vector<std::string>{"tuple.141#3"});
  REQUIRE(r.goals.size() == 7);
  CHECK(r.goals[4].ref == "tuple.141#5");
  CHECK(r.goals[4].dist == "tuple.162#4");
  CHECK(r.goals[4].layout->to_string(r.mesh) == "partial(mean,tp)");  // each rank's own mean
  CHECK(r.goals[0].layout->to_string(r.mesh) == "rep");               // the SGD update
  std::string assumed;
  for (const auto& a : r.assumptions) assumed += a.dist + ": " + a.why + "\n";
  CHECK_THAT(assumed, Catch::Contains("reduce.63: the partial sum 'reduce.63' is the same on every "
                                      "rank of tp"));
  CHECK_THAT(assumed, Catch::Contains("reduce.61: the reference's 'reduce.61' is not 0"));
}

TEST_CASE("a mean over unequal shards is not proven without the balanced-count assumption",
          "[verify]") {
  // The local mean of each rank, all-reduced and halved, is the global mean only if the ranks
  // count alike: with the assumption off the check must not prove it.
  const ir::Module ref = read("mnist_mlp_train_single.hlo"), dist = read("mnist_mlp_train_dp.hlo");
  const verify::Mesh mesh = *verify::Mesh::parse("tp=2");
  const auto bindings = verify::best_bindings(verify::infer_bijection(ref, dist, mesh));
  const auto outputs = verify::infer_output_bindings(ref, dist, mesh);
  verify::CheckOptions plain;
  CHECK(verify::check_under(ref, dist, mesh, bindings, plain, outputs).verdict ==
        Verdict::kDivergent);
  verify::CheckOptions balanced;
  balanced.balanced_partials = true;
  CHECK(verify::check_under(ref, dist, mesh, bindings, balanced, outputs).verdict ==
        Verdict::kEquivalent);
}

/// A training step of a classifier head over a batch of `batch` (ReLU, then a linear layer,
/// log-softmax and a cross entropy weighted by `y`, averaged over the batch's weight), returning
/// the updated weight and the hidden layer's gradient times the rate. `data_parallel`: one
/// rank's program, which averages over its own shard, all-reduces the gradients and halves
/// them (torch-xla's data parallelism over two ranks). `average` is that halving's constant.
std::string training_step(int batch, bool data_parallel, const std::string& average = "0.5") {
  const std::string b = std::to_string(batch);
  std::string t =
      "HloModule step\nsum {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
      "  ROOT s = f32[] add(a, b)\n}\nENTRY step {\n";
  auto line = [&](const std::string& l) { t += "  " + l + "\n"; };
  line("h = f32[" + b + ",2] parameter(0)");
  line("w = f32[2,3] parameter(1)");
  line("y = f32[" + b + ",3] parameter(2)");
  line("lr = f32[] parameter(3)");
  line("zero = f32[] constant(0)");
  line("one = f32[] constant(1)");
  line("zeros_h = f32[" + b + ",2] broadcast(zero), dimensions={}");
  line("act = f32[" + b + ",2] maximum(h, zeros_h)");
  line("logits = f32[" + b + ",3] dot(act, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  line("e = f32[" + b + ",3] exponential(logits)");
  line("se = f32[" + b + "] reduce(e, zero), dimensions={1}, to_apply=sum");
  line("lse = f32[" + b + "] log(se)");
  line("lse_b = f32[" + b + ",3] broadcast(lse), dimensions={0}");
  line("logsm = f32[" + b + ",3] subtract(logits, lse_b)");
  // The loss's gradient: -y over the (shard's) total weight, guarded against 0 as torch does.
  line("count = f32[] reduce(y, zero), dimensions={0,1}, to_apply=sum");
  line("nonzero = pred[] compare(count, zero), direction=NE");
  line("divisor = f32[] select(nonzero, count, one)");
  line("divisor_b = f32[" + b + ",3] broadcast(divisor), dimensions={}");
  line("ny = f32[" + b + ",3] negate(y)");
  line("g = f32[" + b + ",3] divide(ny, divisor_b)");
  // Log-softmax's backward pass, the weight's gradient, ReLU's backward pass.
  line("gsum = f32[" + b + "] reduce(g, zero), dimensions={1}, to_apply=sum");
  line("gsum_b = f32[" + b + ",3] broadcast(gsum), dimensions={0}");
  line("p = f32[" + b + ",3] exponential(logsm)");
  line("pg = f32[" + b + ",3] multiply(p, gsum_b)");
  line("gl = f32[" + b + ",3] subtract(g, pg)");
  line("gw = f32[2,3] dot(act, gl), lhs_contracting_dims={0}, rhs_contracting_dims={0}");
  line("gh = f32[" + b + ",2] dot(gl, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}");
  line("positive = pred[" + b + ",2] compare(h, zeros_h), direction=GT");
  line("gh2 = f32[" + b + ",2] select(positive, gh, zeros_h)");
  line("gb = f32[2] reduce(gh2, zero), dimensions={0}, to_apply=sum");
  std::string gw = "gw", gb = "gb";
  if (data_parallel) {
    line("gw_all = f32[2,3] all-reduce(gw), replica_groups={{0,1}}, to_apply=sum");
    line("gb_all = f32[2] all-reduce(gb), replica_groups={{0,1}}, to_apply=sum");
    line("average = f32[] constant(" + average + ")");
    line("rate = f32[] multiply(lr, average)");
    gw = "gw_all";
    gb = "gb_all";
  } else {
    line("rate = f32[] copy(lr)");
  }
  line("rate_w = f32[2,3] broadcast(rate), dimensions={}");
  line("step_w = f32[2,3] multiply(" + gw + ", rate_w)");
  line("w_new = f32[2,3] subtract(w, step_w)");
  line("rate_b = f32[2] broadcast(rate), dimensions={}");
  line("step_b = f32[2] multiply(" + gb + ", rate_b)");
  line("ROOT out = (f32[2,3], f32[2]) tuple(w_new, step_b)");
  return t + "}\n";
}

TEST_CASE(
    "a shard-averaged gradient through log-softmax and ReLU is proven under the balanced "
    "count, and a missing average is not",
    "[verify]") {
  // Each rank divides its gradient by its own shard's weight, twice the reference's per-item
  // gradient when the shards weigh alike; the scale must be followed through log-softmax's and
  // ReLU's backward passes (broadcast-scaled, select-scaled-then) to the halving after the
  // all-reduce.
  const ir::Module ref = test::parse_module(training_step(4, false), "ref.hlo");
  const ir::Module dist = test::parse_module(training_step(2, true), "dist.hlo");
  const auto r = check(ref, dist);
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(std::all_of(r.goals.begin(), r.goals.end(), [](const auto& g) { return g.proven; }));
  std::string assumed;
  for (const auto& a : r.assumptions) assumed += a.dist + ": " + a.why + "\n";
  CHECK_THAT(assumed, Catch::Contains("count: the partial sum 'count' is the same on every rank"));
  // Summing the ranks' gradients without halving them doubles the step.
  const ir::Module summed = test::parse_module(training_step(2, true, "1"), "dist.hlo");
  const auto s = check(ref, summed);
  CHECK(s.verdict == Verdict::kDivergent);
  REQUIRE(s.divergence);
  CHECK(s.divergence->dist_node == "step_w");
}

TEST_CASE("the bijection search tries the parameters nearest a divergence first", "[verify]") {
  // GPT-2 tp2 needs two loader contracts, found one divergence after the other (each bias added
  // before its all-reduce is a partial sum): the bias feeding the divergent add is the nearest
  // parameter, and is tried before the weights behind the dot.
  const ir::Module ref = read("gpt2_decode_tp1.hlo"), dist = read("gpt2_decode_tp2.hlo");
  for (size_t attempts : {3, 24}) {
    verify::CheckRequest request;
    request.max_attempts = attempts;
    auto r = verify::check(ref, dist, request);
    REQUIRE(r);
    CHECK(r->verdict == Verdict::kEquivalent);
  }
}

TEST_CASE("MNIST data parallel in bf16: rules that broadcast a number keep its type open",
          "[verify]") {
  // The corpus pair with every f32 written bf16. A rule's right-hand side that broadcasts a
  // number (a scalar constant, whose element type is its users') once typed the broadcast f32,
  // which set it against the bf16 value it was equated with: a refused, "unsound" union that
  // stopped the check and called this pair divergent.
  auto in_bf16 = [](const std::string& name) {
    std::string text = test::read_file(test::corpus_dir() + "/neuron_torchxla/" + name);
    for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at)) {
      text.replace(at, 3, "bf16");
    }
    return test::parse_module(text, name);
  };
  const auto r = check(in_bf16("mnist_mlp_train_single.hlo"), in_bf16("mnist_mlp_train_dp.hlo"));
  CHECK(r.verdict == Verdict::kEquivalent);
  for (const std::string& n : r.notes) CHECK_THAT(n, !Catch::Contains("tried to merge"));
}

TEST_CASE("BERT fwd+bwd tp1 vs tp2: equivalent, one head per rank, dropout by assumption",
          "[verify]") {
  // Each rank holds one of the two heads and drops the head dim from its shapes: its scores,
  // context and their gradients are dots read block by block; the attention dropout draws each
  // rank's block of the reference's random values, which only an assumption says.
  const auto r = check(read("bert_pretrain_fwdbwd_tp1.hlo"), read("bert_pretrain_fwdbwd_tp2.hlo"));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  CHECK(r.goals.size() == 35);
  CHECK(std::all_of(r.goals.begin(), r.goals.end(), [](const auto& g) { return g.proven; }));
  // torch-xla's scalar riding along the tuple all-reduce has no counterpart, and says so.
  CHECK(r.unmatched_dist_parameters == std::vector<std::string>{"p18.297"});
  size_t blocks = 0;
  for (const auto& a : r.assumptions) {
    CHECK_THAT(a.why, Catch::StartsWith("random: assumed to draw"));
    if (!a.layout.is_rep()) ++blocks;
  }
  CHECK(r.assumptions.size() == 4);
  CHECK(blocks == 1);
}

TEST_CASE("a distributed program checked against itself on one device is equivalent", "[verify]") {
  const ir::Module ref = read("llama7b_1layer_decode_tp1.hlo");
  verify::CheckRequest request;
  request.mesh = verify::Mesh();
  auto r = verify::check(ref, ref, request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
}

TEST_CASE("a missing all-reduce is reported at the first non-linear use with its reason",
          "[verify]") {
  const ir::Module ref = read("llama7b_1layer_decode_tp1.hlo");
  const ir::Module dist = read("llama7b_1layer_decode_tp2.hlo");
  const auto sites = test::mutation_sites(dist, test::MutationKind::kDropCollective);
  REQUIRE(!sites.empty());
  auto mutant = test::apply_mutation(dist, sites.front());
  REQUIRE(mutant);
  const auto r = check(ref, mutant->module);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  const auto& near = mutant->mutation.near;
  CHECK(std::find(near.begin(), near.end(), r.divergence->dist_node) != near.end());
  CHECK_THAT(r.divergence->reason, Catch::Contains("partial(sum,tp)"));
}

TEST_CASE("a partial sum used where a value is needed is traced back to where it begins",
          "[verify]") {
  // MNIST data parallel without its gradients' all-reduce: the SGD update adds the rank's own
  // gradient (a partial sum over the batch shards) to the replicated weight. The report names
  // that add and the dot over the batch where the partial sum begins, through the tuple that
  // stands in for the all-reduce and the get-tuple-element that reads it.
  const ir::Module ref = read("mnist_mlp_train_single.hlo");
  const ir::Module dist = read("mnist_mlp_train_dp.hlo");
  std::optional<test::Mutant> mutant;
  for (const auto& site : test::mutation_sites(dist, test::MutationKind::kDropCollective)) {
    auto m = test::apply_mutation(dist, site);
    if (m && m->mutation.description.find("%all-reduce.105") != std::string::npos) mutant = m;
  }
  REQUIRE(mutant);
  const auto r = check(ref, mutant->module);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == "add.116");
  CHECK(r.divergence->origin_node == "dot");
  CHECK_THAT(r.divergence->reason, Catch::Contains("counted 2 times"));
  CHECK_THAT(r.divergence->reason,
             Catch::Contains("the partial sum begins at 'dot' (`dot`) and is not all-reduced "
                             "over tp on the way here"));
  const ir::Instruction& origin = dist.entry()[*dist.entry().find("dot")];
  CHECK(origin.opcode == ir::Opcode::kDot);

  // Used where it begins (tanh of the row-parallel dot, the all-reduce left out), the reason
  // names the dot as the operand already and adds no trace.
  const verify::CheckResult at_origin = test::check_texts(R"(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,6] tanh(d)
}
)",
                                                          test::kDotTanhRef);
  REQUIRE(at_origin.divergence);
  CHECK(at_origin.divergence->dist_node == "t");
  CHECK_THAT(at_origin.divergence->reason, Catch::Contains("is not linear"));
  CHECK_THAT(at_origin.divergence->reason, !Catch::Contains("begins at"));
  CHECK(at_origin.divergence->origin_node.empty());
}

namespace {

/// What the checker made of a pair's mutants: how many, how many divergent, how many at a node
/// within one def-use hop of the change, and the others described.
struct MutantTally {
  size_t total = 0, found = 0, near = 0;
  std::string misses;
};

/// Checks every mutant of `dist` of the given kinds against `ref`: never equivalent (soundness).
MutantTally check_mutants(const char* ref_name, const char* dist_name,
                          std::span<const test::MutationKind> kinds) {
  MutantTally t;
  const ir::Module ref = read(ref_name), dist = read(dist_name);
  for (test::MutationKind kind : kinds) {
    for (const auto& site : test::mutation_sites(dist, kind)) {
      auto mutant = test::apply_mutation(dist, site);
      if (!mutant || mutant->mutation.only_feeds_rng) continue;
      const auto r = check(ref, mutant->module);
      ++t.total;
      INFO(dist_name << ": " << mutant->mutation.description);
      CHECK(r.verdict != Verdict::kEquivalent);  // soundness: never equivalent
      const auto& near = mutant->mutation.near;
      if (r.verdict == Verdict::kDivergent) {
        ++t.found;
        if (std::find(near.begin(), near.end(), r.divergence->dist_node) != near.end()) {
          ++t.near;
          continue;
        }
      }
      t.misses += std::string("\n  ") + mutant->mutation.description + " -> " +
                  std::string(verify::verdict_name(r.verdict)) +
                  (r.divergence ? " at " + r.divergence->dist_node : std::string());
    }
  }
  return t;
}

/// Every injected bug in `dist_name`'s mutants of these kinds is found, and nearly always
/// within one def-use hop of the change.
void require_found_near(const char* ref_name, const char* dist_name,
                        std::span<const test::MutationKind> kinds = test::kAllMutationKinds) {
  const MutantTally t = check_mutants(ref_name, dist_name, kinds);
  WARN(dist_name << ": mutants " << t.total << ", divergent " << t.found << ", within one hop "
                 << t.near << (t.misses.empty() ? "" : "\nthe others:") << t.misses);
  CHECK(t.total > 10);
  CHECK(t.found == t.total);
  CHECK(t.near * 100 >= t.total * 95);
}

}  // namespace

// Injected bugs: every site of the eleven mutation kinds in the correct distributed programs, one
// test case a pair (BERT's in three by kind), so that ctest runs them side by side.
TEST_CASE("injected bugs in LLaMA tp2 are never equivalent and are found near the change",
          "[verify][mutations]") {
  require_found_near("llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp2.hlo");
}

TEST_CASE("injected bugs in LLaMA tp8 are never equivalent and are found near the change",
          "[verify][mutations]") {
  require_found_near("llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp8.hlo");
}

TEST_CASE("injected bugs in GPT-2 tp2 are never equivalent and are found near the change",
          "[verify][mutations]") {
  require_found_near("gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo");
}

TEST_CASE("injected bugs in linear3 and MNIST are never equivalent and are found near the change",
          "[verify][mutations]") {
  for (const auto& [ref, dist] :
       {std::pair{"linear3_fwd_single.hlo", "linear3_fwd_spmd_megatron.hlo"},
        std::pair{"mnist_mlp_train_single.hlo", "mnist_mlp_train_dp.hlo"}}) {
    require_found_near(ref, dist);
  }
}

// BERT's, the most, in three groups of kinds.
TEST_CASE(
    "injected bugs in BERT's collectives, operands, constants, slices, concatenations, "
    "transposes and shards are never equivalent and are found near the change",
    "[verify][mutations]") {
  using K = test::MutationKind;
  const K kinds[] = {K::kDropCollective,   K::kSingletonGroups, K::kSwapOperands,
                     K::kChangeConstant,   K::kShiftSlice,      K::kSwapConcatenate,
                     K::kPermuteTranspose, K::kWrongShardDim};
  require_found_near("bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo", kinds);
}

TEST_CASE(
    "injected bugs in BERT's elementwise ops are never equivalent and are found near the "
    "change",
    "[verify][mutations]") {
  const test::MutationKind kinds[] = {test::MutationKind::kChangeOpcode};
  require_found_near("bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo", kinds);
}

TEST_CASE(
    "injected bugs in BERT's dropped ops and compares are never equivalent and are found "
    "near the change",
    "[verify][mutations]") {
  const test::MutationKind kinds[] = {test::MutationKind::kDropOp,
                                      test::MutationKind::kFlipCompare};
  require_found_near("bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo", kinds);
}

TEST_CASE("a gradient's mean factor misapplied is found where it scales, not at the factor",
          "[verify][mutations]") {
  // MNIST's data-parallel gradients are summed over both ranks and then scaled by 1/2
  // (multiply.113: the summed gradient times broadcast(0.5)). The 0.5 is no reference value,
  // yet it is right: with the multiply turned into a divide, the divide is to blame. (The bug
  // injector leaves ops on a broadcast constant alone, so the edit is made here.)
  std::string text =
      test::read_file(test::corpus_dir() + "/neuron_torchxla/mnist_mlp_train_dp.hlo");
  const std::string op = "%multiply.113 = f32[10,784]{1,0} multiply(";
  const size_t at = text.find(op);
  REQUIRE(at != std::string::npos);
  text.replace(at, op.size(), "%multiply.113 = f32[10,784]{1,0} divide(");
  const auto r = check(read("mnist_mlp_train_single.hlo"), test::parse_module(text, "dp.hlo"));
  REQUIRE(r.verdict == Verdict::kDivergent);
  CHECK(r.divergence->dist_node == "multiply.113");
  CHECK_THAT(r.divergence->reason, Catch::Contains("`divide` of them"));
}

TEST_CASE("a mean's divide swapped, changed or dropped is found at the divide, not the guard",
          "[verify][mutations]") {
  // MNIST's loss gradient divides by the rank's count, guarded as select(count != 0, count, 1).
  // With the divide wrong the count is no divisor, yet its guard still marks it a count: the
  // balanced-count assumption then carries the check past the guard to the divide.
  const ir::Module ref = read("mnist_mlp_train_single.hlo"), dist = read("mnist_mlp_train_dp.hlo");
  size_t seen = 0;
  for (auto kind : {test::MutationKind::kSwapOperands, test::MutationKind::kChangeOpcode,
                    test::MutationKind::kDropOp}) {
    for (const auto& site : test::mutation_sites(dist, kind)) {
      if (site.node != "divide.69") continue;
      ++seen;
      auto mutant = test::apply_mutation(dist, site);
      REQUIRE(mutant);
      const auto r = check(ref, mutant->module);
      INFO(site.description);
      REQUIRE(r.verdict == Verdict::kDivergent);
      CHECK(std::find(site.near.begin(), site.near.end(), r.divergence->dist_node) !=
            site.near.end());
      CHECK(r.divergence->dist_node != "compare.65");
    }
  }
  CHECK(seen == 3);
}

TEST_CASE("an inverted mask or guard is reported at its compare, naming the direction",
          "[verify][mutations]") {
  const ir::Module ref = read("gpt2_decode_tp1.hlo"), dist = read("gpt2_decode_tp2.hlo");
  const auto sites = test::mutation_sites(dist, test::MutationKind::kFlipCompare);
  REQUIRE(sites.size() == 3);
  for (const auto& site : sites) {
    auto mutant = test::apply_mutation(dist, site);
    REQUIRE(mutant);
    const auto r = check(ref, mutant->module);
    INFO(site.description);
    REQUIRE(r.verdict == Verdict::kDivergent);
    CHECK(r.divergence->dist_node == site.node);
    CHECK_THAT(r.divergence->reason, Catch::Contains("its `direction` is"));
    CHECK_THAT(r.divergence->reason, Catch::Contains("where the reference's is"));
  }
}

namespace {

constexpr const char* kRefactorRef = R"hlo(HloModule r
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  s = f32[2,3] add(a, b)
  t = f32[3,2] transpose(s), dimensions={1,0}
  c = f32[] constant(2)
  cb = f32[3,2] broadcast(c), dimensions={}
  ROOT m = f32[3,2] multiply(t, cb)
}
)hlo";

}  // namespace

TEST_CASE("mesh of one device: a refactoring is proved by the rewrite rules alone", "[verify]") {
  // The transposes moved before the sum, the operands of both ops swapped.
  const ir::Module ref = test::parse_module(kRefactorRef);
  std::string text = R"hlo(HloModule d
ENTRY e {
  a = f32[2,3] parameter(0)
  b = f32[2,3] parameter(1)
  ta = f32[3,2] transpose(a), dimensions={1,0}
  tb = f32[3,2] transpose(b), dimensions={1,0}
  c = f32[] constant(2)
  cb = f32[3,2] broadcast(c), dimensions={}
  s = f32[3,2] add(tb, ta)
  ROOT m = f32[3,2] multiply(cb, s)
}
)hlo";
  const auto r = check(ref, test::parse_module(text.c_str()));
  CHECK(r.mesh.rank() == 0);
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));

  // The same with a changed constant is not.
  text.replace(text.find("constant(2)"), 11, "constant(3)");
  const ir::Module bug = test::parse_module(text.c_str());
  const auto b = check(ref, bug);
  CHECK(b.verdict == Verdict::kDivergent);
}

TEST_CASE("integer division is not multiplication by a reciprocal", "[verify]") {
  // (i / 2) * 2 is i in real arithmetic, but in s32 it rounds i down to even: a rule that reads
  // a division by c as a product with 1/c holds for floating point only.
  const auto program = [](const std::string& type, bool rounded) {
    std::string text = "HloModule m\nENTRY e {\n  x = f32[8] parameter(0)\n  i = " + type +
                       "[8] iota(), iota_dimension=0\n";
    std::string value = "i";
    if (rounded) {
      text += "  two = " + type + "[] constant(2)\n  b2 = " + type +
              "[8] broadcast(two), dimensions={}\n  d = " + type +
              "[8] divide(i, b2)\n  m = " + type + "[8] multiply(d, b2)\n";
      value = "m";
    }
    return text + "  f = f32[8] convert(" + value + ")\n  ROOT o = f32[8] add(x, f)\n}\n";
  };
  const auto verdict = [&](const std::string& type) {
    return check(test::parse_module(program(type, true)), test::parse_module(program(type, false)))
        .verdict;
  };
  CHECK(verdict("f32") == Verdict::kEquivalent);
  CHECK(verdict("s32") == Verdict::kDivergent);
  CHECK(verdict("u8") == Verdict::kDivergent);
}

TEST_CASE("random ops relate only under a stated assumption", "[verify]") {
  const ir::Module bert = read("bert_pretrain_fwdbwd_tp1.hlo");
  verify::CheckRequest request;
  request.mesh = verify::Mesh();
  auto r = verify::check(bert, bert, request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  size_t random = 0;
  for (const auto& a : r->assumptions) random += a.why.starts_with("random:") ? 1 : 0;
  CHECK(random >= 1);
}

TEST_CASE("what the checker does not model makes the check inconclusive, not divergent",
          "[verify]") {
  const ir::Module ref = test::parse_module(R"hlo(HloModule r
ENTRY e {
  a = f32[4,4] parameter(0)
  ROOT n = f32[4,4] negate(a)
}
)hlo");
  // A custom call the checker does not know, on a sharded value: it may do anything.
  const ir::Module dist = test::parse_module(R"hlo(HloModule d, num_partitions=2
ENTRY e {
  a = f32[2,4] parameter(0)
  t = f32[2,4] custom-call(a), custom_call_target="MysteryKernel"
  ROOT n = f32[2,4] negate(t)
}
)hlo");
  const auto r = check(ref, dist);
  CHECK(r.verdict == Verdict::kInconclusive);
  CHECK(!r.divergence);
  bool said = false;
  for (const auto& n : r.notes) said = said || n.find("could not follow t") != std::string::npos;
  CHECK(said);
}

namespace {

/// GSPMD's reshard of a row-sharded [8,4] to a column-sharded one: the columns cut into
/// (ranks, chunk), an all-to-all along the ranks' dim, the received row blocks put back in
/// front of the rows.
std::string all_to_all_reshard(const std::string& exchanged_dim, const std::string& order) {
  // (`order`: the transpose that puts the received row blocks first)
  return R"hlo(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,4] parameter(0), sharding={devices=[2,1]0,1}
  r = f32[4,2,2] reshape(x)
  a = f32[4,2,2] all-to-all(r), replica_groups={{0,1}}, dimensions={)hlo" +
         exchanged_dim + R"hlo(}
  t = f32[2,4,2] transpose(a), dimensions={)hlo" +
         order + R"hlo(}
  y = f32[8,2] reshape(t)
  ROOT m = f32[8,2] multiply(y, y)
}
)hlo";
}

constexpr const char* kSquare = R"hlo(HloModule r
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT m = f32[8,4] multiply(x, x)
}
)hlo";

}  // namespace

TEST_CASE("all-to-all moves a shard to another dim", "[verify]") {
  const ir::Module ref = test::parse_module(kSquare);
  const auto r = check(ref, test::parse_module(all_to_all_reshard("1", "1,0,2")));
  INFO((r.divergence ? r.divergence->dist_node + ": " + r.divergence->reason : ""));
  REQUIRE(r.verdict == Verdict::kEquivalent);
  REQUIRE(r.goals.size() == 1);
  CHECK(r.goals[0].layout->to_string(r.mesh) == "shard(1,tp)");
  // Exchanging along another dim is no reshard: each rank then holds pieces of several column
  // blocks, or rows in another order.
  for (const char* dim : {"0", "2"}) {
    INFO("dimensions={" << dim << "}");
    CHECK(check(ref, test::parse_module(all_to_all_reshard(dim, "1,0,2"))).verdict !=
          Verdict::kEquivalent);
  }
  // A bare all-to-all of a row shard: no layout of the reference output, never equivalent.
  const ir::Module bare = test::parse_module(R"hlo(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,4] parameter(0)
  a = f32[4,4] all-to-all(x), replica_groups={{0,1}}, dimensions={1}
  ROOT m = f32[4,4] multiply(a, a)
}
)hlo");
  CHECK(check(ref, bare).verdict != Verdict::kEquivalent);
}

TEST_CASE("a divergence carries the node's op_name and source line from the metadata", "[verify]") {
  const ir::Module ref = read("linear3_fwd_single.hlo");
  const ir::Module dist = read("linear3_fwd_spmd_megatron.hlo");
  const auto sites = test::mutation_sites(dist, test::MutationKind::kShiftSlice);
  REQUIRE(!sites.empty());
  auto mutant = test::apply_mutation(dist, sites.front());
  REQUIRE(mutant);
  const auto r = check(ref, mutant->module);
  REQUIRE(r.verdict == Verdict::kDivergent);
  REQUIRE(r.divergence);
  const ir::Computation& entry = mutant->module.entry();
  const auto node = entry.find(r.divergence->dist_node);
  REQUIRE(node);
  const ir::Metadata& md = entry[*node].metadata;
  REQUIRE(md.has_source_site());  // the slice's metadata, as torch-xla wrote it
  REQUIRE(r.divergence->source);
  CHECK(r.divergence->source->file == md.source_file);
  CHECK(r.divergence->source->line == md.source_line);
  CHECK(r.divergence->op_name == md.op_name);
  CHECK(r.divergence->dist_line > 0);
  CHECK(!r.divergence->ref_node.empty());
}

TEST_CASE("two mesh axes: layouts compose, and an all-reduce over the wrong axis is caught",
          "[verify]") {
  const ir::Module ref = test::parse_module(test::kTwoAxisRef);
  // Batch over dp, the contraction over tp, summed over tp.
  std::string text = test::kTwoAxisDist;
  verify::CheckRequest request;
  request.mesh = *verify::Mesh::parse("dp=2,tp=4");
  auto r = verify::check(ref, test::parse_module(text.c_str()), request);
  REQUIRE(r);
  CHECK(r->verdict == Verdict::kEquivalent);
  REQUIRE(r->goals.size() == 1);
  CHECK(r->goals[0].layout->to_string(r->mesh) == "shard(0,dp)");

  // Summed over dp instead: the partial sums over tp are never combined. (With two axes of
  // the same size this would be the same program with the axes renamed, and correct.)
  const std::string groups = test::kTwoAxisTpGroups;
  text.replace(text.find(groups), groups.size(), test::kTwoAxisDpGroups);
  auto bug = verify::check(ref, test::parse_module(text.c_str()), request);
  REQUIRE(bug);
  CHECK(bug->verdict == Verdict::kDivergent);
  REQUIRE(bug->divergence);
  CHECK(bug->divergence->dist_node == "y");
}

TEST_CASE("dynamic-slice by partition-id takes each rank's shard of a replicated value",
          "[verify]") {
  const ir::Module ref = test::parse_module(R"hlo(HloModule r
ENTRY e {
  x = f32[8,4] parameter(0)
  ROOT n = f32[8,4] negate(x)
}
)hlo");
  // As XLA's SPMD partitioner writes it: the offset looked up in a table by partition-id.
  std::string text = R"hlo(HloModule d, num_partitions=2
ENTRY e {
  x = f32[8,4] parameter(0)
  pid = u32[] partition-id()
  table = s32[2] constant({0, 4})
  off = s32[1] dynamic-slice(table, pid), dynamic_slice_sizes={1}
  o = s32[] reshape(off)
  zero = s32[] constant(0)
  s = f32[4,4] dynamic-slice(x, o, zero), dynamic_slice_sizes={4,4}
  n = f32[4,4] negate(s)
  ROOT g = f32[8,4] all-gather(n), replica_groups={{0,1}}, dimensions={0}
}
)hlo";
  const auto r = check(ref, test::parse_module(text.c_str()));
  CHECK(r.verdict == Verdict::kEquivalent);
  CHECK(all_proven(r));

  // The table reversed: rank 0 takes the second half, and the gather stacks them backwards.
  text.replace(text.find("{0, 4}"), 6, "{4, 0}");
  const auto bug = check(ref, test::parse_module(text.c_str()));
  REQUIRE(bug.verdict == Verdict::kDivergent);
  CHECK(bug.divergence->dist_node == "s");
  CHECK_THAT(bug.divergence->reason, Catch::Contains("4, 0 by device"));

  // replica-id is 0 on every device of a partitioned program: every rank takes the first half.
  text.replace(text.find("{4, 0}"), 6, "{0, 4}");
  text.replace(text.find("partition-id()"), 14, "replica-id()");
  const auto replica = check(ref, test::parse_module(text.c_str()));
  REQUIRE(replica.verdict == Verdict::kDivergent);
  CHECK_THAT(replica.divergence->reason, Catch::Contains("0, 0 by device"));
}

TEST_CASE("a weight stored transposed and sharded is bound through a transpose", "[verify]") {
  // The reference multiplies by w [8,6]; each rank holds its half of wᵀ, [3,8], and contracts
  // its dim 1: the column-parallel layer of a framework that stores weights [out, in].
  const ir::Module ref = test::parse_module(R"(HloModule r
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,6] parameter(1)
  d = f32[4,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[4,6] tanh(d)
}
)");
  auto dist = [](const char* activation) {
    return test::parse_module(std::string(R"(HloModule d, num_partitions=2
ENTRY e {
  x = f32[4,8] parameter(0)
  wt = f32[3,8] parameter(1)
  d = f32[4,3] dot(x, wt), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  t = f32[4,3] )") + activation +
                              R"((d)
  ROOT g = f32[4,6] all-gather(t), dimensions={1}, replica_groups={{0,1}}
}
)");
  };
  const auto ok = check(ref, dist("tanh"));
  CHECK(ok.verdict == Verdict::kEquivalent);
  REQUIRE(ok.bijection.size() == 2);
  CHECK(ok.bijection[1].ref == "w");
  CHECK_THAT(ok.bijection[1].why, Catch::Contains("dims permuted {1,0}"));
  const auto bug = check(ref, dist("exponential"));
  REQUIRE(bug.verdict == Verdict::kDivergent);
  CHECK(bug.divergence->dist_node == "t");
}
