// Scalify Studio's window: the reference (left) and distributed (right) graphs, the bijection
// and divergence docks, a status bar with the check's progress and Cancel, and the menus.
// Files are read and checked on the thread pool; the window never waits for them.
#pragma once

#include <QMainWindow>
#include <QString>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "verify/check_result.h"
#include "views/pair_files.h"
#include "views/scene_export.h"

class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QTableView;
class QTemporaryDir;
class QToolBar;

namespace scalify::views {

class BijectionModel;
class CheckRunner;
class DivergencePanel;
class GraphView;
class ProofPanel;
class SaturationTimeline;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Reads both files and checks them (in the background).
  void open_pair(const PairPaths& paths);
  /// Generates the bundled example (a tiny pair with a planted bug) and opens it.
  void open_example();
  /// Errors go to message boxes when interactive, else to stderr (--screenshot, tests).
  void set_interactive(bool interactive) { interactive_ = interactive; }
  /// Nothing is loading, checking or being laid out.
  bool idle() const;

  GraphView* reference_view() const { return ref_view_; }
  GraphView* distributed_view() const { return dist_view_; }
  BijectionModel* bijection_model() const { return bijection_; }
  DivergencePanel* divergence_panel() const { return panel_; }
  CheckRunner* check_runner() const { return runner_; }
  ProofPanel* proof_panel() const { return proof_; }
  SaturationTimeline* saturation_timeline() const { return timeline_; }
  const PairPaths& paths() const { return paths_; }
  /// The last check's result, or nullptr while checking (or after an error or a cancel).
  const verify::CheckResult* result() const { return result_.get(); }
  /// Cancels the running check (the Cancel button).
  void cancel_check();
  /// Checks the loaded pair again, with the bijection table's overrides (in the background).
  void recheck();

 signals:
  /// The pair loaded and the check ended: with a result, an error or a cancellation; or
  /// loading failed.
  void checkDone();

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void build_docks();
  /// The proof tree and the saturation timeline (views/proof_panel.h, saturation_timeline.h).
  void build_proof_docks();
  /// Selects distributed node `name` and its reference partner, leaving the proof as it is.
  void show_in_panes(const std::string& name);
  void build_status_bar();
  void build_find_bar();
  void on_loaded(const LoadedPair& pair);
  void start_check();
  void show_bijection_menu(const QPoint& pos);
  void on_result(std::shared_ptr<const verify::CheckResult> result);
  void on_progress(qulonglong done, qulonglong total, qulonglong memo_hits);
  void on_check_ended(const QString& verdict, const QString& detail);
  void show_error(const QString& title, const QString& message);
  void select_partner(GraphView* from, const QString& name);
  void find_step(int direction);
  void choose_file(bool reference);
  void export_view(ExportFormat format);
  void remember_recent(const PairPaths& paths);
  void fill_recent_menu();

  GraphView* ref_view_;
  GraphView* dist_view_;
  GraphView* active_view_;  ///< the pane Find and Export act on
  BijectionModel* bijection_;
  QTableView* bijection_table_ = nullptr;
  DivergencePanel* panel_;
  CheckRunner* runner_;
  ProofPanel* proof_ = nullptr;
  SaturationTimeline* timeline_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QLabel* status_ = nullptr;
  QToolBar* find_bar_ = nullptr;
  QLineEdit* find_edit_ = nullptr;
  QMenu* recent_menu_ = nullptr;

  PairPaths paths_;
  std::shared_ptr<const ir::Module> ref_module_, dist_module_;  ///< the pair last loaded
  std::unique_ptr<QTemporaryDir> example_dir_;
  bool interactive_ = true;
  bool loading_ = false;
  uint64_t load_generation_ = 0;
  std::shared_ptr<const verify::CheckResult> result_;
  std::unordered_map<std::string, std::string> dist_to_ref_, ref_to_dist_;
  std::vector<std::string> found_;
  int found_index_ = -1;
  QString found_for_;
};

}  // namespace scalify::views
