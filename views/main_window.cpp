#include "views/main_window.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextStream>
#include <QToolBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cstdio>
#include <utility>

#include "modelgen/gallery.h"
#include "report/report.h"
#include "verify/spec.h"
#include "verify/spec_json.h"
#include "views/bijection_model.h"
#include "views/check_runner.h"
#include "views/divergence_panel.h"
#include "views/graph_view.h"
#include "views/guided_walk_panel.h"
#include "views/node_marks.h"
#include "views/notes_panel.h"
#include "views/proof_panel.h"
#include "views/proof_recheck.h"
#include "views/saturation_timeline.h"

namespace scalify::views {

namespace {

constexpr int kMaxRecent = 8;
const QString kRecentKey = QStringLiteral("recentPairs");

const QString kSessionSuffix = QStringLiteral(".scalify");

bool is_hlo(const QUrl& url) {
  return url.isLocalFile() && url.toLocalFile().endsWith(QStringLiteral(".hlo"));
}

bool is_session(const QUrl& url) {
  return url.isLocalFile() && url.toLocalFile().endsWith(kSessionSuffix);
}

/// `path` with `suffix` added when it has none of `suffixes`.
QString with_suffix(const QString& path, const QStringList& suffixes, const QString& suffix) {
  for (const QString& s : suffixes) {
    if (path.endsWith(s, Qt::CaseInsensitive)) return path;
  }
  return path + suffix;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      ref_view_(new GraphView(this)),
      dist_view_(new GraphView(this)),
      active_view_(dist_view_),
      bijection_(new BijectionModel(this)),
      panel_(new DivergencePanel(this)),
      notes_panel_(new NotesPanel(this)),
      runner_(new CheckRunner(this)),
      recheck_(new ProofRecheck(this)) {
  setWindowTitle(tr("Scalify Studio"));
  setAcceptDrops(true);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  splitter->addWidget(ref_view_);
  splitter->addWidget(dist_view_);
  setCentralWidget(splitter);
  build_menus();
  build_docks();
  build_proof_docks();
  build_status_bar();
  build_find_bar();

  connect(ref_view_, &GraphView::nodeSelected, this,
          [this](const QString& name) { select_partner(ref_view_, name); });
  connect(dist_view_, &GraphView::nodeSelected, this,
          [this](const QString& name) { select_partner(dist_view_, name); });
  for (GraphView* view : {ref_view_, dist_view_}) {
    connect(view, &GraphView::nodeMenuRequested, this,
            [this, view](const QString& name, const QPoint& global) {
              show_node_menu(view, name, global);
            });
  }
  connect(notes_panel_, &NotesPanel::noteActivated, this,
          [this](store::Pane pane, const QString& node) {
            GraphView* view = pane == store::Pane::kReference ? ref_view_ : dist_view_;
            view->select_node(node.toStdString());
            select_partner(view, node);
          });
  connect(runner_, &CheckRunner::progress, this, &MainWindow::on_progress);
  connect(runner_, &CheckRunner::staged, this, &MainWindow::on_staged);
  connect(runner_, &CheckRunner::finished, this, &MainWindow::on_result);
  connect(recheck_, &ProofRecheck::finished, this, [this](int outcome, const QString& summary) {
    panel_->show_recheck(outcome, summary);
    statusBar()->showMessage(summary, 8000);
  });
  connect(runner_, &CheckRunner::failed, this, [this](const QString& message) {
    on_check_ended(tr("error"), message);
    show_error(tr("The check failed"), message);
  });
  connect(runner_, &CheckRunner::cancelled, this,
          [this] { on_check_ended(tr("cancelled"), tr("Reload (F5) checks again.")); });
  resize(1400, 900);
}

MainWindow::~MainWindow() = default;

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open &reference…"), this, [this] { choose_file(true); });
  file->addAction(tr("&Open distributed…"), QKeySequence::Open, this,
                  [this] { choose_file(false); });
  recent_menu_ = file->addMenu(tr("Open &recent"));
  connect(recent_menu_, &QMenu::aboutToShow, this, &MainWindow::fill_recent_menu);
  file->addAction(tr("Open the &example"), this, &MainWindow::open_example);
  file->addAction(tr("Open s&ession…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O), this,
                  &MainWindow::choose_session_to_open);
  file->addAction(tr("Re&load"), QKeySequence(Qt::Key_F5), this, [this] {
    if (!paths_.ref.isEmpty() && !paths_.dist.isEmpty()) open_pair(paths_);
  });
  file->addSeparator();
  file->addAction(tr("&Save session…"), QKeySequence::Save, this,
                  &MainWindow::choose_session_to_save);
  file->addAction(tr("Export &report…"), this, &MainWindow::choose_report);
  // Both paint the pane's whole scene the same way (views/scene_export.h).
  file->addAction(tr("&Export view as PNG…"), this, [this] { export_view(ExportFormat::kPng); });
  file->addAction(tr("Export view as &SVG…"), this, [this] { export_view(ExportFormat::kSvg); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);

  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  edit->addAction(tr("&Note on the selected node…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                  this, [this] {
                    const std::string name = active_view_->selected_name();
                    const GraphModel* model = active_view_->model();
                    // At an overview, the selection may be a layer box: no node to note.
                    const bool layer_box =
                        model && model->is_overview() && !model->group_of(name).has_value();
                    if (name.empty() || layer_box) {
                      statusBar()->showMessage(tr("select a node first (not a layer box)"), 4000);
                      return;
                    }
                    edit_note(active_view_, name);
                  });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, this, [this] { active_view_->zoom_in(); });
  view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, this,
                  [this] { active_view_->zoom_out(); });
  view->addAction(tr("&Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), this, [this] {
    ref_view_->fit();
    dist_view_->fit();
  });
  view->addAction(tr("Back to the &overview"), QKeySequence(Qt::Key_Backspace), this, [this] {
    for (GraphView* v : {ref_view_, dist_view_}) {
      if (v->model() && v->model()->is_overview()) v->show_level(GraphView::kTop);
    }
  });
  view->addAction(tr("&Find…"), QKeySequence::Find, this, [this] {
    find_bar_->show();
    find_edit_->setFocus();
    find_edit_->selectAll();
  });

  // The teaching gallery: each example with its bug, or correct.
  help_menu_ = menuBar()->addMenu(tr("&Help"));
  QMenu* examples = help_menu_->addMenu(tr("&Examples"));
  for (const modelgen::GalleryExample& e : modelgen::gallery()) {
    QMenu* one =
        examples->addMenu(QString::fromUtf8(e.title.data(), static_cast<int>(e.title.size())));
    const std::string name(e.name);
    one->addAction(tr("With the bug"), this, [this, name] { open_gallery_example(name, true); });
    one->addAction(tr("Correct"), this, [this, name] { open_gallery_example(name, false); });
  }
}

void MainWindow::make_example_dock() {
  if (example_dock_) return;
  example_text_ = new QTextBrowser(this);
  example_dock_ = new QDockWidget(tr("Example"), this);
  example_dock_->setObjectName(QStringLiteral("example"));
  auto* lesson = new QWidget(example_dock_);  // the walk above the explanation
  auto* layout = new QVBoxLayout(lesson);
  layout->addWidget(walk_);
  layout->addWidget(example_text_, 1);
  walk_->show();
  example_dock_->setWidget(lesson);
  addDockWidget(Qt::RightDockWidgetArea, example_dock_);
}

bool MainWindow::open_gallery_example(const std::string& name, bool with_bug) {
  const auto example = modelgen::find_example(name);
  if (!example) {
    show_error(tr("No such example"), QString::fromStdString(example.error().message));
    return false;
  }
  example_dir_ = std::make_unique<QTemporaryDir>();
  QString error;
  const PairPaths paths = example_dir_->isValid() ? write_llama_pair((*example)->options(with_bug),
                                                                     example_dir_->path(), &error)
                                                  : PairPaths{};
  if (paths.ref.isEmpty()) {
    show_error(tr("No example"), error.isEmpty() ? tr("cannot create a temporary folder") : error);
    return false;
  }
  make_example_dock();
  example_text_->setMarkdown(
      QString::fromStdString(modelgen::example_readme(**example)) +
      (with_bug ? tr("\n*Open now: the variant with the bug (Help › Examples › Correct for the "
                     "other).*\n")
                : tr("\n*Open now: the correct variant.*\n")));
  example_dock_->show();
  open_pair(paths);
  return true;
}

QString MainWindow::example_text() const {
  return example_text_ ? example_text_->toPlainText() : QString();
}

void MainWindow::build_docks() {
  bijection_table_ = new QTableView(this);
  bijection_table_->setModel(bijection_);
  bijection_table_->horizontalHeader()->setStretchLastSection(true);
  // Size columns from the first rows only: measuring 1,000+ rows stalls the GUI thread.
  bijection_table_->horizontalHeader()->setResizeContentsPrecision(64);
  bijection_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  // The reference and layout cells are editable (double-click or F2); an edit checks again.
  bijection_table_->setEditTriggers(QAbstractItemView::DoubleClicked |
                                    QAbstractItemView::EditKeyPressed);
  bijection_table_->setContextMenuPolicy(Qt::CustomContextMenu);
  bijection_table_->setToolTip(
      tr("Double-click a reference or layout cell to pin it (as in a spec file: rep, "
         "shard(DIM,AXIS), partial(sum,AXIS)); the check runs again. Right-click to clear."));
  connect(bijection_table_, &QWidget::customContextMenuRequested, this,
          &MainWindow::show_bijection_menu);
  connect(bijection_, &BijectionModel::overridesChanged, this, &MainWindow::recheck);
  // Queued: the message box must not open while the cell's editor is still committing (it would
  // take the editor's focus and commit it again).
  connect(
      bijection_, &BijectionModel::editRefused, this,
      [this](const QString& reason) {
        statusBar()->showMessage(tr("edit refused: %1").arg(reason), 8000);
        show_error(tr("Edit refused"), reason);
      },
      Qt::QueuedConnection);
  bijection_table_->verticalHeader()->hide();
  bijection_table_->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  auto* bijection_dock = new QDockWidget(tr("Bijection (parameters)"), this);
  bijection_dock->setObjectName(QStringLiteral("bijection"));
  bijection_dock->setWidget(bijection_table_);
  addDockWidget(Qt::BottomDockWidgetArea, bijection_dock);

  auto* panel_dock = new QDockWidget(tr("Verdict and divergence"), this);
  panel_dock->setObjectName(QStringLiteral("divergence"));
  panel_dock->setWidget(panel_);
  addDockWidget(Qt::BottomDockWidgetArea, panel_dock);
  splitDockWidget(bijection_dock, panel_dock, Qt::Horizontal);

  auto* notes_dock = new QDockWidget(tr("Notes"), this);
  notes_dock->setObjectName(QStringLiteral("notes"));
  notes_dock->setWidget(notes_panel_);
  addDockWidget(Qt::BottomDockWidgetArea, notes_dock);
  tabifyDockWidget(panel_dock, notes_dock);
  panel_dock->raise();
  resizeDocks({bijection_dock}, {300}, Qt::Vertical);
}

void MainWindow::build_proof_docks() {
  proof_ = new ProofPanel(this);
  auto* proof_dock = new QDockWidget(tr("Proof"), this);
  proof_dock->setObjectName(QStringLiteral("proof"));
  proof_dock->setWidget(proof_);
  addDockWidget(Qt::BottomDockWidgetArea, proof_dock);
  splitDockWidget(findChild<QDockWidget*>(QStringLiteral("divergence")), proof_dock,
                  Qt::Horizontal);
  connect(proof_, &ProofPanel::nodeActivated, this,
          [this](const QString& name) { show_in_panes(name.toStdString()); });

  timeline_ = new SaturationTimeline(this);
  auto* timeline_dock = new QDockWidget(tr("Saturation timeline"), this);
  timeline_dock->setObjectName(QStringLiteral("timeline"));
  timeline_dock->setWidget(timeline_);
  addDockWidget(Qt::TopDockWidgetArea, timeline_dock);
  connect(timeline_, &SaturationTimeline::stepChanged, this, [this] {
    dist_view_->set_marks(timeline_->marks());
    show_in_panes(timeline_->node());
  });

  walk_ = new GuidedWalkPanel(timeline_, this);
  walk_->hide();  // until the Example dock holds it
  QMenu* walk_menu = help_menu_->addMenu(tr("Guided &walk"));
  walk_menu->addActions({walk_->start_action(), walk_->back_action(), walk_->next_action()});
  // A walk through any check, not only a gallery example's: its captions need the dock.
  connect(walk_->start_action(), &QAction::triggered, this, [this] {
    if (!example_dock_) {
      make_example_dock();
      example_text_->setMarkdown(
          tr("The guided walk steps through this check's derivation. Help › Examples opens a "
             "teaching example, with its explanation here."));
    }
    example_dock_->show();
  });
  connect(walk_, &GuidedWalkPanel::nodesToShow, this, [this](const QStringList& nodes) {
    if (nodes.isEmpty()) return;
    std::vector<std::string> names;
    for (const QString& n : nodes) names.push_back(n.toStdString());
    show_in_panes(names.front());
    dist_view_->select_nodes(names);
    proof_->show_node(names.front());
  });
}

void MainWindow::show_in_panes(const std::string& name) {
  dist_view_->select_node(name);
  if (const auto it = dist_to_ref_.find(name); it != dist_to_ref_.end()) {
    ref_view_->select_node(it->second);
  }
}

void MainWindow::build_status_bar() {
  status_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setMaximumWidth(220);
  progress_->setFormat(tr("parts %v/%m"));
  progress_->hide();
  cancel_button_ = new QPushButton(tr("Cancel"), this);
  cancel_button_->setEnabled(false);
  connect(cancel_button_, &QPushButton::clicked, this, &MainWindow::cancel_check);
  statusBar()->addWidget(status_, 1);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_button_);
}

void MainWindow::build_find_bar() {
  find_bar_ = new QToolBar(tr("Find"), this);
  find_bar_->setObjectName(QStringLiteral("find"));
  find_edit_ = new QLineEdit(find_bar_);
  find_edit_->setPlaceholderText(tr("name, op or op_name"));
  find_edit_->setClearButtonEnabled(true);
  find_bar_->addWidget(find_edit_);
  find_bar_->addAction(tr("Previous"), this, [this] { find_step(-1); });
  find_bar_->addAction(tr("Next"), this, [this] { find_step(+1); });
  connect(find_edit_, &QLineEdit::returnPressed, this, [this] { find_step(+1); });
  addToolBar(Qt::TopToolBarArea, find_bar_);
  find_bar_->hide();
}

void MainWindow::open_pair(const PairPaths& paths) {
  if (paths.ref != paths_.ref || paths.dist != paths_.dist) {
    notes_.clear();  // they were about the other pair (Reload keeps them)
    refresh_notes();
  }
  session_path_.clear();
  paths_ = paths;
  remember_recent(paths);
  runner_->cancel();
  loading_ = true;
  const uint64_t generation = ++load_generation_;
  status_->setText(tr("reading %1 and %2…")
                       .arg(QFileInfo(paths.ref).fileName(), QFileInfo(paths.dist).fileName()));
  panel_->show_message(tr("reading…"));
  auto* watcher = new QFutureWatcher<LoadedPair>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != load_generation_) return;  // another pair was opened meanwhile
    loading_ = false;
    on_loaded(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([paths] { return load_pair(paths); }));
}

