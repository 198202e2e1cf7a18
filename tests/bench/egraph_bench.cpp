// Throughput of the e-graph's building blocks (Google Benchmark). So far: union-find operations
// per second (a unite and two finds count as three operations).
//
//   build/tests/bench/egraph_bench
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "egraph/union_find.h"

namespace {

using scalify::egraph::ClassId;
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

}  // namespace

BENCHMARK_MAIN();
