// The guided walk in the window: after a gallery example is opened and checked, Start walk
// shows the first step; Next, pressed to the end, moves the saturation timeline to each step's
// fact, selects the step's node and shows its caption, ending at the divergence; Back goes one
// step back; a new result ends the walk. Any checked pair, not only an example, can be walked.
#include "views/guided_walk_panel.h"

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <catch2/catch.hpp>

#include "verify/walk.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/saturation_timeline.h"
#include "views_test_support.h"

namespace scalify::views {

namespace {

using test::wait_until;

QToolButton* button_of(GuidedWalkPanel* panel, QAction* action) {
  for (QToolButton* b : panel->findChildren<QToolButton*>()) {
    if (b->defaultAction() == action) return b;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("GuidedWalkPanel: a gallery example walked with Next to its divergence, and Back") {
  MainWindow w;
  w.set_interactive(false);
  QSignalSpy done(&w, &MainWindow::checkDone);
  GuidedWalkPanel* walk = w.guided_walk();
  REQUIRE(walk);
  CHECK_FALSE(walk->start_action()->isEnabled());  // nothing checked yet

  REQUIRE(w.open_gallery_example("mlp-column-row", true));
  REQUIRE(wait_until([&] { return done.count() > 0 && w.idle() && w.result(); }, 60'000));
  REQUIRE(w.result()->verdict == verify::Verdict::kDivergent);
  CHECK(walk->isVisibleTo(walk->window()));  // in the Example dock
  CHECK(walk->start_action()->isEnabled());
  CHECK_FALSE(walk->next_action()->isEnabled());
  CHECK_FALSE(walk->walking());
  CHECK(walk->next_action()->shortcut() == QKeySequence(Qt::ALT | Qt::Key_Right));

  const std::vector<verify::WalkStep> expected = verify::guided_walk(*w.result());
  REQUIRE(expected.size() >= 3);
  const int n = static_cast<int>(expected.size());
  SaturationTimeline* timeline = w.saturation_timeline();
  GraphView* dist = w.distributed_view();
  QToolButton* start = button_of(walk, walk->start_action());
  QToolButton* next = button_of(walk, walk->next_action());
  QToolButton* back = button_of(walk, walk->back_action());
  REQUIRE(start);
  REQUIRE(next);
  REQUIRE(back);

  QTest::mouseClick(start, Qt::LeftButton);
  REQUIRE(walk->walking());
  REQUIRE(walk->steps() == n);
  CHECK(walk->step() == 0);
  CHECK(walk->caption().startsWith(QStringLiteral("Step 1 of %1: The parameters").arg(n)));
  CHECK(timeline->step() == static_cast<int>(expected[0].fact));
  CHECK_FALSE(walk->back_action()->isEnabled());

  for (int k = 1; k < n; ++k) {
    INFO("step " << k + 1 << ": " << expected[static_cast<size_t>(k)].caption);
    REQUIRE(walk->next_action()->isEnabled());
    QTest::mouseClick(next, Qt::LeftButton);
    const verify::WalkStep& s = expected[static_cast<size_t>(k)];
    CHECK(walk->step() == k);
    CHECK(walk->caption().toStdString() == s.caption);
    CHECK(timeline->step() == static_cast<int>(s.fact));
    CHECK(dist->selected_name() == s.nodes.front());
  }

  // The end: the divergence, with the pane as the check left it.
  CHECK_FALSE(walk->next_action()->isEnabled());
  CHECK(walk->caption().startsWith(QStringLiteral("Step %1 of %1: ").arg(n)));
  const std::string divergent = w.result()->divergence->dist_node;
  CHECK(walk->caption().contains(QString::fromStdString("`" + divergent + "`")));
  CHECK(walk->caption().contains(QStringLiteral("model.py:")));
  CHECK(timeline->at_last_step());
  CHECK(dist->selected_name() == divergent);

  QTest::mouseClick(back, Qt::LeftButton);
  CHECK(walk->step() == n - 2);
  CHECK(timeline->step() == static_cast<int>(expected[static_cast<size_t>(n - 2)].fact));
  CHECK(walk->caption().startsWith(QStringLiteral("Step %1 of %2: ").arg(n - 1).arg(n)));

  // Another example: its result ends the walk.
  REQUIRE(w.open_gallery_example("mlp-column-row", false));
  REQUIRE(wait_until([&] { return done.count() > 1 && w.idle() && w.result(); }, 60'000));
  CHECK(w.result()->verdict == verify::Verdict::kEquivalent);
  CHECK_FALSE(walk->walking());
  CHECK(walk->start_action()->isEnabled());
  walk->start_action()->trigger();
  CHECK(walk->step() == 0);
}

}  // namespace scalify::views

namespace scalify::views {

TEST_CASE("GuidedWalkPanel: any checked pair can be walked, in the Example dock") {
  MainWindow w;
  w.set_interactive(false);
  QTemporaryDir dir;
  REQUIRE(test::open_generated(w, test::tiny_llama(1), dir.path()));
  REQUIRE(w.result());
  GuidedWalkPanel* walk = w.guided_walk();
  REQUIRE(walk->start_action()->isEnabled());
  CHECK(w.example_text().isEmpty());  // no example, no dock yet
  walk->start_action()->trigger();
  CHECK(walk->walking());
  CHECK(walk->caption().startsWith("Step 1 of "));
  CHECK(w.example_text().contains("guided walk steps through this check"));
  CHECK(walk->isVisibleTo(&w));
}

}  // namespace scalify::views
