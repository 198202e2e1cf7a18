// `scalify check` at scale: Llama pairs written by `scalify gen llama`, checked by the real
// command line cold (no cache) and warm (the SQLite cache of the cold run), each in a process
// of its own so that its peak memory is its own. Prints a table.
//
//   build/tests/bench/scale_bench            # 8b, 70b, 405b (tp 8, with and without --sp), …
//   build/tests/bench/scale_bench --quick    # the tiny preset only (the ctest smoke test)
//
// Exits non-zero when a command fails or a correct pair is not proven equivalent.
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "support/json.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Config {
  const char* preset;
  int layers;  ///< 0: the preset's own
  int tp;
  bool sp;
};

/// What one process did: exit status, its standard output, wall time, peak memory.
struct Run {
  int status = -1;
  std::string out;
  double seconds = 0;
  double peak_mb = 0;
};

Run run(const std::vector<std::string>& argv) {
  Run r;
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", 0, 0);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return r;
  }
  char buf[65536];
  for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) r.out.append(buf, size_t(n));
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.peak_mb = double(usage.ru_maxrss) / 1024.0;  // kilobytes on Linux
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::string_view(argv[1]) == "--quick";
  const std::string cli = SCALIFY_CLI;
  const std::vector<Config> configs =
      quick
          ? std::vector<Config>{{"tiny", 0, 2, false}, {"tiny", 0, 2, true}}
          : std::vector<Config>{{"8b", 0, 8, false},   {"70b", 0, 8, false}, {"405b", 2, 8, false},
                                {"405b", 0, 8, false}, {"405b", 0, 8, true}, {"405b", 0, 2, false},
                                {"405b", 0, 64, false}};
  const fs::path dir =
      fs::temp_directory_path() / ("scalify-scale-bench-" + std::to_string(getpid()));
  std::printf("%-6s %4s %3s %6s %9s %7s %8s %8s %8s %8s %6s %5s\n", "model", "tp", "sp", "layers",
              "HLO (MB)", "read s", "cold s", "warm s", "text s", "peak MB", "parts", "memo");
  int failures = 0;
  for (const Config& c : configs) {
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::vector<std::string> gen = {
        cli,     "gen",       "llama", "--preset", c.preset, "--tp", std::to_string(c.tp),
        "--out", dir.string()};
    if (c.layers > 0) gen.insert(gen.end(), {"--layers", std::to_string(c.layers)});
    if (c.sp) gen.push_back("--sp");
    const Run generated = run(gen);
    if (generated.status != 0) {
      std::printf("%-6s %4d: scalify gen failed\n", c.preset, c.tp);
      ++failures;
      continue;
    }
    // "llama 405b: 126 layers, hidden …"
    long long layers = 0;
    if (const size_t colon = generated.out.find(": "); colon != std::string::npos) {
      layers = std::atoll(generated.out.c_str() + colon + 2);
    }
    const std::string ref = (dir / "ref.hlo").string(), dist = (dir / "dist.hlo").string();
    const double mb = double(fs::file_size(ref) + fs::file_size(dist)) / 1e6;
    const std::string cache = (dir / "memo.sqlite").string();
    const std::vector<std::string> check = {cli, "check", "--json", "--cache", cache, ref, dist};
    const Run cold = run(check), warm = run(check);
    // As a person runs it: the text output, no cache (no derivation to gather and print).
    const Run text = run({cli, "check", "--no-cache", ref, dist});
    auto parsed = scalify::json::parse(cold.out);
    auto parsed_warm = scalify::json::parse(warm.out);
    if (cold.status != 0 || warm.status != 0 || text.status != 0 || !parsed || !parsed_warm) {
      std::printf("%-6s %4d: not proven equivalent (exit %d)\n", c.preset, c.tp, cold.status);
      ++failures;
      continue;
    }
    const auto& stats = (*parsed)["stats"];
    const auto& warm_stats = (*parsed_warm)["stats"];
    const double check_s = stats.find("seconds")->as_double();
    std::printf("%-6s %4d %3s %6lld %9.1f %7.2f %8.2f %8.2f %8.2f %8.0f %6lld %5lld\n", c.preset,
                c.tp, c.sp ? "yes" : "no", layers, mb, cold.seconds - check_s, cold.seconds,
                warm.seconds, text.seconds, std::max({cold.peak_mb, warm.peak_mb, text.peak_mb}),
                static_cast<long long>(stats.find("parts")->as_int()),
                static_cast<long long>(warm_stats.find("memo_hits")->as_int()));
    std::fflush(stdout);
  }
  fs::remove_all(dir);
  std::printf(
      "\ncold and warm: the whole `scalify check --json` command (reading included); read: the "
      "cold run minus its check time; text: `scalify check --no-cache` as a person runs it (no "
      "derivation gathered); memo: parts the warm run took from the cache\n");
  return failures == 0 ? 0 : 1;
}
