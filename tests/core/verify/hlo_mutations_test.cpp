// The bug injector of the checker's tests (tests/support/hlo_mutations.h): every kind has sites
// in the Neuron corpus, every mutant type-checks, differs from its original only within one
// def-use hop of its node, and (where the interpreter can tell) computes other numbers.
#include "support/hlo_mutations.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/random_values.h"
#include "hlo/printer.h"
#include "hlo/reader.h"
#include "test_support.h"

namespace scalify::test {
namespace {

const std::vector<std::string> kCorpusFiles = {
    "llama7b_1layer_decode_tp2.hlo", "gpt2_decode_tp2.hlo", "bert_pretrain_fwdbwd_tp2.hlo",
    "linear3_fwd_spmd_megatron.hlo"};

/// A module of neuron_torchxla/, read once.
const ir::Module& corpus_module(const std::string& file) {
  static std::map<std::string, ir::Module> cache;
  auto it = cache.find(file);
  if (it == cache.end()) {
    auto m = hlo::read_module_file(corpus_dir() + "/neuron_torchxla/" + file);
    if (!m) FAIL(m.error().format());
    it = cache.emplace(file, std::move(*m)).first;
  }
  return it->second;
}

ir::Module read(const std::string& text) {
  auto m = hlo::read_module(text, "t.hlo");
  if (!m) FAIL(m.error().format());
  return std::move(*m);
}

/// The ENTRY instruction named `name` (which must exist).
const ir::Instruction& instr(const ir::Module& m, const std::string& name) {
  std::optional<ir::InstrId> id = m.entry().find(name);
  INFO("instruction " << name);
  REQUIRE(id);
  return m.entry()[*id];
}

bool has(const ir::Module& m, const std::string& name) { return m.entry().find(name).has_value(); }

/// The printed ENTRY line of `name` in `m` ("" if there is none).
std::string line_of(const ir::Module& m, const std::string& name) {
  std::optional<ir::InstrId> id = m.entry().find(name);
  return id ? hlo::print_instruction(m.entry(), m.entry()[*id]) : "";
}

/// Names of the ENTRY instructions whose printed line differs between `a` and `b` (including
/// those only one of them has).
std::set<std::string> changed_names(const ir::Module& a, const ir::Module& b) {
  std::set<std::string> names;
  for (const ir::Module* m : {&a, &b}) {
    for (const ir::Instruction& x : m->entry().instructions) {
      if (line_of(a, x.name) != line_of(b, x.name)) names.insert(x.name);
    }
  }
  return names;
}

/// The one site of `kind` at `node` in `m`.
Mutant mutate(const ir::Module& m, MutationKind kind, const std::string& node) {
  std::optional<Mutant> mutant = apply_mutation(m, {kind, node, "", {}});
  INFO(mutation_kind_name(kind) << " at " << node);
  REQUIRE(mutant);
  return std::move(*mutant);
}

std::vector<std::string> site_nodes(const ir::Module& m, MutationKind kind) {
  std::vector<std::string> nodes;
  for (const Mutation& s : mutation_sites(m, kind)) nodes.push_back(s.node);
  return nodes;
}

using Names = std::vector<std::string>;

/// The ENTRY root's numbers on seeded random arguments.
std::vector<double> run(const ir::Module& m, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<eval::Value> args;
  for (ir::InstrId p : m.entry().parameters()) {
    args.push_back(eval::random_value(m.entry()[p].type, rng));
  }
  auto r = eval::evaluate(m, m.entry_id, args);
  if (!r) FAIL(r.error().format());
  REQUIRE_FALSE(r->is_tuple());
  return r->tensor().data;
}

TEST_CASE("mutation kinds have names", "[mutations]") {
  std::set<std::string_view> names;
  for (MutationKind k : kAllMutationKinds) names.insert(mutation_kind_name(k));
  CHECK(names.size() == kAllMutationKinds.size());
  CHECK(mutation_kind_name(MutationKind::kWrongShardDim) == "wrong-shard-dim");
}

TEST_CASE("every mutation kind has a site in the Neuron corpus", "[mutations][corpus]") {
  // kind → a file that has sites of it, and one expected site.
  struct Expect {
    MutationKind kind;
    std::string file, node;
  };
  const std::vector<Expect> expected = {
      {MutationKind::kDropCollective, "llama7b_1layer_decode_tp2.hlo", "all-reduce.168"},
      {MutationKind::kDropCollective, "linear3_fwd_spmd_megatron.hlo", "all-gather"},
      {MutationKind::kDropCollective, "bert_pretrain_fwdbwd_tp2.hlo", "all-reduce.455"},
      {MutationKind::kSingletonGroups, "gpt2_decode_tp2.hlo", "all-reduce.158"},
      {MutationKind::kSwapOperands, "llama7b_1layer_decode_tp2.hlo", "subtract.82"},
      {MutationKind::kChangeConstant, "gpt2_decode_tp2.hlo", ""},
      {MutationKind::kShiftSlice, "llama7b_1layer_decode_tp2.hlo", "slice.79"},
      {MutationKind::kSwapConcatenate, "llama7b_1layer_decode_tp2.hlo", "concatenate.86"},
      {MutationKind::kPermuteTranspose, "bert_pretrain_fwdbwd_tp2.hlo", "transpose.763"},
      {MutationKind::kWrongShardDim, "linear3_fwd_spmd_megatron.hlo", "all-gather"},
      {MutationKind::kFlipCompare, "gpt2_decode_tp2.hlo", "compare.9"},
  };
  for (const Expect& e : expected) {
    INFO(mutation_kind_name(e.kind) << " in " << e.file);
    const Names nodes = site_nodes(corpus_module(e.file), e.kind);
    CHECK_FALSE(nodes.empty());
    if (!e.node.empty()) CHECK(std::find(nodes.begin(), nodes.end(), e.node) != nodes.end());
  }
}

TEST_CASE("every corpus mutant type-checks and changes only what is near its node",
          "[mutations][corpus]") {
  for (const std::string& file : kCorpusFiles) {
    const ir::Module& original = corpus_module(file);
    const std::string before = hlo::print_module(original);
    for (MutationKind kind : kAllMutationKinds) {
      const std::vector<Mutation> sites = mutation_sites(original, kind);
      for (const Mutation& site : sites) {
        INFO(file << ": " << mutation_kind_name(kind) << " at " << site.node << ": "
                  << site.description);
        CHECK(site.kind == kind);
        std::optional<Mutant> mutant = apply_mutation(original, site);
        REQUIRE(mutant);
        // apply_mutation gives what mutation_sites listed.
        CHECK(mutant->mutation.node == site.node);
        CHECK(mutant->mutation.description == site.description);
        CHECK(mutant->mutation.near == site.near);
        // It re-reads cleanly (shape checks on) and equals what was read.
        auto again = hlo::read_module(hlo::print_module(mutant->module), "again.hlo");
        REQUIRE(again);
        CHECK(ir::first_difference(*again, mutant->module).empty());
        // It differs from the original, at its node, and only one def-use hop around it.
        CHECK_FALSE(ir::first_difference(original, mutant->module).empty());
        const std::set<std::string> changed = changed_names(original, mutant->module);
        CHECK(changed.count(site.node) == 1);
        const std::set<std::string> near(site.near.begin(), site.near.end());
        CHECK(near.count(site.node) == 1);
        CHECK(near.size() == site.near.size());
        for (const std::string& name : changed) {
          INFO("changed: " << name);
          CHECK(near.count(name) == 1);
        }
        for (const std::string& name : site.near) {
          INFO("near: " << name);
          CHECK((has(original, name) || has(mutant->module, name)));
        }
        // The entry's interface is untouched.
        CHECK(mutant->module.entry().parameters().size() == original.entry().parameters().size());
        CHECK(mutant->module.entry()[mutant->module.entry().root].type ==
              original.entry()[original.entry().root].type);
      }
    }
    CHECK(hlo::print_module(original) == before);  // the original is left alone
  }
}

TEST_CASE("mutations of a random seed are flagged", "[mutations][corpus]") {
  const auto flagged = [](const std::string& file, MutationKind kind) {
    Names nodes;
    for (const Mutation& s : mutation_sites(corpus_module(file), kind)) {
      if (s.only_feeds_rng) nodes.push_back(s.node);
    }
    return nodes;
  };
  CHECK(flagged("bert_pretrain_fwdbwd_tp2.hlo", MutationKind::kSwapConcatenate) ==
        Names{"concatenate.123", "concatenate.328", "concatenate.270", "concatenate.502"});
  CHECK(flagged("llama7b_1layer_decode_tp2.hlo", MutationKind::kSwapConcatenate).empty());
  CHECK(flagged("bert_pretrain_fwdbwd_tp2.hlo", MutationKind::kSwapOperands).empty());
}

TEST_CASE("site counts per kind and corpus file", "[.][mutation_table]") {
  std::cout << "sites per kind (" << kCorpusFiles.size() << " files):\n";
  for (const std::string& file : kCorpusFiles) {
    std::cout << file << ":";
    for (MutationKind kind : kAllMutationKinds) {
      std::cout << " " << mutation_kind_name(kind) << "="
                << mutation_sites(corpus_module(file), kind).size();
    }
    std::cout << "\n";
  }
}

TEST_CASE("kChangeOpcode and kDropOp change float arithmetic, never an op's identity",
          "[mutations]") {
  const ir::Module m = read(R"(HloModule m

ENTRY main {
  x = f32[4] parameter(0)
  b = f32[4] parameter(1)
  zero = f32[] constant(0)
  zeros = f32[4] broadcast(zero), dimensions={}
  h = f32[4] add(x, b)
  k = f32[4] add(h, zeros)
  s = f32[4] maximum(h, h)
  e = f32[4] exponential(k)
  i = s32[4] parameter(2)
  j = s32[4] add(i, i)
  ROOT out = (f32[4], f32[4], s32[4]) tuple(e, s, j)
}
)");
  // k adds a constant (maybe the identity), s takes the max of one value twice, j is integer.
  CHECK(site_nodes(m, MutationKind::kChangeOpcode) == Names{"h", "e"});
  CHECK(site_nodes(m, MutationKind::kDropOp) == Names{"h"});

  const Mutant sub = mutate(m, MutationKind::kChangeOpcode, "h");
  CHECK(line_of(sub.module, "h") == "%h = f32[4] subtract(f32[4] %x, f32[4] %b)");
  CHECK(line_of(mutate(m, MutationKind::kChangeOpcode, "e").module, "e") ==
        "%e = f32[4] tanh(f32[4] %k)");

  const Mutant drop = mutate(m, MutationKind::kDropOp, "h");
  CHECK_FALSE(has(drop.module, "h"));
  CHECK(line_of(drop.module, "k") == "%k = f32[4] add(f32[4] %x, f32[4] %zeros)");
  CHECK(drop.mutation.near == Names{"h", "x", "b", "k", "s"});
}

TEST_CASE("kDropCollective removes all-reduces and fakes gathers and scatters", "[mutations]") {
  const ir::Module m = read(R"(HloModule m, num_partitions=2

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[3,10] parameter(0)
  q = f32[8,4] parameter(1)
  ar = f32[3,10] all-reduce(p), replica_groups={{0,1}}, to_apply=add
  t = f32[3,10] tanh(ar)
  ag = f32[6,10] all-gather(t), channel_id=1, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true
  rs = f32[4,4] reduce-scatter(q), channel_id=2, replica_groups={{0,1}}, dimensions={0}, use_global_device_ids=true, to_apply=add
  c = f32[] constant(1)
  tar = (f32[4,4], f32[]) all-reduce(rs, c), replica_groups={{0,1}}, to_apply=add
  g = f32[4,4] get-tuple-element(tar), index=0
  ROOT out = (f32[6,10], f32[4,4]) tuple(ag, g)
}
)");
  CHECK(site_nodes(m, MutationKind::kDropCollective) == Names{"ar", "ag", "rs", "tar"});

