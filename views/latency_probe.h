// How responsive the window is: a heartbeat timer on the GUI thread records the longest gap
// between its beats (a stall of the event loop), and each milestone (a pane showing a level,
// the check ending) is noted with the time since the probe started. `scalify-studio --timings`
// prints the milestones; the benchmark studio_latency_bench measures with it.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <cstdint>
#include <vector>

namespace scalify::views {

class MainWindow;

class LatencyProbe : public QObject {
  Q_OBJECT

 public:
  struct Milestone {
    QString what;             ///< "reference top level shown", "distributed layer 3 shown", …
    qint64 ms = 0;            ///< since the probe started
    qint64 worst_gap = 0;     ///< the longest heartbeat gap so far, ms
    qint64 level = 0;         ///< the level shown (GraphView::kTop or a layer key)
    bool reference = false;   ///< a level shown in the reference pane
    bool check_done = false;  ///< MainWindow::checkDone: the check ended (or loading failed)
  };

  /// Starts the clock and the heartbeat (every `heartbeat_ms`) and listens to `window`.
  LatencyProbe(MainWindow& window, int heartbeat_ms, QObject* parent = nullptr);

  qint64 elapsed_ms() const { return clock_.elapsed(); }
  /// The longest time between two beats, ms (a heartbeat served on time shows its interval),
  /// since the start or the last restart_gap(); a stall still going counts up to now.
  qint64 worst_gap_ms() const;
  /// Forgets the worst gap: measuring starts again from now.
  void restart_gap();
  const std::vector<Milestone>& milestones() const { return milestones_; }

 signals:
  /// A milestone was noted (also kept in milestones()).
  void milestoneReached(const QString& what, qint64 ms, qint64 worst_gap);

 private:
  void beat();
  void note(Milestone m);

  QElapsedTimer clock_;
  QTimer heartbeat_;
  qint64 last_beat_ = 0;
  qint64 worst_gap_ = 0;
  std::vector<Milestone> milestones_;
};

}  // namespace scalify::views
