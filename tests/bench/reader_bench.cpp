// Throughput of the HLO text reader and printer (Google Benchmark), in bytes of HLO text per
// second, on the corpus' largest files and on a large synthetic module (default ~50 MB) made by
// repeating the ENTRY instructions of a real decoder layer, renamed per copy.
//
//   build/tests/bench/reader_bench                          # all, for numbers (single thread)
//   build/tests/bench/reader_bench --benchmark_filter=Read  # reading only
//   build/tests/bench/reader_bench --scalify_large_mb=200   # a bigger synthetic module
//   build/tests/bench/reader_bench --benchmark_min_time=0 --scalify_large_mb=4   # smoke (ctest)
//
// The corpus is SCALIFY_CORPUS_DIR (CMake cache), or the environment variable of that name.
// Exits non-zero when a file is missing or does not read or round-trip, so the smoke test fails.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "hlo/printer.h"
#include "hlo/reader.h"
#include "ir/module.h"

namespace {

int g_failures = 0;

std::string corpus_dir() {
  if (const char* env = std::getenv("SCALIFY_CORPUS_DIR"); env && *env) return env;
  return SCALIFY_CORPUS_DIR;
}

std::optional<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return std::move(out).str();
}

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

/// The instruction name a body line defines ("%add.3 = …" or "ROOT add.3 = …"), or "".
std::string_view defined_name(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  if (i == std::string_view::npos) return {};
  line.remove_prefix(i);
  if (line.starts_with("ROOT ")) line.remove_prefix(5);
  if (line.starts_with('%')) line.remove_prefix(1);
  const size_t eq = line.find(" = ");
  if (eq == std::string_view::npos) return {};
  return line.substr(0, eq);
}

/// `line` with every (optionally %-prefixed) identifier in `names` suffixed by `suffix`;
/// quoted strings (metadata, backend_config) are left alone.
void append_renamed(std::string& out, std::string_view line,
                    const std::unordered_set<std::string_view>& names, std::string_view suffix) {
  bool quoted = false;
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    if (quoted) {
      out += c;
      if (c == '\\' && i + 1 < line.size())
        out += line[++i];
      else if (c == '"')
        quoted = false;
      ++i;
    } else if (c == '"') {
      quoted = true;
      out += c;
      ++i;
    } else if (is_name_char(c)) {
      size_t j = i;
      while (j < line.size() && is_name_char(line[j])) ++j;
      const std::string_view word = line.substr(i, j - i);
      out += word;
      if (names.contains(word)) out += suffix;
      i = j;
    } else {
      out += c;
      ++i;
    }
  }
}

/// A well-formed module of at least `target_bytes`: `text`'s ENTRY instructions repeated,
/// each copy's instructions renamed with a suffix `.rK`, the parameters kept once, and the
/// ROOT only in the last copy (the other copies' results are dead code). Empty on failure.
std::string repeat_entry(std::string_view text, size_t target_bytes) {
  const size_t entry = text.find("\nENTRY ");
  if (entry == std::string_view::npos) return {};
  const size_t body_begin = text.find('\n', entry + 1);
  const size_t body_end = text.find("\n}", body_begin);
  if (body_begin == std::string_view::npos || body_end == std::string_view::npos) return {};
  const std::string_view head = text.substr(0, body_begin + 1);
  const std::string_view body = text.substr(body_begin + 1, body_end - body_begin);
  const std::string_view tail = text.substr(body_end + 1);

  std::vector<std::string_view> params, others;
  std::unordered_set<std::string_view> renamed;
  for (size_t pos = 0; pos < body.size();) {
    size_t end = body.find('\n', pos);
    if (end == std::string_view::npos) end = body.size();
    const std::string_view line = body.substr(pos, end - pos);
    pos = end + 1;
    const std::string_view name = defined_name(line);
    if (name.empty()) continue;
    if (line.find(" parameter(") != std::string_view::npos) {
      params.push_back(line);
    } else {
      others.push_back(line);
      renamed.insert(name);
    }
  }
  if (others.empty()) return {};
  const size_t copies = target_bytes / body.size() + 1;

  std::string out;
  out.reserve(target_bytes + target_bytes / 8 + head.size() + tail.size());
  out += head;
  for (std::string_view p : params) (out += p) += '\n';
  for (size_t k = 0; k < copies; ++k) {
    const std::string suffix = ".r" + std::to_string(k);
    const bool last = k + 1 == copies;
    for (std::string_view line : others) {
      const size_t root = line.find("ROOT ");
      if (!last && root != std::string_view::npos && root == line.find_first_not_of(' ')) {
        out += line.substr(0, root);
        line.remove_prefix(root + 5);
      }
      append_renamed(out, line, renamed, suffix);
      out += '\n';
    }
  }
  out += tail;
  return out;
}