  const Mutant ar = mutate(m, MutationKind::kDropCollective, "ar");
  CHECK_FALSE(has(ar.module, "ar"));
  CHECK(ar.module.entry()[instr(ar.module, "t").operands[0]].name == "p");
  CHECK(ar.mutation.near == Names{"ar", "p", "t"});

  const Mutant ag = mutate(m, MutationKind::kDropCollective, "ag");
  CHECK(line_of(ag.module, "ag") ==
        "%ag = f32[6,10] concatenate(f32[3,10] %t, f32[3,10] %t), dimensions={0}");
  CHECK(ag.mutation.near == Names{"ag", "t", "out"});

  const Mutant rs = mutate(m, MutationKind::kDropCollective, "rs");
  CHECK(instr(rs.module, "rs").opcode == ir::Opcode::kSlice);
  CHECK(rs.mutation.near == Names{"rs", "q", "tar"});

  const Mutant tar = mutate(m, MutationKind::kDropCollective, "tar");
  CHECK(instr(tar.module, "tar").opcode == ir::Opcode::kTuple);
  // An element of the tuple all-reduce is read through a get-tuple-element: its users are one
  // hop from the all-reduce too.
  CHECK(tar.mutation.near == Names{"tar", "rs", "c", "g", "out"});
}

TEST_CASE("kSingletonGroups gives every device its own group", "[mutations]") {
  const ir::Module m = read(R"(HloModule m, replica_count=4

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4,8] parameter(0)
  a = f32[4,8] all-reduce(p), replica_groups={{0,2},{1,3}}, to_apply=add
  b = f32[4,8] all-reduce(a), replica_groups={}, to_apply=add
  g = f32[8,8] all-gather(b), replica_groups={{0,1},{2,3}}, dimensions={0}
  ROOT t = f32[8,8] all-to-all(g), replica_groups=[1,4]<=[4], dimensions={1}
}
)");
  CHECK(site_nodes(m, MutationKind::kSingletonGroups) == Names{"a", "b", "t"});
  for (const char* node : {"a", "b", "t"}) {
    const Mutant mu = mutate(m, MutationKind::kSingletonGroups, node);
    const ir::ReplicaGroups* rg = instr(mu.module, node).replica_groups();
    REQUIRE(rg);
    CHECK(rg->groups == std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {3}});
  }
}

