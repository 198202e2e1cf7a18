// The list of the user's notes on nodes (a dock): pane, node and text, one row each.
// Double-clicking a row asks the window to show that node.
#pragma once

#include <QListWidget>
#include <QString>

#include "views/node_notes.h"

namespace scalify::views {

class NotesPanel : public QListWidget {
  Q_OBJECT

 public:
  explicit NotesPanel(QWidget* parent = nullptr);

  /// Shows `notes` (an empty list says how to add one).
  void show_notes(const NodeNotes& notes);

 signals:
  /// The user double-clicked the note on `node` in `pane`.
  void noteActivated(scalify::store::Pane pane, const QString& node);
};

}  // namespace scalify::views
