// Sessions and reports from the window: a saved session opens in a fresh window as it was
// (verdict, divergent node, bijection and its edits, notes, open layers) without checking
// again; the result exports as an HTML report.
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

#include "modelgen/llama_generator.h"
#include "views/bijection_model.h"
#include "views/check_runner.h"
#include "views/divergence_panel.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/node_item.h"
#include "views/notes_panel.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

/// Loaded, checked (or restored) and both panes laid out, the divergent node selected.
bool settled(const MainWindow& w) {
  return w.idle() && w.result() && !w.distributed_view()->selected_name().empty();
}

/// Every cell of the bijection table as shown.
std::vector<QString> table_of(const BijectionModel& m) {
  std::vector<QString> cells;
  for (int r = 0; r < m.rowCount(); ++r) {
    for (int c = 0; c < m.columnCount(); ++c) {
      cells.push_back(m.data(m.index(r, c)).toString());
      cells.push_back(m.data(m.index(r, c), Qt::FontRole).isValid() ? "italic" : "");
    }
  }
  return cells;
}

/// The drawn node `name` of `view`, or nullptr.
NodeItem* item_of(GraphView* view, const std::string& name) {
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* node = dynamic_cast<NodeItem*>(item);
    if (node && node->name() == name) return node;
  }
  return nullptr;
}

/// The row of distributed parameter `dist` whose layout is sharded, or -1.
int sharded_row(const BijectionModel& m) {
  for (int r = 0; r < m.rowCount(); ++r) {
    if (m.data(m.index(r, BijectionModel::kLayout)).toString().startsWith("shard(")) return r;
  }
  return -1;
}

}  // namespace