TEST_CASE("kSwapOperands swaps non-commutative operands of equal types", "[mutations]") {
  const ir::Module m = read(R"(HloModule m

ENTRY main {
  a = f32[4,4] parameter(0)
  b = f32[4,4] parameter(1)
  v = f32[4] parameter(2)
  w = f32[8,4] parameter(3)
  c = f32[] constant(2)
  c1 = f32[4,4] broadcast(c), dimensions={}
  c2 = f32[4,4] broadcast(c), dimensions={}
  s = f32[4,4] subtract(a, b)
  self = f32[4,4] subtract(s, s)
  same = f32[4,4] divide(c1, c2)
  sum = f32[4,4] add(a, b)
  lt = pred[4,4] compare(a, b), direction=LT
  eq = pred[4,4] compare(a, b), direction=EQ
  d = f32[4,4] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  d2 = f32[4,8] dot(a, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ROOT out = (f32[4,4], f32[4,4], f32[4,4], f32[4,4], pred[4,4], pred[4,4], f32[4,4], f32[4,8]) tuple(s, self, same, sum, lt, eq, d, d2)
}
)");
  CHECK(site_nodes(m, MutationKind::kSwapOperands) == Names{"s", "lt", "d"});
  const Mutant s = mutate(m, MutationKind::kSwapOperands, "s");
  CHECK(line_of(s.module, "s") == "%s = f32[4,4] subtract(f32[4,4] %b, f32[4,4] %a)");
  CHECK(s.mutation.near == Names{"s", "a", "b", "self", "out"});

  const Mutant d = mutate(m, MutationKind::kSwapOperands, "d");
  CHECK(line_of(d.module, "d") ==
        "%d = f32[4,4] dot(f32[4,4] %b, f32[4,4] %a), lhs_contracting_dims={0}, "
        "rhs_contracting_dims={1}");
}

TEST_CASE("kChangeConstant changes float constants but not reduce inits", "[mutations]") {
  const ir::Module m = read(R"(HloModule m

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[2] parameter(0)
  zero = f32[] constant(0)
  half = f32[] constant(0.5)
  two = f32[2] constant({-2, 1e-05})
  i = s32[] constant(3)
  big = f32[128] constant({...})
  h = f32[2] broadcast(half), dimensions={}
  m = f32[2] multiply(p, h)
  a = f32[2] add(m, two)
  r = f32[] reduce(a, zero), dimensions={0}, to_apply=add
  ROOT out = (f32[], s32[], f32[128]) tuple(r, i, big)
}
)");
  CHECK(site_nodes(m, MutationKind::kChangeConstant) == Names{"half", "two"});
  CHECK(instr(mutate(m, MutationKind::kChangeConstant, "half").module, "half").literal == "1.75");
  CHECK(instr(mutate(m, MutationKind::kChangeConstant, "two").module, "two").literal ==
        "{-1, 1.000015}");
}

