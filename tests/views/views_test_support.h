// Waiting in the views tests: run the event loop until a condition holds or time runs out.
#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QThread>

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

}  // namespace scalify::views::test
