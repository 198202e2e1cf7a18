// Throughput of the e-graph's building blocks (Google Benchmark): union-find operations per
// second (a unite and two finds count as three operations), and hash-cons inserts of fresh
// nodes and lookups of present ones per second.
//
//   build/tests/bench/egraph_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "egraph/hash_cons.h"
#include "egraph/union_find.h"

namespace {

using scalify::egraph::ClassId;
using scalify::egraph::ENode;
using scalify::egraph::HashCons;
using scalify::egraph::UnionFind;

void UnionFindRandom(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  std::mt19937 rng(42);
  std::vector<std::pair<ClassId, ClassId>> pairs(n);
  std::uniform_int_distribution<ClassId> pick(0, n - 1);
  for (auto& p : pairs) p = {pick(rng), pick(rng)};
  for (auto _ : state) {
    UnionFind uf;
    uf.reserve(n);
    for (uint32_t i = 0; i < n; ++i) uf.make_set();
    uint64_t same = 0;
    for (const auto& [a, b] : pairs) {
      uf.unite(a, b);
      same += uf.find(a) == uf.find(b);
    }
    benchmark::DoNotOptimize(same);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n * 3);
}
BENCHMARK(UnionFindRandom)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

/// n distinct nodes shaped like an e-graph's: a few operators, mostly binary, children among
/// the earlier nodes.
std::vector<ENode> random_nodes(uint32_t n) {
  std::mt19937 rng(7);
  std::vector<ENode> nodes;
  nodes.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    if (i < 64) {
      nodes.push_back(ENode{1, i, {}});  // leaves, told apart by payload
      continue;
    }
    std::uniform_int_distribution<ClassId> child(0, i - 1);
    // Operator i % 4 with i as payload keeps every node distinct.
    ENode node{2 + i % 4, i, {child(rng), child(rng)}};
    if (i % 8 == 0) node.children.push_back(child(rng));
    nodes.push_back(std::move(node));
  }
  return nodes;
}

// Builds a table of n nodes from empty (growth included): inserts of fresh nodes per second.
void HashConsInsertFresh(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const std::vector<ENode> nodes = random_nodes(n);
  for (auto _ : state) {
    HashCons memo;
    for (uint32_t i = 0; i < n; ++i) benchmark::DoNotOptimize(memo.insert(i, nodes[i]));
    benchmark::DoNotOptimize(memo.size());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}
BENCHMARK(HashConsInsertFresh)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

// Looks up every node of a table of n, in random order: lookups of present nodes per second.
void HashConsFindExisting(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  const std::vector<ENode> nodes = random_nodes(n);
  HashCons memo;
  for (uint32_t i = 0; i < n; ++i) memo.insert(i, nodes[i]);
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(11));
  for (auto _ : state) {
    uint64_t found = 0;
    for (uint32_t i : order) found += memo.find(nodes[i]).value_or(0);
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
}
BENCHMARK(HashConsFindExisting)->Arg(1 << 16)->Arg(1 << 20)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