TEST_CASE("kShiftSlice moves a window by one", "[mutations]") {
  const ir::Module m = read(R"(HloModule m

ENTRY main {
  p = f32[1,1024] parameter(0)
  lo = f32[1,512] slice(p), slice={[0:1], [0:512]}
  hi = f32[1,512] slice(p), slice={[0:1], [512:1024]}
  all = f32[1,1024] slice(p), slice={[0:1], [0:1024]}
  q = f32[8] parameter(1)
  b = f32[4,8] broadcast(q), dimensions={1}
  bs = f32[2,8] slice(b), slice={[0:2], [0:8]}
  ROOT out = (f32[1,512], f32[1,512], f32[1,1024], f32[2,8]) tuple(lo, hi, all, bs)
}
)");
  CHECK(site_nodes(m, MutationKind::kShiftSlice) == Names{"lo", "hi"});
  CHECK(line_of(mutate(m, MutationKind::kShiftSlice, "lo").module, "lo") ==
        "%lo = f32[1,512] slice(f32[1,1024] %p), slice={[0:1], [1:513]}");
  CHECK(line_of(mutate(m, MutationKind::kShiftSlice, "hi").module, "hi") ==
        "%hi = f32[1,512] slice(f32[1,1024] %p), slice={[0:1], [511:1023]}");
}

