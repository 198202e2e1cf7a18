#include "views/node_item.h"

#include <QFont>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyle>
#include <QStyleOptionGraphicsItem>
#include <algorithm>

namespace scalify::views {

namespace {

constexpr double kCharWidth = 6.0;  // of the 8-point font, roughly
constexpr double kMaxWidth = 240;
constexpr double kHeight = 48;

constexpr double kNoteCorner = 14;

QColor default_fill(const ViewNode& node) {
  return node.is_group ? QColor(225, 230, 240) : QColor(245, 245, 245);
}

QString base_tooltip(const ViewNode& node) {
  return QString::fromStdString(node.name + "\n" + node.op + " " + node.shape +
                                (node.op_name.empty() ? "" : "\n" + node.op_name) +
                                (node.source.empty() ? "" : "\n" + node.source));
}

}  // namespace

std::pair<double, double> node_size(const ViewNode& node) {
  const size_t chars = std::max({node.op.size(), node.shape.size(), node.name.size(), size_t{6}});
  const double width = std::min(kMaxWidth, static_cast<double>(chars) * kCharWidth + 28);
  return {width, node.is_group ? kHeight + 8 : kHeight};
}

NodeItem::NodeItem(const ViewNode& node, double width, double height)
    : node_(node), rect_(-width / 2, -height / 2, width, height), fill_(default_fill(node)) {
  setFlag(ItemIsSelectable);
  setToolTip(base_tooltip(node));
}

void NodeItem::set_note(QString note) {
  if (note == note_) return;
  note_ = std::move(note);
  setToolTip(note_.isEmpty() ? base_tooltip(node_)
                             : base_tooltip(node_) + QStringLiteral("\n\nNote: ") + note_);
  update();
}

void NodeItem::set_fill(QColor fill) {
  fill_ = fill.isValid() ? fill : default_fill(node_);
  update();
}

void NodeItem::set_badge(QString badge) {
  badge_ = std::move(badge);
  update();
}

void NodeItem::set_divergent(bool divergent) {
  divergent_ = divergent;
  update();
}

void NodeItem::set_origin(bool origin) {
  origin_ = origin;
  update();
}

QRectF NodeItem::boundingRect() const { return rect_.adjusted(-3, -3, 3, 3); }

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const bool selected = option->state.testFlag(QStyle::State_Selected);
  painter->setRenderHint(QPainter::Antialiasing);
  QPen pen(selected ? QColor(20, 90, 220) : QColor(110, 110, 120), selected ? 3 : 1);
  if (divergent_) pen.setColor(selected ? QColor(120, 0, 0) : QColor(190, 0, 0));
  if (origin_ && !divergent_) {
    pen.setColor(QColor(190, 0, 0));
    pen.setWidthF(2.5);
    pen.setStyle(Qt::DashLine);
  }
  painter->setPen(pen);
  painter->setBrush(divergent_ ? QColor(240, 80, 70) : fill_);
  painter->drawRoundedRect(rect_, 6, 6);

  QFont font = painter->font();
  font.setPointSizeF(8);
  painter->setFont(font);
  const QFontMetricsF metrics(font);
  const QRectF text_rect = rect_.adjusted(6, 4, -6, -4);
  const double line = text_rect.height() / 3;
  const QString lines[3] = {
      QString::fromStdString(node_.is_group ? node_.name : node_.op),
      QString::fromStdString(node_.shape),
      QString::fromStdString(node_.is_group ? std::string("double-click to open") : node_.name)};
  // The badge sits in the top right corner: the first line keeps clear of it.
  const double badge_room = badge_.isEmpty() ? 0 : metrics.horizontalAdvance(badge_) + 8;
  for (int i = 0; i < 3; ++i) {
    font.setBold(i == 0);
    painter->setFont(font);
    painter->setPen(i == 2 ? QColor(70, 70, 80) : QColor(0, 0, 0));
    const double room = i == 0 ? badge_room : 0;
    const QRectF r(text_rect.left() + room, text_rect.top() + i * line,
                   text_rect.width() - 2 * room, line);
    painter->drawText(r, Qt::AlignCenter, metrics.elidedText(lines[i], Qt::ElideMiddle, r.width()));
  }
  if (!note_.isEmpty()) {
    // A folded yellow corner, top left: there is a note (the tooltip shows it).
    const QPointF corner = rect_.topLeft();
    const QPolygonF fold(
        {corner, corner + QPointF(kNoteCorner, 0), corner + QPointF(0, kNoteCorner)});
    painter->setPen(QPen(QColor(150, 120, 0), 1));
    painter->setBrush(QColor(255, 214, 10));
    painter->drawPolygon(fold);
  }
  if (!badge_.isEmpty()) {
    font.setBold(true);
    font.setPointSizeF(7);
    painter->setFont(font);
    const QFontMetricsF badge_metrics(font);
    const double w = badge_metrics.horizontalAdvance(badge_) + 8;
    const QRectF badge(rect_.right() - w - 2, rect_.top() + 2, w, badge_metrics.height() + 2);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(40, 50, 70));
    painter->drawRoundedRect(badge, 3, 3);
    painter->setPen(Qt::white);
    painter->drawText(badge, Qt::AlignCenter, badge_);
  }
}

}  // namespace scalify::views