TEST_CASE("Sessions: a saved session opens as it was, without checking again") {
  // The tiny Llama of the bundled example with four layers, so that the panes start as layer
  // overviews and a layer can be left open.
  QTemporaryDir dir;
  const modelgen::GenOptions options = test::tiny_llama(4, "missing-allreduce@1");
  QString error;
  const PairPaths paths = write_llama_pair(options, dir.path(), &error);
  REQUIRE(error.isEmpty());

  const QString session = dir.filePath("bug.scalify");
  std::vector<QString> table;
  std::string verdict, divergent, divergent_ref, source_line;
  size_t matches = 0;
  {
    MainWindow w;
    w.set_interactive(false);
    w.open_pair(paths);
    REQUIRE(wait_until([&] { return settled(w); }, 60'000));
    REQUIRE(w.distributed_view()->model()->is_overview());
    REQUIRE(w.result()->divergence);

    // One edit of the bijection: a sharded parameter pinned to the layout it already has
    // (written differently), so the check runs again and says the same.
    BijectionModel& bijection = *w.bijection_model();
    const int row = sharded_row(bijection);
    REQUIRE(row >= 0);
    const QString layout = bijection.data(bijection.index(row, BijectionModel::kLayout)).toString();
    QString respelled = layout;
    respelled.replace(",", ", ");
    const uint64_t runs = w.check_runner()->generation();
    REQUIRE(bijection.setData(bijection.index(row, BijectionModel::kLayout), respelled));
    REQUIRE(
        wait_until([&] { return w.check_runner()->generation() > runs && settled(w); }, 60'000));
    REQUIRE(bijection.overrides().size() == 1);
    REQUIRE(w.result()->divergence);

    // A note on the divergent node, and layer 3 left open in the distributed pane.
    divergent = w.result()->divergence->dist_node;
    divergent_ref = w.result()->divergence->ref_node;
    w.set_note(store::Pane::kDistributed, divergent, "the all-reduce is missing here");
    w.distributed_view()->show_level(3);
    REQUIRE(wait_until([&] { return w.idle(); }));
    REQUIRE(w.distributed_view()->expanded_groups() == std::vector<std::string>{"layer 3"});

    verdict = w.divergence_panel()->verdict_text().toStdString();
    source_line = std::to_string(w.divergence_panel()->source_line());
    matches = w.result()->matches.size();
    table = table_of(bijection);
    QString save_error;
    REQUIRE(w.save_session(session, &save_error));
    CHECK(save_error.isEmpty());
  }
  CHECK(!QFile::exists(session + ".partial"));

  MainWindow w;
  w.set_interactive(false);
  QSignalSpy done(&w, &MainWindow::checkDone);
  w.open_session(session);
  REQUIRE(wait_until([&] { return done.count() > 0 && w.idle() && w.result(); }, 60'000));
  CHECK(w.check_runner()->generation() == 0);  // no check ran
  CHECK(!w.check_runner()->running());

  const verify::CheckResult& r = *w.result();
  CHECK(w.divergence_panel()->verdict_text().toStdString() == verdict);
  REQUIRE(r.divergence);
  CHECK(r.divergence->dist_node == divergent);
  CHECK(r.divergence->ref_node == divergent_ref);
  CHECK(r.matches.size() == matches);
  CHECK(std::to_string(w.divergence_panel()->source_line()) == source_line);
  CHECK(w.paths().dist == paths.dist);
  CHECK(w.bijection_model()->overrides().size() == 1);
  CHECK(table_of(*w.bijection_model()) == table);

  const std::string* note = w.notes().find(store::Pane::kDistributed, divergent);
  REQUIRE(note);
  CHECK(*note == "the all-reduce is missing here");
  CHECK(w.notes_panel()->count() == 1);
  CHECK(w.notes_panel()->item(0)->text().contains("the all-reduce is missing here"));

  // The open layer, as it was left (not the divergent node's layer 1).
  CHECK(w.distributed_view()->expanded_groups() == std::vector<std::string>{"layer 3"});
  CHECK(w.distributed_view()->level() == 3);

  // The note shows on its node once that node's layer is open.
  w.distributed_view()->select_node(divergent);
  REQUIRE(wait_until([&] { return w.idle() && item_of(w.distributed_view(), divergent); }));
  CHECK(item_of(w.distributed_view(), divergent)->note() == "the all-reduce is missing here");
  CHECK(item_of(w.distributed_view(), divergent)->toolTip().contains("the all-reduce"));
  CHECK(w.check_runner()->generation() == 0);
}

TEST_CASE("Sessions: a file that is not a session is reported and left alone") {
  QTemporaryDir dir;
  const QString path = dir.filePath("notes.scalify");
  {
    QFile f(path);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write("not a session\n");
  }
  MainWindow w;
  w.set_interactive(false);
  QSignalSpy done(&w, &MainWindow::checkDone);
  w.open_session(path);
  REQUIRE(wait_until([&] { return done.count() > 0; }));
  CHECK(w.result() == nullptr);
  CHECK(w.divergence_panel()->verdict_text() == "error");
  CHECK(w.check_runner()->generation() == 0);
  QFile f(path);
  REQUIRE(f.open(QIODevice::ReadOnly));
  CHECK(f.readAll() == "not a session\n");
}

TEST_CASE("Export report: the bundled example's result as an HTML page") {
  MainWindow w;
  w.set_interactive(false);
  w.open_example();
  REQUIRE(wait_until([&] { return settled(w); }, 60'000));
  REQUIRE(w.result()->divergence);
  const std::string node = w.result()->divergence->dist_node;

  QTemporaryDir dir;
  const QString path = dir.filePath("report.html");
  QString error;
  REQUIRE(w.export_report(path, &error));
  QFile f(path);
  REQUIRE(f.open(QIODevice::ReadOnly));
  const QString html = QString::fromUtf8(f.readAll());
  CHECK(html.contains("divergent"));
  CHECK(html.contains(QString::fromStdString(node)));
  CHECK(!QFile::exists(path + ".partial"));

  // A name that is neither .html nor .md is refused with the reason.
  CHECK_FALSE(w.export_report(dir.filePath("report.txt"), &error));
  CHECK(error.contains(".html or .md"));
}

}  // namespace scalify::views