void MainWindow::open_example() {
  example_dir_ = std::make_unique<QTemporaryDir>();
  QString error;
  const PairPaths paths =
      example_dir_->isValid() ? write_example_pair(example_dir_->path(), &error) : PairPaths{};
  if (paths.ref.isEmpty()) {
    show_error(tr("No example"), error.isEmpty() ? tr("cannot create a temporary folder") : error);
    emit checkDone();
    return;
  }
  open_pair(paths);
}

void MainWindow::open_session(const QString& path) {
  runner_->cancel();
  loading_ = true;
  const uint64_t generation = ++load_generation_;
  status_->setText(tr("reading the session %1…").arg(QFileInfo(path).fileName()));
  panel_->show_message(tr("reading…"));
  auto* watcher = new QFutureWatcher<LoadedSession>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, path] {
    watcher->deleteLater();
    if (generation != load_generation_) return;  // something else was opened meanwhile
    loading_ = false;
    const LoadedSession loaded = watcher->result();
    if (loaded.error.isEmpty()) session_path_ = path;
    on_session_loaded(loaded);
  });
  watcher->setFuture(QtConcurrent::run([path] { return load_session(path); }));
}

void MainWindow::on_session_loaded(const LoadedSession& loaded) {
  if (!loaded.error.isEmpty()) {
    status_->setText(tr("could not open the session"));
    panel_->show_message(tr("error"), loaded.error);
    show_error(tr("Cannot open the session"), loaded.error);
    emit checkDone();
    return;
  }
  const store::Session& s = loaded.session;
  paths_ = {QString::fromStdString(s.reference.path), QString::fromStdString(s.distributed.path)};
  show_pair(loaded.pair);
  setWindowTitle(tr("Scalify Studio — %1 (%2 vs %3)")
                     .arg(QFileInfo(session_path_).fileName(), QFileInfo(paths_.ref).fileName(),
                          QFileInfo(paths_.dist).fileName()));
  notes_ = NodeNotes(s.notes);
  refresh_notes();
  if (!s.spec.empty()) {
    auto spec = verify::parse_spec(s.spec, session_path_.toStdString());
    auto overrides =
        spec ? BijectionOverrides::from_spec(*spec) : Expected<BijectionOverrides>(spec.error());
    if (overrides) {
      bijection_->restore_overrides(std::move(*overrides), spec->layout_mesh);
    } else {
      show_error(tr("The session's bijection edits were not restored"),
                 QString::fromStdString(overrides.error().format()).trimmed());
    }
  }
  if (loaded.result) {
    on_result(loaded.result);  // as it was: no check runs
  } else {
    start_check();
  }
  // After the result: its divergent node would otherwise open its own layer.
  ref_view_->set_expanded_groups(s.reference.expanded_groups);
  dist_view_->set_expanded_groups(s.distributed.expanded_groups);
}