TEST_CASE("kSwapConcatenate and kPermuteTranspose", "[mutations]") {
  const ir::Module m = read(R"(HloModule m

ENTRY main {
  a = f32[16,16] parameter(0)
  b = f32[4,8] parameter(1)
  c = f32[1,1,8] parameter(2)
  ta = f32[16,16] transpose(a), dimensions={1,0}
  tb = f32[8,4] transpose(b), dimensions={1,0}
  tc = f32[1,1,8] transpose(c), dimensions={1,0,2}
  k = f32[16,32] concatenate(a, ta), dimensions={1}
  kk = f32[16,32] concatenate(a, a), dimensions={1}
  ROOT out = (f32[8,4], f32[1,1,8], f32[16,32], f32[16,32]) tuple(tb, tc, k, kk)
}
)");
  CHECK(site_nodes(m, MutationKind::kPermuteTranspose) == Names{"ta"});
  CHECK(instr(mutate(m, MutationKind::kPermuteTranspose, "ta").module, "ta")
            .dims_attr("dimensions") == ir::DimList{0, 1});
  CHECK(site_nodes(m, MutationKind::kSwapConcatenate) == Names{"k"});
  const Mutant k = mutate(m, MutationKind::kSwapConcatenate, "k");
  CHECK(k.module.entry()[instr(k.module, "k").operands[0]].name == "ta");
}

