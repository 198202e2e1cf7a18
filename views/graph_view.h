// A graph pane: a GraphModel drawn into a QGraphicsScene from Graphviz layouts computed off the
// GUI thread. A big program shows its layers as boxes; double-clicking one shows that layer's
// instructions (laid out on their own, once, then cached); double-clicking the background goes
// back. Wheel zooms, dragging pans. Nodes with a user's note carry a yellow corner (a layer box
// when a node inside it has one); right-clicking a node asks the window for its menu.
#pragma once

#include <QGraphicsView>
#include <QHash>
#include <QImage>
#include <QString>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "views/graph_layout_engine.h"
#include "views/graph_model.h"
#include "views/node_marks.h"
#include "views/scene_export.h"

class QGraphicsScene;

namespace scalify::views {

class NodeItem;

class GraphView : public QGraphicsView {
  Q_OBJECT

 public:
  /// The level showing GraphModel::top().
  static constexpr int64_t kTop = INT64_MIN;

  explicit GraphView(QWidget* parent = nullptr);
  /// Deleting the scene's items must not report selection changes (several may be selected).
  ~GraphView() override;

  /// Shows `model`'s top level (laid out in the background); nullptr clears the pane.
  void set_model(std::shared_ptr<const GraphModel> model);
  const GraphModel* model() const { return model_.get(); }
  /// Colours, badges and the red node; kept across levels and layouts.
  void set_marks(NodeMarks marks);
  /// The user's notes by node name; kept across levels and layouts.
  void set_notes(std::unordered_map<std::string, std::string> notes);

  /// Selects and centres the node `name`, opening its layer first if it is inside a collapsed
  /// one (the selection then happens when the layer is laid out). Emits no nodeSelected.
  void select_node(const std::string& name);
  /// Selects `names` (the guided walk's step): the first as select_node does, the others too
  /// when they are drawn at the level shown. Emits no nodeSelected.
  void select_nodes(const std::vector<std::string>& names);
  /// The selected node's name, or "" (a layer box's name is its title, "layer 3"); of several,
  /// the one select_node() chose while it stays selected.
  std::string selected_name() const;
  /// Shows a layer (a key of GraphModel) or kTop.
  void show_level(int64_t key);
  int64_t level() const { return level_; }
  /// The titles of the groups open in this pane ("layer 3"): the layer shown, or none at the
  /// overview or in a program shown whole.
  std::vector<std::string> expanded_groups() const;
  /// Opens the first of `titles` that is a group of the model (a saved session's); does nothing
  /// when none is. A node waiting to be selected in another group is no longer waited for.
  void set_expanded_groups(const std::vector<std::string>& titles);
  /// true while a layout is being computed for this pane.
  bool busy() const { return pending_ != 0; }
  /// The nodes currently drawn, by name.
  bool has_node(const std::string& name) const { return items_.contains(name); }

  void zoom_in();
  void zoom_out();
  void fit();
  /// The whole scene as an image.
  QImage render_image() const;
  /// Writes the whole scene to `path` as PNG or SVG (views/scene_export.h).
  bool export_to(const QString& path, ExportFormat format, QString* error) const;

 signals:
  /// The user selected a node (names as in the HLO; a layer box's title).
  void nodeSelected(const QString& name);
  /// A layout arrived and the scene now shows the level.
  void levelShown(qint64 key);
  /// The user right-clicked the node `name` (not a layer box) at `global` (screen) coordinates.
  void nodeMenuRequested(const QString& name, const QPoint& global);

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  struct Laid {
    ViewGraph graph;
    GraphLayout layout;
  };
  void build_scene(const Laid& laid);
  void apply_marks();
  void apply_notes();
  void on_selection_changed();

  QGraphicsScene* scene_;
  std::shared_ptr<const GraphModel> model_;
  NodeMarks marks_;
  std::unordered_map<std::string, std::string> notes_;
  std::map<int64_t, std::shared_ptr<const Laid>> cache_;  ///< laid-out levels of model_
  int64_t level_ = kTop;
  int pending_ = 0;            ///< layouts running for model_
  uint64_t generation_ = 0;    ///< bumped per model: a late layout of an old model is dropped
  std::string want_selected_;  ///< to select once the level it is on is shown
  std::string primary_;        ///< the node select_node chose: selected_name() while selected
  bool selecting_ = false;     ///< selection made by select_node: not the user's
  std::unordered_map<std::string, NodeItem*> items_;
};

}  // namespace scalify::views
