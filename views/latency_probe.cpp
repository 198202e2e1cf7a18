#include "views/latency_probe.h"

#include <algorithm>

#include "views/graph_view.h"
#include "views/main_window.h"

namespace scalify::views {

LatencyProbe::LatencyProbe(MainWindow& window, int heartbeat_ms, QObject* parent)
    : QObject(parent) {
  clock_.start();
  heartbeat_.setInterval(heartbeat_ms);
  heartbeat_.setTimerType(Qt::PreciseTimer);
  connect(&heartbeat_, &QTimer::timeout, this, &LatencyProbe::beat);
  heartbeat_.start();
  for (GraphView* view : {window.reference_view(), window.distributed_view()}) {
    const bool reference = view == window.reference_view();
    connect(view, &GraphView::levelShown, this, [this, reference](qint64 key) {
      const QString pane = reference ? QStringLiteral("reference") : QStringLiteral("distributed");
      Milestone m;
      m.what = pane + (key == GraphView::kTop ? QStringLiteral(" top level shown")
                                              : QStringLiteral(" layer %1 shown").arg(key));
      m.level = key;
      m.reference = reference;
      note(std::move(m));
    });
  }
  connect(&window, &MainWindow::checkDone, this, [this] {
    Milestone m;
    m.what = QStringLiteral("check done");
    m.check_done = true;
    note(std::move(m));
  });
}

qint64 LatencyProbe::worst_gap_ms() const {
  return std::max(worst_gap_, clock_.elapsed() - last_beat_);
}

void LatencyProbe::restart_gap() {
  last_beat_ = clock_.elapsed();
  worst_gap_ = 0;
}

void LatencyProbe::beat() {
  const qint64 now = clock_.elapsed();
  worst_gap_ = std::max(worst_gap_, now - last_beat_);
  last_beat_ = now;
}

void LatencyProbe::note(Milestone m) {
  m.ms = clock_.elapsed();
  m.worst_gap = std::max(worst_gap_, m.ms - last_beat_);  // a stall that ends here counts too
  milestones_.push_back(m);
  emit milestoneReached(m.what, m.ms, m.worst_gap);
}

}  // namespace scalify::views