/// One benchmark input: HLO text, and the module it reads to (read once, on first use).
struct Input {
  std::string label;
  std::string text;
  std::optional<scalify::ir::Module> module;
  std::string error;  ///< why it cannot be benchmarked, or ""

  const scalify::ir::Module* read_once() {
    if (!module && error.empty()) {
      auto m = scalify::hlo::read_module(text, label);
      if (m)
        module = std::move(*m);
      else
        error = m.error().format();
    }
    return module ? &*module : nullptr;
  }
};

void fail(benchmark::State& state, const std::string& why) {
  ++g_failures;
  std::fprintf(stderr, "reader_bench: %s\n", why.c_str());
  state.SkipWithError(why.c_str());
}

void bm_read(benchmark::State& state, const std::shared_ptr<Input>& in) {
  if (!in->error.empty()) return fail(state, in->error);
  for (auto _ : state) {
    auto m = scalify::hlo::read_module(in->text, in->label);
    if (!m) return fail(state, m.error().format());
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(in->text.size()));
  state.counters["MB"] = static_cast<double>(in->text.size()) / 1e6;
}

void bm_print(benchmark::State& state, const std::shared_ptr<Input>& in) {
  const scalify::ir::Module* m = in->read_once();
  if (!m) return fail(state, in->error);
  size_t bytes = 0;
  for (auto _ : state) {
    std::string printed = scalify::hlo::print_module(*m);
    bytes = printed.size();
    benchmark::DoNotOptimize(printed);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(bytes));
  state.counters["MB"] = static_cast<double>(bytes) / 1e6;
  // The printed text must read back to the same module (cheap next to the benchmark).
  auto again = scalify::hlo::read_module(scalify::hlo::print_module(*m), in->label);
  if (!again) return fail(state, "printed text does not read back: " + again.error().format());
  if (!(*again == *m))
    fail(state, "round trip differs: " + scalify::ir::first_difference(*m, *again));
}

void register_input(std::shared_ptr<Input> in) {
  benchmark::RegisterBenchmark(("Read/" + in->label).c_str(), bm_read, in)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("Print/" + in->label).c_str(), bm_print, in)
      ->Unit(benchmark::kMillisecond);
}

std::shared_ptr<Input> load(const std::string& relative) {
  auto in = std::make_shared<Input>();
  in->label = relative;
  if (auto text = slurp(corpus_dir() + "/" + relative))
    in->text = std::move(*text);
  else
    in->error = "cannot read " + corpus_dir() + "/" + relative;
  return in;
}

void register_all(size_t large_mb) {
  for (const char* file : {"xla/maxtext_train_step_before_optimizations.hlo",
                           "xla/llama31_405b_train_step_spmd_16x8.hlo",
                           "neuron_torchxla/bert_pretrain_fwdbwd_tp1.hlo"}) {
    register_input(load(file));
  }
  const std::string layer_file = "neuron_torchxla/llama7b_1layer_decode_tp1.hlo";
  std::shared_ptr<Input> layer = load(layer_file);
  auto large = std::make_shared<Input>();
  large->label = "synthetic/llama7b_layer_repeated_" + std::to_string(large_mb) + "MB";
  if (!layer->error.empty()) {
    large->error = layer->error;
  } else {
    large->text = repeat_entry(layer->text, large_mb * 1000 * 1000);
    if (large->text.empty()) large->error = "no ENTRY computation to repeat in " + layer_file;
  }
  register_input(std::move(large));
}

}  // namespace

int main(int argc, char** argv) {
  size_t large_mb = 50;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--scalify_large_mb=")) {
      large_mb = std::strtoul(argv[i] + arg.find('=') + 1, nullptr, 10);
      if (large_mb == 0) large_mb = 1;
    } else {
      if (arg == "--help") std::printf("reader_bench [--scalify_large_mb=N (default 50)]\n");
      args.push_back(argv[i]);
    }
  }
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;
  register_all(large_mb);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (g_failures > 0) std::fprintf(stderr, "reader_bench: %d benchmark(s) failed\n", g_failures);
  return g_failures > 0 ? 1 : 0;
}
