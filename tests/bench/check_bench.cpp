// `scalify check` on the real corpus pairs: verdict, time (reading excluded; the best of N
// runs), e-graph size and layout facts, as a table.
//
//   build/tests/bench/check_bench            # 5 runs per pair
//   build/tests/bench/check_bench --quick    # one run per pair (the ctest smoke test)
//
// The corpus is SCALIFY_CORPUS_DIR (CMake cache), or the environment variable of that name.
// Exits non-zero when a file does not read or a check fails with an error.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "hlo/reader.h"
#include "verify/check.h"

namespace {

std::string corpus_dir() {
  if (const char* env = std::getenv("SCALIFY_CORPUS_DIR"); env && *env) return env;
  return SCALIFY_CORPUS_DIR;
}

struct Pair {
  const char* name;
  const char* ref;
  const char* dist;
};

constexpr Pair kPairs[] = {
    {"linear3 single vs Megatron SPMD", "linear3_fwd_single.hlo", "linear3_fwd_spmd_megatron.hlo"},
    {"LLaMA-7B layer tp1 vs tp2", "llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp2.hlo"},
    {"LLaMA-7B layer tp1 vs tp8", "llama7b_1layer_decode_tp1.hlo", "llama7b_1layer_decode_tp8.hlo"},
    {"GPT-2 tp1 vs tp2", "gpt2_decode_tp1.hlo", "gpt2_decode_tp2.hlo"},
    {"MNIST MLP single vs data parallel", "mnist_mlp_train_single.hlo", "mnist_mlp_train_dp.hlo"},
    {"BERT fwd+bwd tp1 vs tp2", "bert_pretrain_fwdbwd_tp1.hlo", "bert_pretrain_fwdbwd_tp2.hlo"},
};

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string_view(argv[1]) == "--quick";
  const int runs = quick ? 1 : 5;
  std::printf("%-34s %-13s %9s %8s %7s %6s\n", "pair", "verdict", "seconds", "e-nodes", "facts",
              "assumed");
  int failures = 0;
  for (const Pair& p : kPairs) {
    const std::string dir = corpus_dir() + "/neuron_torchxla/";
    auto ref = scalify::hlo::read_module_file(dir + p.ref);
    auto dist = scalify::hlo::read_module_file(dir + p.dist);
    if (!ref || !dist) {
      std::fprintf(stderr, "%s: cannot read\n", p.name);
      ++failures;
      continue;
    }
    double best = 1e9;
    std::optional<scalify::verify::CheckResult> last;
    for (int i = 0; i < runs; ++i) {
      const auto start = std::chrono::steady_clock::now();
      auto r = scalify::verify::check(*ref, *dist, {});
      const double s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!r) {
        std::fprintf(stderr, "%s: %s\n", p.name, r.error().format().c_str());
        ++failures;
        break;
      }
      best = std::min(best, s);
      last = std::move(*r);
    }
    if (!last) continue;
    std::printf("%-34s %-13s %9.3f %8zu %7zu %6zu\n", p.name,
                std::string(scalify::verify::verdict_name(last->verdict)).c_str(), best,
                last->stats.enodes, last->stats.facts, last->assumptions.size());
  }
  return failures == 0 ? 0 : 1;
}
