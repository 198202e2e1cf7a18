// scalify-studio [REF DIST | SESSION.scalify] [--screenshot FILE] [--timings]: the window. With no
// files it opens the bundled example (a generated pair with a planted bug); a saved session opens
// as it was saved. --screenshot saves the window once the
// check has finished and the graphs are laid out, then quits (the smoke test and the README use
// it).
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <QTimer>

#include "views/latency_probe.h"
#include "views/main_window.h"

namespace {

constexpr int kScreenshotTimeoutMs = 180'000;

/// Saves `window` to `file` once it is idle (polled: layouts may still arrive after the check).
void screenshot_when_idle(scalify::views::MainWindow& window, const QString& file) {
  auto* poll = new QTimer(&window);
  poll->setInterval(200);
  QObject::connect(poll, &QTimer::timeout, &window, [&window, poll, file] {
    if (!window.idle()) return;
    poll->stop();
    const bool saved = window.grab().save(file, "PNG");
    if (!saved) QTextStream(stderr) << "scalify-studio: cannot write " << file << '\n';
    QCoreApplication::exit(saved ? 0 : 1);
  });
  QObject::connect(&window, &scalify::views::MainWindow::checkDone, poll,
                   qOverload<>(&QTimer::start));
  QTimer::singleShot(kScreenshotTimeoutMs, &window, [] {
    QTextStream(stderr) << "scalify-studio: the check did not finish in time\n";
    QCoreApplication::exit(1);
  });
}

/// --timings: prints to stderr when each pane first shows a level, when the check ends, and
/// the longest the GUI thread went without serving a 10 ms heartbeat timer.
void report_timings(scalify::views::MainWindow& window) {
  auto* probe = new scalify::views::LatencyProbe(window, 10, &window);
  QObject::connect(probe, &scalify::views::LatencyProbe::milestoneReached, &window,
                   [](const QString& what, qint64 ms, qint64 worst_gap) {
                     QTextStream(stderr) << "timings: " << what << " after " << ms
                                         << " ms (worst GUI gap so far " << worst_gap << " ms)\n";
                   });
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("Scalify"));
  QCoreApplication::setApplicationName(QStringLiteral("Scalify Studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SCALIFY_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Scalify Studio: shows a distributed HLO program next to its reference, "
                     "proves them equivalent or shows where they diverge."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("REF"),
      QStringLiteral("the reference program, or alone a saved session (FILE.scalify)"));
  parser.addPositionalArgument(QStringLiteral("DIST"), QStringLiteral("the distributed program"));
  const QCommandLineOption screenshot(
      QStringLiteral("screenshot"),
      QStringLiteral("Save the window to FILE (PNG) once the check is done, then quit."),
      QStringLiteral("FILE"));
  parser.addOption(screenshot);
  const QCommandLineOption timings(
      QStringLiteral("timings"),
      QStringLiteral("Print when the graphs appear, when the check ends and the GUI thread's "
                     "longest stall (stderr)."));
  parser.addOption(timings);
  parser.process(app);
  const QStringList files = parser.positionalArguments();
  const bool session = files.size() == 1 && files[0].endsWith(QStringLiteral(".scalify"));
  if (!files.isEmpty() && files.size() != 2 && !session) {
    QTextStream(stderr)
        << "scalify-studio: give both programs (REF DIST), a session (FILE.scalify) or none\n";
    return 2;
  }

  scalify::views::MainWindow window;
  if (parser.isSet(screenshot)) {
    window.set_interactive(false);
    screenshot_when_idle(window, parser.value(screenshot));
  }
  if (parser.isSet(timings)) report_timings(window);
  window.show();
  if (session) {
    window.open_session(files[0]);
  } else if (files.size() == 2) {
    window.open_pair({files[0], files[1]});
  } else {
    window.open_example();
  }
  return QApplication::exec();
}
