#include "views/notes_panel.h"

namespace scalify::views {

namespace {

constexpr int kPaneRole = Qt::UserRole;
constexpr int kNodeRole = Qt::UserRole + 1;

}  // namespace

NotesPanel::NotesPanel(QWidget* parent) : QListWidget(parent) {
  setWordWrap(true);
  setAlternatingRowColors(true);
  connect(this, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
    if (!item->data(kNodeRole).isValid()) return;  // the hint
    emit noteActivated(static_cast<store::Pane>(item->data(kPaneRole).toInt()),
                       item->data(kNodeRole).toString());
  });
  show_notes({});
}

void NotesPanel::show_notes(const NodeNotes& notes) {
  clear();
  for (const store::NodeNote& n : notes.list()) {
    const QString pane = n.pane == store::Pane::kReference ? tr("reference") : tr("distributed");
    auto* item = new QListWidgetItem(
        QStringLiteral("%1 · %2\n%3")
            .arg(pane, QString::fromStdString(n.node), QString::fromStdString(n.text)),
        this);  // the list owns it
    item->setData(kPaneRole, static_cast<int>(n.pane));
    item->setData(kNodeRole, QString::fromStdString(n.node));
    item->setToolTip(tr("Double-click to show the node"));
  }
  if (notes.empty()) {
    auto* hint = new QListWidgetItem(
        tr("No notes. Right-click a node (or Edit › Note on the selected node…) to add one."),
        this);
    hint->setFlags(Qt::NoItemFlags);
  }
}

}  // namespace scalify::views
