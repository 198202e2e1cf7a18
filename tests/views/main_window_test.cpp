#include "views/main_window.h"

#include <QFile>
#include <QGraphicsScene>
#include <QSignalSpy>
#include <QStringList>
#include <QTemporaryDir>
#include <QTextStream>
#include <catch2/catch.hpp>

#include "modelgen/llama_generator.h"
#include "views/bijection_model.h"
#include "views/check_runner.h"
#include "views/divergence_panel.h"
#include "views/graph_view.h"
#include "views/node_item.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

/// The example loaded and checked, and both panes laid out.
bool example_settled(const MainWindow& w) {
  return w.idle() && w.result() && !w.distributed_view()->selected_name().empty();
}

QString line_of(const QString& path, int line) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly | QIODevice::Text)) return {};
  QStringList lines;
  QTextStream in(&f);
  while (!in.atEnd()) lines << in.readLine();
  return line >= 1 && line <= lines.size() ? lines[line - 1] : QString();
}

/// Selects `name` in `view` as a click would (the view then emits nodeSelected).
bool click_node(GraphView* view, const std::string& name) {
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* node = dynamic_cast<NodeItem*>(item);
    if (!node || node->name() != name) continue;
    view->scene()->clearSelection();
    node->setSelected(true);
    return true;
  }
  return false;
}

}  // namespace

TEST_CASE("MainWindow: the example ends with the divergent node selected and its source shown") {
  MainWindow w;
  w.set_interactive(false);
  w.open_example();
  const bool settled = wait_until([&] { return example_settled(w); });
  // What was missing, if it did not settle.
  const std::string verdict = w.divergence_panel()->verdict_text().toStdString();
  const std::string selected = w.distributed_view()->selected_name();
  const bool idle = w.idle();
  CAPTURE(idle, verdict, selected);
  REQUIRE(settled);

  const verify::CheckResult& r = *w.result();
  REQUIRE(r.verdict == verify::Verdict::kDivergent);
  REQUIRE(r.divergence);
  const verify::Divergence& d = *r.divergence;
  CHECK(w.distributed_view()->selected_name() == d.dist_node);
  CHECK(w.reference_view()->selected_name() == d.ref_node);
  CHECK(w.divergence_panel()->verdict_text() == "divergent");

  // The source panel: model.py beside the generated HLO, the divergence's line highlighted.
  REQUIRE(d.source);
  const DivergencePanel& panel = *w.divergence_panel();
  CHECK(panel.source_path().endsWith("/model.py"));
  CHECK(panel.source_line() == d.source->line);
  CHECK(!panel.highlighted_text().isEmpty());
  CHECK(panel.highlighted_text() == line_of(panel.source_path(), static_cast<int>(d.source->line)));

  CHECK(w.bijection_model()->rowCount() == static_cast<int>(r.bijection.size()));
  CHECK(w.bijection_model()->rowCount() > 0);
}

TEST_CASE("MainWindow: selecting a node selects its partner in the other pane") {
  MainWindow w;
  w.set_interactive(false);
  w.open_example();
  REQUIRE(wait_until([&] { return example_settled(w); }));

  // A matched distributed node whose partner has another name (so the match map is used).
  const verify::NodeMatch* match = nullptr;
  for (const verify::NodeMatch& m : w.result()->matches) {
    if (m.dist != m.ref && w.distributed_view()->has_node(m.dist) &&
        w.reference_view()->has_node(m.ref)) {
      match = &m;
      break;
    }
  }
  if (!match) {
    for (const verify::NodeMatch& m : w.result()->matches) {
      if (w.distributed_view()->has_node(m.dist) && w.reference_view()->has_node(m.ref)) {
        match = &m;
        break;
      }
    }
  }
  REQUIRE(match);
  REQUIRE(click_node(w.distributed_view(), match->dist));
  CHECK(w.reference_view()->selected_name() == match->ref);

  // And back: the reference node selects a distributed node holding its value.
  REQUIRE(click_node(w.reference_view(), match->ref));
  const std::string partner = w.distributed_view()->selected_name();
  REQUIRE(!partner.empty());
  bool holds = false;
  for (const verify::NodeMatch& m : w.result()->matches) {
    holds = holds || (m.dist == partner && m.ref == match->ref);
  }
  CHECK(holds);
}

TEST_CASE("MainWindow: a file that does not parse is reported, not a crash") {
  QTemporaryDir dir;
  QFile bad(dir.filePath("bad.hlo"));
  REQUIRE(bad.open(QIODevice::WriteOnly));
  bad.write("HloModule broken\nENTRY e {\n  ROOT x = f32[2] frobnicate()\n}\n");
  bad.close();
  MainWindow w;
  w.set_interactive(false);
  QSignalSpy done(&w, &MainWindow::checkDone);
  w.open_pair({bad.fileName(), bad.fileName()});
  REQUIRE(wait_until([&] { return done.count() > 0; }));
  CHECK(w.result() == nullptr);
  CHECK(w.divergence_panel()->verdict_text() == "error");
}

