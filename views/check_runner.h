// Runs `verify::check` on the thread pool and reports back on the GUI thread: progress (polled
// from the checker's atomic counters), the result, an error, or the cancellation. Every start()
// begins a new generation; whatever an older run reports is dropped, so a stale result never
// overwrites a newer one.
#pragma once

#include <QObject>
#include <QString>
#include <QTimer>
#include <atomic>
#include <cstdint>
#include <memory>

#include "ir/module.h"
#include "verify/check_result.h"

namespace scalify::verify {
class PartMemo;
struct Spec;
}  // namespace scalify::verify

namespace scalify::views {

class CheckRunner : public QObject {
  Q_OBJECT

 public:
  explicit CheckRunner(QObject* parent = nullptr);
  /// Cancels the runs still going and waits for them (they read the modules and the memo).
  ~CheckRunner() override;

  /// Starts checking `dist` against `ref` (the previous run, if any, is cancelled), with the
  /// bindings `spec` pins when there is one (as `scalify check --spec`).
  void start(std::shared_ptr<const ir::Module> ref, std::shared_ptr<const ir::Module> dist,
             const QString& dist_file, std::shared_ptr<const verify::Spec> spec = nullptr);
  /// Asks the current run to stop between parts; cancelled() follows.
  void cancel();
  bool running() const { return static_cast<bool>(current_); }
  /// The generation of the latest start().
  uint64_t generation() const { return generation_; }

 signals:
  void progress(qulonglong done, qulonglong total, qulonglong memo_hits);
  /// The results in stages: the nodes matched so far (mesh and matches only), as parts finish;
  /// provisional, replaced by finished()'s result. At least once before finished() when a
  /// layered check published anything.
  void staged(std::shared_ptr<const scalify::verify::CheckResult> partial);
  void finished(std::shared_ptr<const scalify::verify::CheckResult> result);
  void failed(const QString& message);
  void cancelled();

 private:
  struct Run;
  void poll();
  /// Emits staged() when the run has published matches since it last did.
  void emit_staged(Run& run);

  std::shared_ptr<Run> current_;
  std::shared_ptr<verify::PartMemo> memo_;  ///< kept across runs: Reload re-checks fast
  uint64_t generation_ = 0;
  QTimer poll_timer_;
};

}  // namespace scalify::views
