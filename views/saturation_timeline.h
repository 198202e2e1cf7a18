// The saturation timeline: a slider over the check's derivation, with step back and forward
// buttons and a label naming the step's fact ("step 12 of 57: [11] dot.2 ~ rep of dot.3 by
// factor:dot from [6] [10]"). At step k the distributed pane shows the nodes whose facts exist
// by then in their colours and the rest faded (distributed_marks_at), the step's node selected;
// at the last step, the pane as the check left it. For teaching how sharding rewrites work.
#pragma once

#include <QString>
#include <QWidget>
#include <memory>
#include <string>

#include "verify/check_result.h"
#include "views/node_marks.h"

class QLabel;
class QSlider;
class QToolButton;

namespace scalify::views {

class SaturationTimeline : public QWidget {
  Q_OBJECT

 public:
  explicit SaturationTimeline(QWidget* parent = nullptr);

  /// Steps through `result`'s derivation, starting at its last step (no stepChanged).
  void set_result(std::shared_ptr<const verify::CheckResult> result);
  /// Nothing to step through (a new pair is loading).
  void clear();

  /// The step shown (0-based: fact `step()` of the derivation), and how many there are.
  int step() const;
  int steps() const;
  bool at_last_step() const { return steps() == 0 || step() == steps() - 1; }
  /// Moves to `step` (clamped); stepChanged() when it moves.
  void set_step(int step);
  void step_back() { set_step(step() - 1); }
  void step_forward() { set_step(step() + 1); }

  /// The label's text.
  QString label_text() const;
  /// The distributed pane's marks at this step.
  NodeMarks marks() const;
  /// The distributed node of this step's fact ("" with no derivation).
  std::string node() const;

 signals:
  /// The user (or set_step) moved to another step.
  void stepChanged(int step);

 private:
  void show_step(int step);

  QToolButton* back_;
  QSlider* slider_;
  QToolButton* forward_;
  QLabel* label_;
  std::shared_ptr<const verify::CheckResult> result_;
};

}  // namespace scalify::views
