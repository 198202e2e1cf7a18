// The guided walk (in the Example dock): Start walk, Back and Next step through
// verify::guided_walk of the check's result. Each step moves the saturation timeline to the
// step's fact (the pane lights the nodes proved by then), asks the window to select and centre
// the step's nodes, and shows the step's caption ("Step 3 of 12: `dot.12` contracts …").
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>
#include <vector>

#include "verify/check_result.h"
#include "verify/walk.h"

class QAction;
class QLabel;
class QToolButton;

namespace scalify::views {

class SaturationTimeline;

class GuidedWalkPanel : public QWidget {
  Q_OBJECT

 public:
  /// Steps `timeline` (not owned; it outlives the panel, both children of the window).
  explicit GuidedWalkPanel(SaturationTimeline* timeline, QWidget* parent = nullptr);

  /// The result to walk through (a new one ends the walk); nullptr: nothing to walk yet.
  void set_result(std::shared_ptr<const verify::CheckResult> result);
  void clear() { set_result(nullptr); }

  /// Starts at the first step (the walk is made then, from the result).
  void start();
  void next();
  void back();

  bool walking() const { return step_ >= 0; }
  /// The step shown (0-based), -1 when not walking; how many steps the walk has (0 before it
  /// starts).
  int step() const { return step_; }
  int steps() const { return static_cast<int>(walk_.size()); }
  /// The caption shown (the step's, or what to do before the walk).
  QString caption() const;

  /// Start walk, Back and Next, for the window's menu (Ctrl+Shift+W, Alt+Left, Alt+Right).
  QAction* start_action() const { return start_; }
  QAction* back_action() const { return back_; }
  QAction* next_action() const { return next_; }

 signals:
  /// A step is shown: select and centre `nodes` (distributed names, the one the caption is
  /// about first).
  void nodesToShow(const QStringList& nodes);

 private:
  void show_step(int step);
  void update_actions();

  SaturationTimeline* timeline_;
  QAction* start_;
  QAction* back_;
  QAction* next_;
  QLabel* position_;
  QLabel* caption_;
  std::shared_ptr<const verify::CheckResult> result_;
  std::vector<verify::WalkStep> walk_;
  int step_ = -1;
};

}  // namespace scalify::views
