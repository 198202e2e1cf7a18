// Scalify Studio's window: the reference (left) and distributed (right) graphs, the bijection,
// divergence and notes docks, a status bar with the check's progress and Cancel, and the menus.
// Files are read and checked on the thread pool; the window never waits for them. A session
// (.scalify: the pair, overrides, result, open layers and notes) is saved and opened again
// without checking again; the result can be exported as a report.
#pragma once

#include <QMainWindow>
#include <QString>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "store/session_file.h"
#include "verify/check_result.h"
#include "views/node_notes.h"
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

class QDockWidget;
class QTextBrowser;

namespace scalify::views {

class BijectionModel;
class CheckRunner;
class DivergencePanel;
class GraphView;
class GuidedWalkPanel;
class NotesPanel;
class ProofPanel;
class ProofRecheck;
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
  /// Opens a teaching example of the gallery (`scalify gen example NAME`, Help › Examples), its
  /// variant with the bug or the correct one, and shows its explanation in the Example dock;
  /// false (and a message) for an unknown name or a pair that cannot be written.
  bool open_gallery_example(const std::string& name, bool with_bug);
  /// The Example dock's text ("" before an example is opened), for tests.
  QString example_text() const;
  /// Opens a saved session in the background: the programs from the text it holds, the
  /// overrides, notes and open layers, and its result shown as it was, without checking again
  /// (the check runs only when the session holds no result).
  void open_session(const QString& path);
  /// Saves the pair, the overrides, the result, the open layers and the notes to `path`; false
  /// and `error` when there is no pair or the file cannot be written.
  bool save_session(const QString& path, QString* error);
  /// The session as save_session() would write it (programs empty when no pair is loaded).
  store::Session current_session() const;
  /// Writes the result as a report (core/report: `.html` page or `.md` comment, by extension);
  /// false and `error` when there is no result or the file cannot be written.
  bool export_report(const QString& path, QString* error);
  /// Sets the note on `node` of `pane` (empty text: removes it).
  void set_note(store::Pane pane, const std::string& node, const QString& text);
  const NodeNotes& notes() const { return notes_; }
  /// Errors go to message boxes when interactive, else to stderr (--screenshot, tests).
  void set_interactive(bool interactive) { interactive_ = interactive; }
  /// Nothing is loading, checking or being laid out.
  bool idle() const;

  GraphView* reference_view() const { return ref_view_; }
  GraphView* distributed_view() const { return dist_view_; }
  BijectionModel* bijection_model() const { return bijection_; }
  DivergencePanel* divergence_panel() const { return panel_; }
  CheckRunner* check_runner() const { return runner_; }
  /// How many staged (partial) results the window has shown, for tests.
  size_t staged_results() const { return staged_results_; }
  NotesPanel* notes_panel() const { return notes_panel_; }
  ProofPanel* proof_panel() const { return proof_; }
  SaturationTimeline* saturation_timeline() const { return timeline_; }
  /// The guided walk of the Example dock (views/guided_walk_panel.h).
  GuidedWalkPanel* guided_walk() const { return walk_; }
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
  /// The proof tree, the saturation timeline and the guided walk that steps it
  /// (views/proof_panel.h, saturation_timeline.h, guided_walk_panel.h).
  void build_proof_docks();
  /// The Example dock (the guided walk above an example's explanation), made once.
  void make_example_dock();
  /// Selects distributed node `name` and its reference partner, leaving the proof as it is.
  void show_in_panes(const std::string& name);
  void build_status_bar();
  void build_find_bar();
  void on_loaded(const LoadedPair& pair);
  void on_session_loaded(const LoadedSession& loaded);
  /// Shows a freshly read pair (no result yet, no overrides).
  void show_pair(const LoadedPair& pair);
  void start_check();
  void show_bijection_menu(const QPoint& pos);
  void on_result(std::shared_ptr<const verify::CheckResult> result);
  void on_progress(qulonglong done, qulonglong total, qulonglong memo_hits);
  /// The results in stages: colours and badges of the nodes matched so far.
  void on_staged(std::shared_ptr<const verify::CheckResult> partial);
  void on_check_ended(const QString& verdict, const QString& detail);
  void show_error(const QString& title, const QString& message);
  void select_partner(GraphView* from, const QString& name);
  void find_step(int direction);
  void choose_file(bool reference);
  void export_view(ExportFormat format);
  void choose_session_to_open();
  void choose_session_to_save();
  void choose_report();
  void show_node_menu(GraphView* view, const QString& name, const QPoint& global);
  /// Asks for the text of the note on `node` (interactive).
  void edit_note(GraphView* view, const std::string& node);
  /// Shows the notes in both panes and in the notes dock.
  void refresh_notes();
  store::Pane pane_of(const GraphView* view) const;
  void remember_recent(const PairPaths& paths);
  void fill_recent_menu();

  GraphView* ref_view_;
  GraphView* dist_view_;
  GraphView* active_view_;  ///< the pane Find and Export act on
  BijectionModel* bijection_;
  QTableView* bijection_table_ = nullptr;
  DivergencePanel* panel_;
  NotesPanel* notes_panel_;
  CheckRunner* runner_;
  ProofRecheck* recheck_;  ///< the independent checker's second opinion on each result
  ProofPanel* proof_ = nullptr;
  SaturationTimeline* timeline_ = nullptr;
  GuidedWalkPanel* walk_ = nullptr;  ///< shown in the Example dock
  QMenu* help_menu_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QLabel* status_ = nullptr;
  QToolBar* find_bar_ = nullptr;
  QLineEdit* find_edit_ = nullptr;
  QMenu* recent_menu_ = nullptr;

  PairPaths paths_;
  std::shared_ptr<const ir::Module> ref_module_, dist_module_;  ///< the pair last loaded
  std::shared_ptr<const std::string> ref_text_, dist_text_;     ///< their text, for a session
  QString session_path_;  ///< the session last opened or saved
  NodeNotes notes_;
  std::unique_ptr<QTemporaryDir> example_dir_;
  QDockWidget* example_dock_ = nullptr;  ///< made on the first gallery example
  QTextBrowser* example_text_ = nullptr;
  bool interactive_ = true;
  bool loading_ = false;
  uint64_t load_generation_ = 0;
  std::shared_ptr<const verify::CheckResult> result_;
  size_t staged_results_ = 0;
  std::unordered_map<std::string, std::string> dist_to_ref_, ref_to_dist_;
  std::vector<std::string> found_;
  int found_index_ = -1;
  QString found_for_;
};

}  // namespace scalify::views
