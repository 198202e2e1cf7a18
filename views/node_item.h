// One box of a graph pane: a rounded rectangle with the op, the shape and the name (or a
// group's title and size), a fill colour, an optional layout badge, a red state, a dashed red
// outline where a divergence's cause began, and a yellow corner when the user wrote a note on it
// (the note in its tooltip).
#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <string>

#include "views/graph_model.h"

namespace scalify::views {

class NodeItem : public QGraphicsItem {
 public:
  /// A box of `width` x `height` points centred on the item's position.
  NodeItem(const ViewNode& node, double width, double height);

  const std::string& name() const { return node_.name; }
  const ViewNode& node() const { return node_; }
  void set_fill(QColor fill);
  void set_badge(QString badge);
  void set_divergent(bool divergent);
  bool divergent() const { return divergent_; }
  /// Where the divergence's cause began: a dashed red outline around the box.
  void set_origin(bool origin);
  bool origin() const { return origin_; }
  /// The user's note ("" for none): a yellow corner, and the text in the tooltip.
  void set_note(QString note);
  const QString& note() const { return note_; }
  /// Faded (the saturation timeline: no fact yet).
  void set_dimmed(bool dimmed) { setOpacity(dimmed ? 0.25 : 1.0); }
  bool dimmed() const { return opacity() < 1.0; }

  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  ViewNode node_;
  QRectF rect_;
  QColor fill_;
  QString badge_;
  bool divergent_ = false;
  bool origin_ = false;
  QString note_;
};

/// The size a node's text needs, in points (an estimate: safe to compute off the GUI thread).
std::pair<double, double> node_size(const ViewNode& node);

}  // namespace scalify::views