TEST_CASE("kWrongShardDim regathers, re-splits and moves tiles", "[mutations]") {
  const ir::Module m = read(R"(HloModule m, num_partitions=4

ENTRY main {
  p = f32[3,10] parameter(0), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  w = f32[4,4,4] parameter(1), sharding={devices=[2,2,1]0,1,2,3}
  u = f32[4,6] parameter(2), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  ag = f32[6,10] all-gather(p), channel_id=1, replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true
  n = f32[6,10] negate(ag)
  a2a = f32[4,4,4] all-to-all(w), channel_id=2, replica_groups={{0,1},{2,3}}, dimensions={0}
  ROOT out = (f32[6,10], f32[4,4,4], f32[4,6]) tuple(n, a2a, u)
}
)");
  CHECK(site_nodes(m, MutationKind::kWrongShardDim) == Names{"w", "ag", "a2a"});

  const Mutant ag = mutate(m, MutationKind::kWrongShardDim, "ag");
  CHECK(instr(ag.module, "ag").type.to_string(false) == "f32[3,20]");
  CHECK(instr(ag.module, "ag").dims_attr("dimensions") == ir::DimList{1});
  CHECK(instr(ag.module, "ag.mut").opcode == ir::Opcode::kReshape);
  CHECK(ag.module.entry()[instr(ag.module, "n").operands[0]].name == "ag.mut");
  CHECK(ag.mutation.near == Names{"ag", "p", "n", "ag.mut"});

  // The tiles of dimensions 0 and 2 (both of size 4) swap; the device array is transposed.
  const Mutant w = mutate(m, MutationKind::kWrongShardDim, "w");
  const ir::Sharding* s = instr(w.module, "w").sharding();
  REQUIRE(s);
  CHECK(s->tile_dims == std::vector<int64_t>{1, 2, 2});
  CHECK(s->device_list() == std::vector<int64_t>{0, 2, 1, 3});

  const Mutant a2a = mutate(m, MutationKind::kWrongShardDim, "a2a");
  CHECK(instr(a2a.module, "a2a").dims_attr("dimensions") == ir::DimList{1});
}

TEST_CASE("mutants compute other numbers (reference interpreter)", "[mutations][eval]") {
  const ir::Module m = read(R"(HloModule m

ENTRY main {
  a = f32[4,4] parameter(0)
  b = f32[4,4] parameter(1)
  w = f32[4,4] parameter(2)
  c = f32[] constant(0.5)
  cb = f32[4,4] broadcast(c), dimensions={}
  s = f32[4,4] subtract(a, b)
  d = f32[4,4] divide(s, cb)
  e = f32[4,4] dot(d, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[4,4] transpose(e), dimensions={1,0}
  x = f32[4,8] concatenate(t, a), dimensions={1}
  ROOT y = f32[4,6] slice(x), slice={[0:4], [1:7]}
}
)");
  const std::map<MutationKind, Names> expected = {
      {MutationKind::kSwapOperands, {"s", "d", "e"}},
      {MutationKind::kChangeConstant, {"c"}},
      {MutationKind::kShiftSlice, {"y"}},
      {MutationKind::kSwapConcatenate, {"x"}},
      {MutationKind::kPermuteTranspose, {"t"}},
  };
  for (const auto& [kind, nodes] : expected) {
    CHECK(site_nodes(m, kind) == nodes);
    for (const std::string& node : nodes) {
      INFO(mutation_kind_name(kind) << " at " << node);
      const Mutant mu = mutate(m, kind, node);
      for (uint64_t seed : {1u, 2u, 3u}) CHECK(run(mu.module, seed) != run(m, seed));
    }
  }
}

TEST_CASE("apply_mutation refuses a node that is not a site", "[mutations]") {
  const ir::Module& llama = corpus_module("llama7b_1layer_decode_tp2.hlo");
  CHECK_FALSE(apply_mutation(llama, {MutationKind::kSwapOperands, "no-such-node", "", {}}));
  CHECK_FALSE(apply_mutation(llama, {MutationKind::kPermuteTranspose, "all-reduce.168", "", {}}));
  CHECK_FALSE(apply_mutation(llama, {MutationKind::kShiftSlice, "transpose.166", "", {}}));
}

}  // namespace
}  // namespace scalify::test