store::Session MainWindow::current_session() const {
  store::Session s;
  s.reference.path = paths_.ref.toStdString();
  s.distributed.path = paths_.dist.toStdString();
  if (ref_text_) s.reference.hlo = *ref_text_;
  if (dist_text_) s.distributed.hlo = *dist_text_;
  s.reference.expanded_groups = ref_view_->expanded_groups();
  s.distributed.expanded_groups = dist_view_->expanded_groups();
  if (const auto spec = bijection_->spec()) s.spec = verify::spec_to_json(*spec).dump(2);
  if (result_) s.result = *result_;
  s.notes = notes_.list();
  return s;
}

bool MainWindow::save_session(const QString& path, QString* error) {
  if (!ref_module_ || !dist_module_ || loading_) {
    *error = tr("there is no pair to save yet");
    return false;
  }
  const auto saved = store::save_session(path.toStdString(), current_session());
  if (!saved) {
    *error = QString::fromStdString(saved.error().format()).trimmed();
    return false;
  }
  session_path_ = path;
  statusBar()->showMessage(
      result_ ? tr("saved %1").arg(path)
              : tr("saved %1 (without a result: it is checked when opened)").arg(path),
      5000);
  return true;
}

bool MainWindow::export_report(const QString& path, QString* error) {
  if (!result_ || !ref_module_ || !dist_module_) {
    *error = tr("there is no result to report yet");
    return false;
  }
  const auto written = report::write_report(
      path.toStdString(),
      {*result_, *ref_module_, *dist_module_, paths_.ref.toStdString(), paths_.dist.toStdString()});
  if (!written) {
    *error = QString::fromStdString(written.error().format()).trimmed();
    return false;
  }
  statusBar()->showMessage(tr("report written to %1").arg(path), 5000);
  return true;
}

