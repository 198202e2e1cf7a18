// The views tests' shared pieces: waiting (run the event loop until a condition holds or time
// runs out), the small generated pair most of them open, and opening it in a window.
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <cstdint>

#include "modelgen/llama_config.h"
#include "views/main_window.h"
#include "views/pair_files.h"

namespace scalify::views::test {

/// Processes events until `done()` or `timeout_ms`; returns done().
template <class Done>
bool wait_until(Done done, int timeout_ms = 20'000) {
  QDeadlineTimer deadline(timeout_ms);
  while (!done() && !deadline.hasExpired()) {
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  return done();
}

/// `scalify gen llama --preset tiny --tp 2`, with `layers` layers (0: the preset's two) and
/// the bug `bug` (KIND[@LAYER]) when given.
inline modelgen::GenOptions tiny_llama(int64_t layers = 0, const char* bug = nullptr) {
  modelgen::GenOptions options;
  options.model = *modelgen::llama_preset("tiny");
  if (layers > 0) options.model.layers = layers;
  options.tp = 2;
  if (bug) options.bug = *modelgen::parse_bug(bug);
  return options;
}

/// Writes the pair for `options` into folder `dir`, opens it in `w` and waits until its check
/// has ended and the window is idle; false (with `error` set when writing failed) otherwise.
inline bool open_generated(MainWindow& w, const modelgen::GenOptions& options, const QString& dir,
                           QString* error = nullptr) {
  QString why;
  const PairPaths paths = write_llama_pair(options, dir, &why);
  if (error) *error = why;
  if (!why.isEmpty()) return false;
  int ended = 0;
  const auto connection = QObject::connect(&w, &MainWindow::checkDone, [&ended] { ++ended; });
  w.open_pair(paths);
  const bool done = wait_until([&] { return ended > 0 && w.idle(); });
  QObject::disconnect(connection);
  return done;
}

}  // namespace scalify::views::test
