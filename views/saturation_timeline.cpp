#include "views/saturation_timeline.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>
#include <QToolButton>
#include <algorithm>

namespace scalify::views {

SaturationTimeline::SaturationTimeline(QWidget* parent)
    : QWidget(parent),
      back_(new QToolButton(this)),
      slider_(new QSlider(Qt::Horizontal, this)),
      forward_(new QToolButton(this)),
      label_(new QLabel(this)) {
  auto* layout = new QHBoxLayout(this);
  back_->setArrowType(Qt::LeftArrow);
  back_->setToolTip(tr("Step back"));
  back_->setAutoRepeat(true);
  forward_->setArrowType(Qt::RightArrow);
  forward_->setToolTip(tr("Step forward"));
  forward_->setAutoRepeat(true);
  slider_->setToolTip(
      tr("The derivation fact by fact: the distributed nodes proved by this "
         "step are coloured, the others faded"));
  slider_->setPageStep(10);
  label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  label_->setMinimumWidth(420);
  label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a long fact: cut
  layout->addWidget(back_);
  layout->addWidget(slider_, 1);
  layout->addWidget(forward_);
  layout->addWidget(label_, 2);
  connect(back_, &QToolButton::clicked, this, &SaturationTimeline::step_back);
  connect(forward_, &QToolButton::clicked, this, &SaturationTimeline::step_forward);
  connect(slider_, &QSlider::valueChanged, this, [this](int step) {
    show_step(step);
    emit stepChanged(step);
  });
  clear();
}

void SaturationTimeline::set_result(std::shared_ptr<const verify::CheckResult> result) {
  result_ = std::move(result);
  const int n = result_ ? static_cast<int>(result_->derivation.size()) : 0;
  {
    const QSignalBlocker quiet(slider_);
    slider_->setRange(0, std::max(0, n - 1));
    slider_->setValue(std::max(0, n - 1));
  }
  show_step(slider_->value());
}

void SaturationTimeline::clear() { set_result(nullptr); }

int SaturationTimeline::step() const { return slider_->value(); }

int SaturationTimeline::steps() const {
  return result_ ? static_cast<int>(result_->derivation.size()) : 0;
}

void SaturationTimeline::set_step(int step) {
  slider_->setValue(std::clamp(step, slider_->minimum(), slider_->maximum()));
}

QString SaturationTimeline::label_text() const { return label_->text(); }

NodeMarks SaturationTimeline::marks() const {
  if (!result_) return {};
  return distributed_marks_at(*result_, static_cast<size_t>(step()));
}

std::string SaturationTimeline::node() const {
  if (steps() == 0) return {};
  return result_->derivation[static_cast<size_t>(step())].dist;
}

void SaturationTimeline::show_step(int step) {
  const int n = steps();
  slider_->setEnabled(n > 1);
  back_->setEnabled(n > 0 && step > 0);
  forward_->setEnabled(n > 0 && step < n - 1);
  if (n == 0) {
    label_->setText(result_ ? tr("no layout facts to step through") : tr("no derivation yet"));
    label_->setToolTip({});
    return;
  }
  const verify::DerivedFact& f = result_->derivation[static_cast<size_t>(step)];
  const QString fact = QStringLiteral("[%1] %2").arg(f.index).arg(
      QString::fromStdString(verify::fact_summary(f, result_->mesh)));
  label_->setText(tr("step %1 of %2: %3").arg(step + 1).arg(n).arg(fact));
  label_->setToolTip(QString::fromStdString(verify::fact_line(f, result_->mesh)));
}

}  // namespace scalify::views
