// The saturation timeline: at step 0 only the first fact's node is lit, at the last step the
// pane is as the check left it, stepping moves the label; and in the window, a step fades the
// distributed pane's other nodes and selects the step's node, and a proof row selects its node.
#include "views/saturation_timeline.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <catch2/catch.hpp>

#include "hlo/reader.h"
#include "modelgen/llama_config.h"
#include "verify/check.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/node_item.h"
#include "views/pair_files.h"
#include "views/proof_model.h"
#include "views/proof_panel.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

std::shared_ptr<const verify::CheckResult> linear3_checked() {
  const std::string dir = std::string(SCALIFY_CORPUS_DIR) + "/neuron_torchxla/";
  auto ref = hlo::read_module_file(dir + "linear3_fwd_single.hlo");
  auto dist = hlo::read_module_file(dir + "linear3_fwd_spmd_megatron.hlo");
  REQUIRE(ref);
  REQUIRE(dist);
  auto r = verify::check(*ref, *dist, {});
  REQUIRE(r);
  REQUIRE(r->verdict == verify::Verdict::kEquivalent);
  return std::make_shared<const verify::CheckResult>(std::move(*r));
}

NodeItem* item_named(GraphView* view, const std::string& name) {
  for (QGraphicsItem* item : view->scene()->items()) {
    auto* node = dynamic_cast<NodeItem*>(item);
    if (node && node->name() == name) return node;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("SaturationTimeline: step 0 lights the first fact's node, the last step every match") {
  const auto result = linear3_checked();
  const std::vector<verify::DerivedFact>& d = result->derivation;
  REQUIRE(d.size() >= 3);
  const int n = static_cast<int>(d.size());

  SaturationTimeline timeline;
  QSignalSpy moved(&timeline, &SaturationTimeline::stepChanged);
  timeline.set_result(result);
  CHECK(moved.count() == 0);  // a new result starts at the last step, quietly
  CHECK(timeline.steps() == n);
  CHECK(timeline.at_last_step());

  timeline.set_step(0);
  REQUIRE(moved.count() == 1);
  CHECK(moved.at(0).at(0).toInt() == 0);
  CHECK(timeline.label_text().startsWith(
      QStringLiteral("step 1 of %1: [0] %2 ~ ").arg(n).arg(QString::fromStdString(d[0].dist))));
  CHECK(timeline.node() == d[0].dist);
  NodeMarks first = timeline.marks();
  CHECK(first.dim_unlit);
  CHECK(first.lit == std::unordered_set<std::string>{d[0].dist});
  CHECK(first.fill.size() <= 1);
  for (const auto& [name, colour] : first.fill) CHECK(name == d[0].dist);

  timeline.step_forward();
  REQUIRE(moved.count() == 2);
  CHECK(timeline.step() == 1);
  CHECK(timeline.label_text().startsWith(QStringLiteral("step 2 of %1: [1] ").arg(n)));
  CHECK(timeline.marks().lit.count(d[1].dist) == 1);
  timeline.step_back();
  timeline.step_back();  // already at the first step: no move
  CHECK(timeline.step() == 0);
  CHECK(moved.count() == 3);

  // Lit nodes only accumulate.
  size_t lit = 0;
  for (int k = 0; k + 1 < n; ++k) {
    const NodeMarks m = distributed_marks_at(*result, static_cast<size_t>(k));
    CHECK(m.lit.size() >= lit);
    CHECK(m.lit.count(d[static_cast<size_t>(k)].dist) == 1);
    lit = m.lit.size();
  }

  // The last step: every matched node in its colour with its badge, nothing faded.
  timeline.set_step(n + 5);  // clamped
  CHECK(timeline.at_last_step());
  CHECK(timeline.label_text().startsWith(QStringLiteral("step %1 of %1: ").arg(n)));
  const NodeMarks last = timeline.marks();
  CHECK_FALSE(last.dim_unlit);
  for (const verify::NodeMatch& m : result->matches) {
    CHECK(last.fill.count(m.dist) == 1);
    CHECK(last.badge.count(m.dist) == 1);
  }
  const NodeMarks today = distributed_marks(*result);
  CHECK(last.fill == today.fill);
  CHECK(last.badge == today.badge);

  timeline.clear();
  CHECK(timeline.steps() == 0);
  CHECK(timeline.node().empty());
}

TEST_CASE("MainWindow: the timeline fades the distributed pane; a proof row selects its node") {
  MainWindow w;
  w.set_interactive(false);
  QTemporaryDir dir;
  REQUIRE(test::open_generated(w, test::tiny_llama(1), dir.path()));
  REQUIRE(w.result());
  REQUIRE(w.result()->verdict == verify::Verdict::kEquivalent);
  GraphView* dist = w.distributed_view();
  REQUIRE(!dist->model()->is_overview());

  // Selecting a matched node shows its proof; clicking a premise row selects that node.
  const verify::NodeMatch& m = w.result()->matches.back();
  NodeItem* matched = item_named(dist, m.dist);
  REQUIRE(matched);
  dist->scene()->clearSelection();
  matched->setSelected(true);
  const ProofModel& proof = *w.proof_panel()->model();
  REQUIRE(proof.rowCount() == 1);
  CHECK(proof.data(proof.index(0, 0), ProofModel::kNodeRole).toString().toStdString() == m.dist);
  const QModelIndex root = proof.index(0, 0);
  if (proof.rowCount(root) > 0) {
    const QModelIndex premise = proof.index(0, 0, root);
    const std::string name = proof.data(premise, ProofModel::kNodeRole).toString().toStdString();
    emit w.proof_panel()->tree()->clicked(premise);
    CHECK(dist->selected_name() == name);
    CHECK(proof.data(proof.index(0, 0), ProofModel::kNodeRole).toString().toStdString() ==
          m.dist);  // the tree stays
  }

  // Step 0: only the first fact's node at full strength, and selected.
  SaturationTimeline* timeline = w.saturation_timeline();
  REQUIRE(timeline->steps() == static_cast<int>(w.result()->derivation.size()));
  timeline->set_step(0);
  const std::string first = w.result()->derivation[0].dist;
  CHECK(dist->selected_name() == first);
  size_t faded = 0, bright = 0;
  for (QGraphicsItem* item : dist->scene()->items()) {
    auto* node = dynamic_cast<NodeItem*>(item);
    if (!node) continue;
    (node->dimmed() ? faded : bright) += 1;
    if (node->name() == first) CHECK_FALSE(node->dimmed());
  }
  CHECK(bright == 1);
  CHECK(faded > 10);

  // The last step: nothing faded, as the check left the pane.
  timeline->set_step(timeline->steps() - 1);
  for (QGraphicsItem* item : dist->scene()->items()) {
    if (auto* node = dynamic_cast<NodeItem*>(item)) CHECK_FALSE(node->dimmed());
  }
}

}  // namespace scalify::views
