// The views tests' shared pieces: waiting (run the event loop until a condition holds or time
// runs out) and the small generated pair most of them open.
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>
#include <cstdint>

#include "modelgen/llama_config.h"

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

}  // namespace scalify::views::test