TEST_CASE("MainWindow: Cancel stops a running check of a big pair") {
  QTemporaryDir dir;
  modelgen::GenOptions options;
  options.model = *modelgen::llama_preset("8b");  // 32 layers
  options.tp = 2;
  QString error;
  const PairPaths paths = write_llama_pair(options, dir.path(), &error);
  REQUIRE(error.isEmpty());

  MainWindow w;
  w.set_interactive(false);
  QSignalSpy cancelled(w.check_runner(), &CheckRunner::cancelled);
  QSignalSpy finished(w.check_runner(), &CheckRunner::finished);
  w.open_pair(paths);
  REQUIRE(wait_until([&] { return w.check_runner()->running(); }, 60'000));
  w.cancel_check();
  // Cancelled between parts, or (on a fast machine) already done: never hanging.
  REQUIRE(wait_until([&] { return cancelled.count() + finished.count() > 0; }, 20'000));
  CHECK(!w.check_runner()->running());
  if (cancelled.count() > 0) CHECK(w.divergence_panel()->verdict_text() == "cancelled");
}

TEST_CASE("MainWindow: a layered check's results arrive in stages before the final one") {
  QTemporaryDir dir;
  const modelgen::GenOptions options = test::tiny_llama(4);
  QString error;
  const PairPaths paths = write_llama_pair(options, dir.path(), &error);
  REQUIRE(error.isEmpty());

  MainWindow w;
  w.set_interactive(false);
  QSignalSpy staged(w.check_runner(), &CheckRunner::staged);
  QSignalSpy finished(w.check_runner(), &CheckRunner::finished);
  w.open_pair(paths);
  REQUIRE(wait_until([&] { return finished.count() > 0; }, 60'000));
  REQUIRE(staged.count() >= 1);
  const auto partial =
      staged.first().at(0).value<std::shared_ptr<const scalify::verify::CheckResult>>();
  REQUIRE(partial);
  CHECK_FALSE(partial->matches.empty());
  CHECK(w.staged_results() >= 1);
  // The final result has the last word.
  REQUIRE(w.result());
  CHECK(w.result()->verdict == verify::Verdict::kEquivalent);
}

TEST_CASE("MainWindow: Help › Examples opens a gallery example with its explanation") {
  MainWindow w;
  w.set_interactive(false);
  QSignalSpy finished(w.check_runner(), &CheckRunner::finished);
  REQUIRE(w.open_gallery_example("vocab-parallel-embedding", true));
  REQUIRE(wait_until([&] { return finished.count() > 0 && w.result(); }, 60'000));
  CHECK(w.example_text().contains("Vocab-parallel embedding"));
  CHECK(w.example_text().contains("the variant with the bug"));
  REQUIRE(w.result()->verdict == verify::Verdict::kDivergent);
  CHECK(w.result()->divergence->op_name.starts_with("model.embed_tokens/"));

  REQUIRE(w.open_gallery_example("vocab-parallel-embedding", false));
  REQUIRE(wait_until([&] { return finished.count() > 1 && w.result(); }, 60'000));
  CHECK(w.result()->verdict == verify::Verdict::kEquivalent);
  CHECK(w.example_text().contains("the correct variant"));
  CHECK_FALSE(w.open_gallery_example("no-such-example", true));
}

TEST_CASE("MainWindow: a misused partial sum's origin is outlined beside the divergent node") {
  // The MLP with its all-reduce forgotten: the residual add is the divergence, and the down
  // projection's dot, where the partial sum begins, is outlined in the same layer.
  MainWindow w;
  w.set_interactive(false);
  QSignalSpy finished(w.check_runner(), &CheckRunner::finished);
  REQUIRE(w.open_gallery_example("mlp-column-row", true));
  REQUIRE(wait_until([&] { return finished.count() > 0 && w.result() && w.idle(); }, 60'000));
  REQUIRE(w.result()->divergence);
  const verify::Divergence& d = *w.result()->divergence;
  REQUIRE_FALSE(d.origin_node.empty());
  CHECK_THAT(d.reason, Catch::Contains("the partial sum begins at '" + d.origin_node + "'"));

  const NodeItem* origin = nullptr;
  const NodeItem* divergent = nullptr;
  for (QGraphicsItem* item : w.distributed_view()->scene()->items()) {
    const auto* node = dynamic_cast<const NodeItem*>(item);
    if (node && node->name() == d.origin_node) origin = node;
    if (node && node->name() == d.dist_node) divergent = node;
  }
  REQUIRE(origin);
  REQUIRE(divergent);
  CHECK(origin->node().op == "dot");
  CHECK(origin->origin());
  CHECK_FALSE(origin->divergent());
  CHECK(divergent->divergent());
  CHECK_FALSE(divergent->origin());
}

}  // namespace scalify::views
