#include "views/check_runner.h"

#include <QFutureWatcher>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <thread>

#include "verify/check.h"
#include "verify/part_memo.h"
#include "verify/spec.h"

namespace scalify::views {

/// One run's shared state: the worker writes the counters, the GUI thread reads them.
struct CheckRunner::Run {
  uint64_t generation = 0;
  verify::CheckProgress progress;
  std::atomic<bool> cancel{false};
  size_t staged_seen = 0;  ///< matches already sent as staged results (GUI thread only)
};

namespace {

/// Made and read as shared pointers: a 405B result is large, and copying it on the GUI thread
/// would stall it.
struct Outcome {
  std::shared_ptr<const verify::CheckResult> result;
  QString error;
};

}  // namespace

CheckRunner::CheckRunner(QObject* parent)
    : QObject(parent), memo_(std::make_shared<verify::PartMemo>()) {
  poll_timer_.setInterval(100);
  connect(&poll_timer_, &QTimer::timeout, this, &CheckRunner::poll);
}

CheckRunner::~CheckRunner() {
  if (current_) current_->cancel = true;
  // Older runs are cancelled already; every run holds its inputs, so only waiting is left.
  QThreadPool::globalInstance()->waitForDone();
}

void CheckRunner::start(std::shared_ptr<const ir::Module> ref,
                        std::shared_ptr<const ir::Module> dist, const QString& dist_file,
                        std::shared_ptr<const verify::Spec> spec) {
  if (current_) current_->cancel = true;
  auto run = std::make_shared<Run>();
  run->generation = ++generation_;
  current_ = run;

  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, run] {
    watcher->deleteLater();
    if (run != current_) return;  // a newer run has started: this one's news is stale
    current_.reset();
    poll_timer_.stop();
    emit progress(run->progress.done.load(), run->progress.total.load(),
                  run->progress.memo_hits.load());  // the bar ends at done/total
    const Outcome outcome = watcher->result();
    if (!run->cancel && outcome.result) emit_staged(*run);
    if (run->cancel) {
      emit cancelled();
    } else if (outcome.result) {
      emit finished(outcome.result);
    } else {
      emit failed(outcome.error);
    }
  });
  watcher->setFuture(
      QtConcurrent::run([run, ref = std::move(ref), dist = std::move(dist), spec = std::move(spec),
                         memo = memo_, file = dist_file.toStdString()] {
        verify::CheckRequest request;
        request.spec = spec.get();
        request.dist_file = file;
        request.threads = std::max(1u, std::thread::hardware_concurrency());
        request.memo = memo.get();
        request.progress = &run->progress;
        request.cancel = &run->cancel;
        Outcome out;
        auto result = verify::check(*ref, *dist, request);
        if (result) {
          out.result = std::make_shared<const verify::CheckResult>(std::move(*result));
        } else {
          out.error = QString::fromStdString(result.error().format());
        }
        return out;
      }));
  poll_timer_.start();
}

void CheckRunner::cancel() {
  if (current_) current_->cancel = true;
}

void CheckRunner::poll() {
  if (!current_) return;
  const verify::CheckProgress& p = current_->progress;
  emit progress(p.done.load(), p.total.load(), p.memo_hits.load());
  emit_staged(*current_);
}

void CheckRunner::emit_staged(Run& run) {
  if (auto partial = run.progress.staged_since(run.staged_seen)) {
    emit staged(std::make_shared<const verify::CheckResult>(std::move(*partial)));
  }
}

}  // namespace scalify::views