void MainWindow::set_note(store::Pane pane, const std::string& node, const QString& text) {
  notes_.set(pane, node, text.toStdString());
  refresh_notes();
}

void MainWindow::refresh_notes() {
  ref_view_->set_notes(notes_.of_pane(store::Pane::kReference));
  dist_view_->set_notes(notes_.of_pane(store::Pane::kDistributed));
  notes_panel_->show_notes(notes_);
}

store::Pane MainWindow::pane_of(const GraphView* view) const {
  return view == ref_view_ ? store::Pane::kReference : store::Pane::kDistributed;
}

void MainWindow::show_node_menu(GraphView* view, const QString& name, const QPoint& global) {
  const std::string node = name.toStdString();
  const bool has_note = notes_.find(pane_of(view), node) != nullptr;
  QMenu menu(this);
  menu.addAction(has_note ? tr("Edit the note…") : tr("Add a note to %1…").arg(name), this,
                 [this, view, node] { edit_note(view, node); });
  QAction* remove = menu.addAction(tr("Remove the note"), this,
                                   [this, view, node] { set_note(pane_of(view), node, {}); });
  remove->setEnabled(has_note);
  menu.exec(global);
}

void MainWindow::edit_note(GraphView* view, const std::string& node) {
  const store::Pane pane = pane_of(view);
  const std::string* old = notes_.find(pane, node);
  bool ok = false;
  const QString text = QInputDialog::getMultiLineText(
      this, tr("Note"),
      tr("Note on %1 (%2 program); empty removes it:")
          .arg(QString::fromStdString(node),
               pane == store::Pane::kReference ? tr("reference") : tr("distributed")),
      old ? QString::fromStdString(*old) : QString(), &ok);
  if (ok) set_note(pane, node, text);
}

