// Editing the bijection in the window: an override re-runs the check in the background, with
// the override as the check's spec; clearing it checks again with the inferred bijection.
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cstdio>

#include "modelgen/llama_config.h"
#include "views/bijection_model.h"
#include "views/check_runner.h"
#include "views/divergence_panel.h"
#include "views/main_window.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

int g_model_warnings = 0;

void count_warnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg) {
    ++g_model_warnings;
    fprintf(stderr, "%s\n", qPrintable(message));
  }
}

/// The check of generation `generation` or later has ended with a result.
bool checked_since(const MainWindow& w, uint64_t generation) {
  return w.idle() && w.result() && w.check_runner()->generation() >= generation;
}

}  // namespace

TEST_CASE(
    "MainWindow: a binding edited to a wrong layout re-runs the check, clearing restores it") {
  QTemporaryDir dir;
  const modelgen::GenOptions options = test::tiny_llama();
  QString error;
  const PairPaths paths = write_llama_pair(options, dir.path(), &error);
  REQUIRE(error.isEmpty());

  g_model_warnings = 0;
  const QtMessageHandler previous = qInstallMessageHandler(count_warnings);
  {
    MainWindow w;
    w.set_interactive(false);
    BijectionModel& model = *w.bijection_model();
    QAbstractItemModelTester tester(&model,
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    w.open_pair(paths);
    REQUIRE(wait_until([&] { return checked_since(w, 1); }));
    REQUIRE(w.result()->verdict == verify::Verdict::kEquivalent);
    const uint64_t first = w.check_runner()->generation();

    // A replicated weight said to be a partial sum: the check runs again and no longer proves.
    int row = -1;
    for (int r = 0; r < model.rowCount() && row < 0; ++r) {
      if (model.data(model.index(r, BijectionModel::kLayout)).toString() == "rep" &&
          model.data(model.index(r, BijectionModel::kDist)).toString() != "p0.1") {
        row = r;  // p0.1 is the token ids; the first weight after it is a norm's
      }
    }
    REQUIRE(row >= 0);
    const QString param = model.data(model.index(row, BijectionModel::kDist)).toString();
    CAPTURE(param.toStdString());
    QSignalSpy done(&w, &MainWindow::checkDone);
    REQUIRE(model.setData(model.index(row, BijectionModel::kLayout), "partial(sum,tp)"));
    CHECK(w.check_runner()->generation() == first + 1);  // started at once, in the background
    REQUIRE(wait_until([&] { return done.count() > 0 && checked_since(w, first + 1); }));
    const verify::CheckResult& edited = *w.result();
    CHECK(edited.verdict != verify::Verdict::kEquivalent);
    CHECK(w.divergence_panel()->verdict_text() != "equivalent");
    // The table shows the new check's bijection with the user's row marked.
    bool found = false;
    for (int r = 0; r < model.rowCount(); ++r) {
      if (model.data(model.index(r, BijectionModel::kDist)).toString() != param) continue;
      found = true;
      CHECK(model.is_overridden(r));
      CHECK(model.data(model.index(r, BijectionModel::kLayout)).toString() == "partial(sum,tp)");
      CHECK(model.data(model.index(r, BijectionModel::kWhy)).toString().startsWith("user"));
    }
    CHECK(found);

    // A refused edit starts nothing.
    const uint64_t before_refusal = w.check_runner()->generation();
    CHECK_FALSE(model.setData(model.index(row, BijectionModel::kLayout), "shard(0,nowhere)"));
    CHECK(!model.last_error().isEmpty());
    CHECK(w.check_runner()->generation() == before_refusal);

    // Cleared: the inferred bijection again, and the proof with it.
    done.clear();
    model.clear_overrides();
    CHECK(w.check_runner()->generation() == first + 2);
    REQUIRE(wait_until([&] { return done.count() > 0 && checked_since(w, first + 2); }));
    CHECK(w.result()->verdict == verify::Verdict::kEquivalent);
    CHECK(model.overrides().empty());
    for (int r = 0; r < model.rowCount(); ++r) CHECK_FALSE(model.is_overridden(r));
  }
  qInstallMessageHandler(previous);
  CHECK(g_model_warnings == 0);
}

}  // namespace scalify::views
