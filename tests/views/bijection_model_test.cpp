#include "views/bijection_model.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>
#include <cstdio>

#include "modelgen/llama_config.h"
#include "verify/check.h"
#include "verify/spec.h"
#include "views/pair_files.h"
#include "views_test_support.h"

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
  r.bijection.push_back({"p0.1", "p0.1", 0, 0, verify::Layout::replicated(1), "position", {}, {}});
  r.bijection.push_back({"p1.2",
                         "p1.2",
                         1,
                         1,
                         verify::Layout::on(r.mesh, 0, verify::AxisLayout::shard(1)),
                         "position and shape",
                         {},
                         {}});
  return r;
}

/// The first row whose layout is `layout`, or -1.
int row_with_layout(const BijectionModel& model, const QString& layout) {
  for (int r = 0; r < model.rowCount(); ++r) {
    if (model.data(model.index(r, BijectionModel::kLayout)).toString() == layout) return r;
  }
  return -1;
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

TEST_CASE("BijectionModel: an edit becomes an override, a bad one is refused with the reason") {
  QTemporaryDir dir;
  const modelgen::GenOptions options = test::tiny_llama();
  QString error;
  const LoadedPair pair = load_pair(write_llama_pair(options, dir.path(), &error));
  REQUIRE(pair.error.isEmpty());
  auto result = verify::check(*pair.ref, *pair.dist, {});
  REQUIRE(result);

  g_model_warnings = 0;
  const QtMessageHandler previous = qInstallMessageHandler(count_warnings);
  {
    BijectionModel model;
    QAbstractItemModelTester tester(&model,
                                    QAbstractItemModelTester::FailureReportingMode::Warning);
    QSignalSpy changed(&model, &BijectionModel::overridesChanged);
    QSignalSpy refused(&model, &BijectionModel::editRefused);
    model.set_result(*result);
    const int row = row_with_layout(model, "rep");
    REQUIRE(row >= 0);
    const QModelIndex layout = model.index(row, BijectionModel::kLayout);
    const QModelIndex ref = model.index(row, BijectionModel::kRef);
    CHECK_FALSE(model.flags(layout).testFlag(Qt::ItemIsEditable));  // no programs yet

    model.set_programs(pair.ref, pair.dist);
    model.set_result(*result);
    CHECK(model.flags(layout).testFlag(Qt::ItemIsEditable));
    CHECK(model.flags(ref).testFlag(Qt::ItemIsEditable));
    CHECK_FALSE(model.flags(model.index(row, BijectionModel::kDist)).testFlag(Qt::ItemIsEditable));
    CHECK_FALSE(model.flags(model.index(row, BijectionModel::kWhy)).testFlag(Qt::ItemIsEditable));

    // Refused: not a layout, an axis the mesh lacks, a layout the types refute, no such
    // reference parameter. Nothing changes and no check is asked for.
    CHECK_FALSE(model.setData(layout, "sideways"));
    CHECK(model.last_error().contains("is not a layout on the mesh tp=2"));
    CHECK_FALSE(model.setData(layout, "shard(0,pp)"));
    CHECK(model.last_error().contains("is not a layout"));
    CHECK_FALSE(model.setData(layout, "shard(7,tp)"));
    CHECK(model.last_error().contains("cannot relate"));
    CHECK_FALSE(model.setData(ref, "p999.999"));
    CHECK(model.last_error().contains("no parameter"));
    CHECK_FALSE(model.setData(ref, ""));
    CHECK(model.last_error().contains("or none"));
    CHECK(refused.count() == 5);
    CHECK(changed.count() == 0);
    CHECK(model.overrides().empty());
    CHECK(model.spec() == nullptr);
    CHECK(model.data(layout).toString() == "rep");

    // Unchanged text: accepted, but nothing to check again.
    CHECK(model.setData(layout, " rep "));
    CHECK(changed.count() == 0);

    // Accepted: shown at once, in italic, as the user's; carried as a spec entry.
    REQUIRE(model.setData(layout, "partial(sum,tp)"));
    CHECK(model.last_error().isEmpty());
    CHECK(changed.count() == 1);
    CHECK(model.is_overridden(row));
    CHECK(model.data(layout).toString() == "partial(sum,tp)");
    CHECK(model.data(layout, Qt::FontRole).value<QFont>().italic());
    CHECK(model.data(model.index(row, BijectionModel::kWhy)).toString().startsWith("user"));
    const std::shared_ptr<const verify::Spec> spec = model.spec();
    REQUIRE(spec);
    REQUIRE(spec->parameters.size() == 1);
    CHECK(spec->parameters[0].dist.name ==
          model.data(model.index(row, BijectionModel::kDist)).toString().toStdString());
    REQUIRE(spec->parameters[0].layout);
    CHECK(spec->parameters[0].layout->to_string(result->mesh) == "partial(sum,tp)");
    CHECK(spec->parameters[0].ref);
    CHECK_FALSE(verify::check_spec(*spec, *pair.ref, *pair.dist, result->mesh));

    // A new result keeps the overrides; clearing one asks for a check again.
    model.set_result(*result);
    CHECK(model.is_overridden(row));
    model.clear_override(row);
    CHECK(changed.count() == 2);
    CHECK_FALSE(model.is_overridden(row));
    CHECK(model.spec() == nullptr);
    REQUIRE(model.setData(ref, "none"));  // no counterpart
    CHECK(model.spec()->parameters[0].no_ref);
    model.clear_overrides();
    CHECK(changed.count() == 4);
    model.clear_overrides();  // nothing left: no signal
    CHECK(changed.count() == 4);
  }
  qInstallMessageHandler(previous);
  CHECK(g_model_warnings == 0);
}

}  // namespace scalify::views