void MainWindow::on_loaded(const LoadedPair& pair) {
  if (!pair.error.isEmpty()) {
    status_->setText(tr("could not read the pair"));
    panel_->show_message(tr("error"), pair.error);
    show_error(tr("Cannot read the program"), pair.error);
    emit checkDone();
    return;
  }
  setWindowTitle(tr("Scalify Studio — %1 vs %2")
                     .arg(QFileInfo(paths_.ref).fileName(), QFileInfo(paths_.dist).fileName()));
  show_pair(pair);
  start_check();
}

void MainWindow::show_pair(const LoadedPair& pair) {
  result_.reset();
  dist_to_ref_.clear();
  ref_to_dist_.clear();
  found_for_.clear();
  ref_module_ = pair.ref;
  dist_module_ = pair.dist;
  ref_text_ = pair.ref_text;
  dist_text_ = pair.dist_text;
  bijection_->set_programs(pair.ref, pair.dist);  // a new pair: no overrides
  ref_view_->set_model(pair.ref_graph);
  dist_view_->set_model(pair.dist_graph);
  ref_view_->set_marks({});
  dist_view_->set_marks({});
  proof_->clear();
  timeline_->clear();
  walk_->clear();
  recheck_->cancel();
  status_->setText(tr("reference %1: %2 instructions · distributed %3: %4 instructions")
                       .arg(QFileInfo(paths_.ref).fileName())
                       .arg(pair.ref->entry().size())
                       .arg(QFileInfo(paths_.dist).fileName())
                       .arg(pair.dist->entry().size()));
  ref_view_->set_notes(notes_.of_pane(store::Pane::kReference));
  dist_view_->set_notes(notes_.of_pane(store::Pane::kDistributed));
}

