#include "views/bijection_model.h"

#include <QAbstractItemModelTester>
#include <catch2/catch.hpp>
#include <cstdio>

namespace scalify::views {

namespace {

int g_model_warnings = 0;

/// QAbstractItemModelTester reports in Warning mode through qWarning: count them.
void count_warnings(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg) {
    ++g_model_warnings;
    fprintf(stderr, "%s\n", qPrintable(message));
  }
}

verify::CheckResult result_with_bijection() {
  verify::CheckResult r;
  r.mesh = *verify::Mesh::parse("tp=2");
  r.bijection.push_back({"p0.1", "p0.1", 0, 0, verify::Layout::replicated(1), "position"});
  r.bijection.push_back({"p1.2", "p1.2", 1, 1,
                         verify::Layout::on(r.mesh, 0, verify::AxisLayout::shard(1)),
                         "position and shape"});
  return r;
}

}  // namespace

TEST_CASE("BijectionModel passes QAbstractItemModelTester through set and clear") {
  g_model_warnings = 0;
  const QtMessageHandler previous = qInstallMessageHandler(count_warnings);
  {
    BijectionModel model;
    QAbstractItemModelTester tester(&model,
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    model.set_result(result_with_bijection());
    REQUIRE(model.rowCount() == 2);
    REQUIRE(model.columnCount() == BijectionModel::kColumnCount);
    CHECK(model.data(model.index(1, BijectionModel::kLayout)).toString() == "shard(1,tp)");
    CHECK(model.data(model.index(1, BijectionModel::kWhy)).toString() == "position and shape");
    CHECK(model.headerData(0, Qt::Horizontal).toString() == "distributed");
    model.clear();
    CHECK(model.rowCount() == 0);
    model.set_result(result_with_bijection());
  }
  qInstallMessageHandler(previous);
  CHECK(g_model_warnings == 0);
}

}  // namespace scalify::views
