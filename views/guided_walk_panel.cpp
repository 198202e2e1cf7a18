#include "views/guided_walk_panel.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <utility>

#include "views/saturation_timeline.h"

namespace scalify::views {

namespace {

/// The caption as rich text: the `names` in a code font.
QString caption_html(const std::string& caption) {
  const QStringList parts = QString::fromStdString(caption).split(QLatin1Char('`'));
  QString html;
  for (int i = 0; i < parts.size(); ++i) {
    const QString text = parts[i].toHtmlEscaped();
    html += i % 2 ? QStringLiteral("<code>%1</code>").arg(text) : text;
  }
  return html;
}

QToolButton* button_for(QAction* action, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setDefaultAction(action);
  button->setToolButtonStyle(Qt::ToolButtonTextOnly);
  return button;
}

}  // namespace

GuidedWalkPanel::GuidedWalkPanel(SaturationTimeline* timeline, QWidget* parent)
    : QWidget(parent),
      timeline_(timeline),
      start_(new QAction(tr("Start walk"), this)),
      back_(new QAction(tr("Back"), this)),
      next_(new QAction(tr("Next"), this)),
      position_(new QLabel(this)),
      caption_(new QLabel(this)) {
  start_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
  start_->setToolTip(tr("Walk through the check step by step, in words (Ctrl+Shift+W)"));
  back_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
  back_->setToolTip(tr("The previous step of the walk (Alt+Left)"));
  next_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
  next_->setToolTip(tr("The next step of the walk (Alt+Right)"));
  connect(start_, &QAction::triggered, this, &GuidedWalkPanel::start);
  connect(back_, &QAction::triggered, this, &GuidedWalkPanel::back);
  connect(next_, &QAction::triggered, this, &GuidedWalkPanel::next);

  auto* buttons = new QHBoxLayout;
  buttons->addWidget(button_for(start_, this));
  buttons->addWidget(button_for(back_, this));
  buttons->addWidget(button_for(next_, this));
  buttons->addWidget(position_, 1);
  caption_->setWordWrap(true);
  caption_->setTextFormat(Qt::RichText);
  caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  caption_->setMinimumHeight(fontMetrics().height() * 5);  // a caption is a few lines
  caption_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(buttons);
  layout->addWidget(caption_);
  clear();
}

void GuidedWalkPanel::set_result(std::shared_ptr<const verify::CheckResult> result) {
  result_ = std::move(result);
  walk_.clear();
  step_ = -1;
  position_->clear();
  caption_->setText(result_ ? tr("Start walk: the check's derivation step by step, in words.")
                            : tr("The walk can start when the check has finished."));
  update_actions();
}

void GuidedWalkPanel::start() {
  if (!result_) return;
  walk_ = verify::guided_walk(*result_);  // made on demand: a big program's walk is long
  show_step(0);
}

void GuidedWalkPanel::next() {
  if (walking()) show_step(step_ + 1);
}

void GuidedWalkPanel::back() {
  if (walking()) show_step(step_ - 1);
}

QString GuidedWalkPanel::caption() const {
  return walking() ? QString::fromStdString(walk_[static_cast<size_t>(step_)].caption)
                   : caption_->text();
}

void GuidedWalkPanel::show_step(int step) {
  if (walk_.empty()) return;
  step_ = std::clamp(step, 0, steps() - 1);
  const verify::WalkStep& s = walk_[static_cast<size_t>(step_)];
  position_->setText(tr("step %1 of %2").arg(step_ + 1).arg(steps()));
  caption_->setText(caption_html(s.caption));
  update_actions();
  // The timeline first (it lights the pane and selects its fact's node), then the step's nodes.
  if (s.fact != verify::kNoFact) timeline_->set_step(static_cast<int>(s.fact));
  QStringList nodes;
  for (const std::string& n : s.nodes) nodes << QString::fromStdString(n);
  emit nodesToShow(nodes);
}

void GuidedWalkPanel::update_actions() {
  start_->setEnabled(result_ != nullptr);
  start_->setText(walking() ? tr("Restart walk") : tr("Start walk"));
  back_->setEnabled(walking() && step_ > 0);
  next_->setEnabled(walking() && step_ + 1 < steps());
}

}  // namespace scalify::views