void MainWindow::recheck() {
  if (!ref_module_ || !dist_module_ || loading_) return;
  result_.reset();  // the marks stay until the new result replaces them
  const int overrides = static_cast<int>(bijection_->overrides().size());
  statusBar()->showMessage(
      overrides == 0 ? tr("checking again with the inferred bijection")
                     : tr("checking again with %n pinned parameter(s)", nullptr, overrides),
      5000);
  start_check();
}

void MainWindow::start_check() {
  panel_->show_message(tr("checking…"));
  progress_->setRange(0, 0);
  progress_->show();
  cancel_button_->setEnabled(true);
  recheck_->cancel();  // its answer would be about the result this check replaces
  runner_->start(ref_module_, dist_module_, paths_.dist, bijection_->spec());
}

void MainWindow::show_bijection_menu(const QPoint& pos) {
  const int row = bijection_table_->indexAt(pos).row();
  QMenu menu(this);
  QAction* one = menu.addAction(tr("Clear this override"), this,
                                [this, row] { bijection_->clear_override(row); });
  one->setEnabled(bijection_->is_overridden(row));
  QAction* all =
      menu.addAction(tr("Clear all overrides"), this, [this] { bijection_->clear_overrides(); });
  all->setEnabled(!bijection_->overrides().empty());
  menu.exec(bijection_table_->viewport()->mapToGlobal(pos));
}

void MainWindow::on_progress(qulonglong done, qulonglong total, qulonglong memo_hits) {
  if (total == 0) return;  // not cut into parts (yet): the bar stays busy
  progress_->setRange(0, static_cast<int>(total));
  progress_->setValue(static_cast<int>(done));
  progress_->setFormat(tr("parts %v/%m, %1 from the memo").arg(memo_hits));
}

void MainWindow::on_staged(std::shared_ptr<const verify::CheckResult> partial) {
  ref_view_->set_marks(reference_marks(*partial));
  dist_view_->set_marks(distributed_marks(*partial));
  statusBar()->showMessage(tr("checking: %1 nodes matched so far").arg(partial->matches.size()));
  ++staged_results_;
}

