// Scalify Studio's latency on a generated Llama pair: the window (offscreen) opens the pair as
// `scalify-studio REF DIST` does, and a LatencyProbe (views/latency_probe.h) measures when both
// layer overviews are laid out and shown, how long one layer takes to open, the GUI thread's
// worst stall (a 5 ms heartbeat) until the check is done, and the check's own time. Prints a
// table with the targets.
//
//   build/tests/bench/studio_latency_bench                       # Llama-3.1-405B, tp 8
//   build/tests/bench/studio_latency_bench --preset 8b --layers 4 --tp 2   # the ctest smoke test
//   … --verbose                                                  # every milestone, on stderr
//
// A missed target is reported (MISS), not an error: the exit code is 0 unless something failed
// (an unknown preset, the pair not written or read, the check not ending in time).
#include <QApplication>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "modelgen/llama_config.h"
#include "verify/check_result.h"
#include "views/graph_model.h"
#include "views/graph_view.h"
#include "views/latency_probe.h"
#include "views/main_window.h"
#include "views/pair_files.h"

namespace {

using scalify::views::GraphView;
using scalify::views::LatencyProbe;

constexpr int kHeartbeatMs = 5;
constexpr int kTimeoutMs = 600'000;
constexpr qint64 kOverviewTargetMs = 2000, kLayerTargetMs = 1000, kGapTargetMs = 100;

struct Args {
  std::string preset = "405b";
  int64_t tp = 8;
  std::optional<int64_t> layers;
  bool verbose = false;  ///< every milestone on stderr
};

int usage(const char* message) {
  std::fprintf(stderr,
               "studio_latency_bench: %s\nusage: studio_latency_bench [--preset NAME] [--tp N] "
               "[--layers N] [--verbose]\n",
               message);
  return 2;
}

/// Runs the event loop (no sleeping: the heartbeat must be served) until `done()` or the
/// timeout; returns done().
bool run_until(const std::function<bool()>& done, int timeout_ms = kTimeoutMs) {
  if (done()) return true;
  QEventLoop loop;
  QTimer poll;
  poll.setInterval(2);
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    if (done()) loop.quit();
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  poll.start();
  loop.exec();
  return done();
}

/// The first milestone matching `pred`, or nullptr.
const LatencyProbe::Milestone* find(
    const LatencyProbe& probe, const std::function<bool(const LatencyProbe::Milestone&)>& pred) {
  for (const LatencyProbe::Milestone& m : probe.milestones()) {
    if (pred(m)) return &m;
  }
  return nullptr;
}

const char* verdict(qint64 ms, qint64 target) { return ms <= target ? "PASS" : "MISS"; }

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("ScalifyBench"));
  QCoreApplication::setApplicationName(QStringLiteral("studio_latency_bench"));

  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--verbose") {
      args.verbose = true;
      continue;
    }
    if (i + 1 >= argc) return usage("an option is missing its value");
    if (a == "--preset") {
      args.preset = argv[++i];
    } else if (a == "--tp") {
      args.tp = std::atoll(argv[++i]);
    } else if (a == "--layers") {
      args.layers = std::atoll(argv[++i]);
    } else {
      return usage("unknown option");
    }
  }

  // The pair, as `scalify gen llama --preset P --tp N [--layers L]` writes it.
  auto model = scalify::modelgen::llama_preset(args.preset);
  if (!model) return usage(model.error().message.c_str());
  scalify::modelgen::GenOptions options;
  options.model = *model;
  options.tp = args.tp;
  if (args.layers) options.model.layers = *args.layers;
  if (auto problem = scalify::modelgen::validate(options)) return usage(problem->message.c_str());
  QTemporaryDir dir;
  if (!dir.isValid()) return usage("cannot make a temporary folder");
  QString error;
  const auto gen_start = std::chrono::steady_clock::now();
  const scalify::views::PairPaths paths =
      scalify::views::write_llama_pair(options, dir.path(), &error);
  const double gen_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - gen_start).count();
  if (paths.ref.isEmpty()) {
    std::fprintf(stderr, "studio_latency_bench: %s\n", qPrintable(error));
    return 1;
  }

  scalify::views::MainWindow window;
  window.set_interactive(false);
  window.show();
  LatencyProbe probe(window, kHeartbeatMs);
  run_until([] { return false; }, 200);  // let the window settle before the clock matters
  probe.restart_gap();
  const qint64 opened = probe.elapsed_ms();
  window.open_pair(paths);

  const auto top_shown = [&](bool reference) {
    return find(probe, [reference](const LatencyProbe::Milestone& m) {
      return m.reference == reference && m.level == GraphView::kTop && !m.check_done;
    });
  };
  const auto check_done = [&] {
    return find(probe, [](const LatencyProbe::Milestone& m) { return m.check_done; });
  };
  if (!run_until([&] { return top_shown(true) && top_shown(false) && check_done(); })) {
    std::fprintf(stderr, "studio_latency_bench: the pair was not shown and checked in %d s\n",
                 kTimeoutMs / 1000);
    return 1;
  }
  if (args.verbose) {
    for (const LatencyProbe::Milestone& m : probe.milestones()) {
      std::fprintf(stderr, "%s after %lld ms (worst GUI gap so far %lld ms)\n", qPrintable(m.what),
                   static_cast<long long>(m.ms - opened), static_cast<long long>(m.worst_gap));
    }
  }
  const scalify::verify::CheckResult* result = window.result();
  if (!result) {
    std::fprintf(stderr, "studio_latency_bench: the check ended without a result\n");
    return 1;
  }
  const qint64 overview_ms = std::max(top_shown(true)->ms, top_shown(false)->ms) - opened;
  const qint64 check_ms = check_done()->ms - opened;
  const qint64 check_gap = check_done()->worst_gap;
  const double check_seconds = result->stats.seconds;
  const std::string verdict_text(scalify::verify::verdict_name(result->verdict));
  run_until([&] { return window.idle(); });

  // Open one layer of the distributed overview, in the middle of the model (never laid out yet).
  GraphView* dist_view = window.distributed_view();
  const scalify::views::GraphModel* dist_model = dist_view->model();
  std::optional<int64_t> layer;
  if (dist_model && dist_model->is_overview()) {
    std::vector<int64_t> keys;
    for (const auto& node : dist_model->top().nodes) {
      if (node.is_group && node.group >= 0) keys.push_back(node.group);
    }
    if (!keys.empty()) layer = keys[keys.size() / 2];
  }
  std::optional<qint64> layer_ms, layer_gap;
  if (layer) {
    probe.restart_gap();
    const qint64 asked = probe.elapsed_ms();
    dist_view->show_level(*layer);
    const auto shown = [&] {
      return find(probe, [&](const LatencyProbe::Milestone& m) {
        return !m.reference && !m.check_done && m.level == *layer && m.ms >= asked;
      });
    };
    if (!run_until([&] { return shown() != nullptr; })) {
      std::fprintf(stderr, "studio_latency_bench: layer %lld was not shown\n",
                   static_cast<long long>(*layer));
      return 1;
    }
    layer_ms = shown()->ms - asked;
    layer_gap = shown()->worst_gap;
  }

  const size_t ref_instructions = window.reference_view()->model()->module().entry().size();
  const size_t dist_instructions = dist_model ? dist_model->module().entry().size() : 0;
  std::printf(
      "Scalify Studio latency: Llama %s (%lld layers), tp %lld; ref %zu, dist %zu ENTRY "
      "instructions; pair written in %.2f s; %u cores; Qt platform %s; heartbeat %d ms\n\n",
      args.preset.c_str(), static_cast<long long>(options.model.layers),
      static_cast<long long>(options.tp), ref_instructions, dist_instructions, gen_seconds,
      std::thread::hardware_concurrency(), qPrintable(QGuiApplication::platformName()),
      kHeartbeatMs);
  std::printf("| measure | ms | target | |\n|---|---|---|---|\n");
  std::printf(
      "| both overviews laid out and shown, from opening the files | %lld | <= %lld | %s |\n",
      static_cast<long long>(overview_ms), static_cast<long long>(kOverviewTargetMs),
      verdict(overview_ms, kOverviewTargetMs));
  if (layer_ms) {
    std::printf(
        "| one layer (layer %lld of the distributed pane) laid out and shown | %lld | "
        "<= %lld | %s |\n",
        static_cast<long long>(*layer), static_cast<long long>(*layer_ms),
        static_cast<long long>(kLayerTargetMs), verdict(*layer_ms, kLayerTargetMs));
  } else {
    std::printf(
        "| one layer laid out and shown | - | <= %lld | n/a (no overview: the pane shows "
        "every instruction) |\n",
        static_cast<long long>(kLayerTargetMs));
  }
  std::printf(
      "| worst GUI-thread gap, from opening until the check is done | %lld | <= %lld | "
      "%s |\n",
      static_cast<long long>(check_gap), static_cast<long long>(kGapTargetMs),
      verdict(check_gap, kGapTargetMs));
  if (layer_gap) {
    std::printf("| worst GUI-thread gap while the layer opens | %lld | - | |\n",
                static_cast<long long>(*layer_gap));
  }
  std::printf("| check done (%s), from opening the files (reading included) | %lld | - | |\n",
              verdict_text.c_str(), static_cast<long long>(check_ms));
  std::printf("| the check itself (its own clock, %zu parts, %zu from the memo) | %.0f | - | |\n",
              result->stats.parts, result->stats.memo_hits, check_seconds * 1000);
  return 0;
}