void MainWindow::on_result(std::shared_ptr<const verify::CheckResult> result) {
  result_ = std::move(result);
  dist_to_ref_.clear();
  ref_to_dist_.clear();
  for (const verify::NodeMatch& m : result_->matches) {
    dist_to_ref_.emplace(m.dist, m.ref);
    ref_to_dist_.emplace(m.ref, m.dist);  // the first distributed node holding it
  }
  if (const auto& d = result_->divergence; d && !d->ref_node.empty()) {
    dist_to_ref_[d->dist_node] = d->ref_node;
  }
  ref_view_->set_marks(reference_marks(*result_));
  dist_view_->set_marks(distributed_marks(*result_));
  bijection_->set_result(*result_);
  bijection_table_->resizeColumnsToContents();
  panel_->show_result(*result_, paths_.dist);
  proof_->set_result(result_);
  timeline_->set_result(result_);
  walk_->set_result(result_);
  recheck_->start(ref_text_, dist_text_, paths_.ref, paths_.dist, result_);
  if (const auto& d = result_->divergence) {
    dist_view_->select_node(d->dist_node);
    ref_view_->select_node(d->ref_node);
    proof_->show_node(d->dist_node);
  } else if (!result_->goals.empty() && result_->goals[0].fact) {
    proof_->show_fact(*result_->goals[0].fact);  // the output's proof, until a node is picked
  }
  on_check_ended(panel_->verdict_text(), {});
}

void MainWindow::on_check_ended(const QString& verdict, const QString& detail) {
  progress_->hide();
  cancel_button_->setEnabled(false);
  if (!result_) panel_->show_message(verdict, detail);
  statusBar()->showMessage(tr("check: %1").arg(verdict), 5000);
  emit checkDone();
}

void MainWindow::cancel_check() { runner_->cancel(); }

bool MainWindow::idle() const {
  return !loading_ && !runner_->running() && !recheck_->running() && !ref_view_->busy() &&
         !dist_view_->busy();
}

void MainWindow::show_error(const QString& title, const QString& message) {
  if (interactive_) {
    QMessageBox::warning(this, title, message);
  } else {
    QTextStream(stderr) << title << ": " << message << '\n';
  }
}

void MainWindow::select_partner(GraphView* from, const QString& name) {
  active_view_ = from;
  GraphView* other = from == ref_view_ ? dist_view_ : ref_view_;
  const auto& partners = from == ref_view_ ? ref_to_dist_ : dist_to_ref_;
  const std::string key = name.toStdString();
  if (const auto it = partners.find(key); it != partners.end()) {
    other->select_node(it->second);
    if (from == ref_view_) proof_->show_node(it->second);
  } else if (other->has_node(key)) {
    other->select_node(key);  // layer boxes of the overviews share their titles
  }
  if (from == dist_view_) proof_->show_node(key);
  statusBar()->showMessage(name, 4000);
}

void MainWindow::find_step(int direction) {
  const QString text = find_edit_->text();
  if (!active_view_->model() || text.isEmpty()) return;
  if (text != found_for_) {
    found_ = active_view_->model()->find(text.toStdString());
    found_for_ = text;
    found_index_ = direction > 0 ? -1 : 0;
  }
  if (found_.empty()) {
    statusBar()->showMessage(tr("no node matches “%1”").arg(text), 4000);
    return;
  }
  const int n = static_cast<int>(found_.size());
  found_index_ = ((found_index_ + direction) % n + n) % n;
  const std::string& name = found_[static_cast<size_t>(found_index_)];
  active_view_->select_node(name);
  select_partner(active_view_, QString::fromStdString(name));
  statusBar()->showMessage(
      tr("%1 of %2: %3").arg(found_index_ + 1).arg(n).arg(QString::fromStdString(name)), 4000);
}

void MainWindow::choose_file(bool reference) {
  const QString path = QFileDialog::getOpenFileName(
      this, reference ? tr("Open the reference program") : tr("Open the distributed program"),
      QFileInfo(reference ? paths_.ref : paths_.dist).absolutePath(), tr("HLO text (*.hlo)"));
  if (path.isEmpty()) return;
  PairPaths next = paths_;
  (reference ? next.ref : next.dist) = path;
  if (next.ref.isEmpty() || next.dist.isEmpty()) {
    paths_ = next;
    status_->setText(
        tr("now open the %1 program").arg(reference ? tr("distributed") : tr("reference")));
    return;
  }
  open_pair(next);
}

void MainWindow::export_view(ExportFormat format) {
  const bool svg = format == ExportFormat::kSvg;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export the view"), svg ? QStringLiteral("graph.svg") : QStringLiteral("graph.png"),
      svg ? tr("SVG drawing (*.svg)") : tr("PNG image (*.png)"));
  if (path.isEmpty()) return;
  QString error;
  if (!active_view_->export_to(path, format, &error)) show_error(tr("Export failed"), error);
}

void MainWindow::choose_session_to_open() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open a session"),
                                                    QFileInfo(session_path_).absolutePath(),
                                                    tr("Scalify session (*.scalify)"));
  if (!path.isEmpty()) open_session(path);
}

void MainWindow::choose_session_to_save() {
  const QString suggested =
      !session_path_.isEmpty()
          ? session_path_
          : QFileInfo(paths_.dist)
                .absoluteDir()
                .filePath(QFileInfo(paths_.dist).completeBaseName() + kSessionSuffix);
  QString path = QFileDialog::getSaveFileName(this, tr("Save the session"), suggested,
                                              tr("Scalify session (*.scalify)"));
  if (path.isEmpty()) return;
  path = with_suffix(path, {kSessionSuffix}, kSessionSuffix);
  QString error;
  if (!save_session(path, &error)) show_error(tr("Cannot save the session"), error);
}

void MainWindow::choose_report() {
  const QString html = tr("HTML page (*.html)"), markdown = tr("Markdown comment (*.md)");
  QString filter = html;
  QString path = QFileDialog::getSaveFileName(
      this, tr("Export the report"),
      QFileInfo(paths_.dist).absoluteDir().filePath(QStringLiteral("report.html")),
      html + QStringLiteral(";;") + markdown, &filter);
  if (path.isEmpty()) return;
  path = with_suffix(path, {QStringLiteral(".html"), QStringLiteral(".htm"), QStringLiteral(".md")},
                     filter == markdown ? QStringLiteral(".md") : QStringLiteral(".html"));
  QString error;
  if (!export_report(path, &error)) show_error(tr("Cannot export the report"), error);
}

void MainWindow::remember_recent(const PairPaths& paths) {
  if (example_dir_ && paths.dist.startsWith(example_dir_->path())) return;  // a temporary pair
  QSettings settings;
  QStringList recent = settings.value(kRecentKey).toStringList();
  const QString entry = paths.ref + QLatin1Char('\n') + paths.dist;
  recent.removeAll(entry);
  recent.prepend(entry);
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(kRecentKey, recent);
}

void MainWindow::fill_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value(kRecentKey).toStringList();
  for (const QString& entry : recent) {
    const QStringList pair = entry.split(QLatin1Char('\n'));
    if (pair.size() != 2) continue;
    recent_menu_->addAction(QStringLiteral("%1  ↔  %2").arg(QFileInfo(pair[0]).fileName(), pair[1]),
                            this, [this, pair] {
                              open_pair({pair[0], pair[1]});
                            });
  }
  if (recent.isEmpty()) recent_menu_->addAction(tr("(none)"))->setEnabled(false);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if ((!urls.isEmpty() && urls.size() <= 2 && std::all_of(urls.begin(), urls.end(), is_hlo)) ||
      (urls.size() == 1 && is_session(urls[0]))) {
    event->acceptProposedAction();
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QList<QUrl> urls = event->mimeData()->urls();
  if (urls.size() == 1 && is_session(urls[0])) {
    event->acceptProposedAction();
    open_session(urls[0].toLocalFile());
    return;
  }
  PairPaths next = paths_;
  if (urls.size() == 2) {
    // Two files: the one named like a reference (ref, tp1, single) goes left.
    next = {urls[0].toLocalFile(), urls[1].toLocalFile()};
    const QString second = QFileInfo(next.dist).fileName();
    if (second.contains(QStringLiteral("ref")) || second.contains(QStringLiteral("tp1")) ||
        second.contains(QStringLiteral("single"))) {
      std::swap(next.ref, next.dist);
    }
  } else if (urls.size() == 1) {
    // One file: it replaces the program of the pane it was dropped on.
    const bool left = event->position().x() < centralWidget()->geometry().center().x();
    (left ? next.ref : next.dist) = urls[0].toLocalFile();
  }
  event->acceptProposedAction();
  if (!next.ref.isEmpty() && !next.dist.isEmpty())
    open_pair(next);
  else
    paths_ = next;
}

}  // namespace scalify::views
