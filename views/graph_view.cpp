#include "views/graph_view.h"

#include <QContextMenuEvent>
#include <QFutureWatcher>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "views/node_item.h"

namespace scalify::views {

namespace {

constexpr double kZoomStep = 1.2;
constexpr double kMinFitScale = 0.6;  // below this the 8-point labels are unreadable

LayoutRequest request_for(const ViewGraph& graph) {
  LayoutRequest r;
  r.nodes.reserve(graph.nodes.size());
  for (const ViewNode& n : graph.nodes) {
    const auto [w, h] = node_size(n);
    r.nodes.push_back({n.name, w, h});
  }
  for (const auto& [from, to] : graph.edges) r.edges.push_back({from, to});
  return r;
}

QPainterPath edge_path(const EdgePlacement& e) {
  QPainterPath path;
  if (e.points.empty()) return path;
  path.moveTo(e.points[0].x, e.points[0].y);
  for (size_t k = 1; k + 2 < e.points.size(); k += 3) {
    path.cubicTo(e.points[k].x, e.points[k].y, e.points[k + 1].x, e.points[k + 1].y,
                 e.points[k + 2].x, e.points[k + 2].y);
  }
  return path;
}

/// The arrow head: a small triangle from the spline's end to the tip.
QPolygonF arrow_head(const EdgePlacement& e) {
  if (!e.has_tip || e.points.empty()) return {};
  const QPointF end(e.points.back().x, e.points.back().y);
  const QPointF tip(e.tip.x, e.tip.y);
  const QPointF d = tip - end;
  const QPointF side(-d.y() * 0.4, d.x() * 0.4);
  return QPolygonF({tip, end + side, end - side});
}

}  // namespace

GraphView::GraphView(QWidget* parent) : QGraphicsView(parent), scene_(new QGraphicsScene(this)) {
  setScene(scene_);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setBackgroundBrush(QColor(252, 252, 252));
  connect(scene_, &QGraphicsScene::selectionChanged, this, &GraphView::on_selection_changed);
}

GraphView::~GraphView() { disconnect(scene_, nullptr, this, nullptr); }

void GraphView::set_model(std::shared_ptr<const GraphModel> model) {
  ++generation_;
  pending_ = 0;
  cache_.clear();
  items_.clear();
  selecting_ = true;  // clearing a selection of several nodes is not the user's choice
  scene_->clear();
  selecting_ = false;
  want_selected_.clear();
  model_ = std::move(model);
  level_ = kTop;
  if (model_) show_level(kTop);
}

void GraphView::set_marks(NodeMarks marks) {
  marks_ = std::move(marks);
  apply_marks();
}

void GraphView::set_notes(std::unordered_map<std::string, std::string> notes) {
  notes_ = std::move(notes);
  apply_notes();
}

std::vector<std::string> GraphView::expanded_groups() const {
  if (!model_ || !model_->is_overview() || level_ == kTop) return {};
  return {model_->group_title(level_)};
}

void GraphView::set_expanded_groups(const std::vector<std::string>& titles) {
  if (!model_ || !model_->is_overview()) return;
  for (const std::string& title : titles) {
    for (const ViewNode& n : model_->top().nodes) {
      if (!n.is_group || n.name != title) continue;
      if (!want_selected_.empty() && model_->group_of(want_selected_) != n.group) {
        want_selected_.clear();  // it would open its own layer instead
      }
      if (level_ != n.group) show_level(n.group);
      return;
    }
  }
}

void GraphView::show_level(int64_t key) {
  if (!model_) return;
  level_ = key;
  if (const auto it = cache_.find(key); it != cache_.end()) {
    build_scene(*it->second);
    return;
  }
  // Lay the level out on the thread pool; the model is immutable and shared, so the worker
  // may read it while the GUI goes on.
  ++pending_;
  auto* watcher = new QFutureWatcher<std::shared_ptr<const Laid>>(this);
  const uint64_t generation = generation_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, key] {
    watcher->deleteLater();
    if (generation != generation_) return;  // the model changed meanwhile
    --pending_;
    std::shared_ptr<const Laid> laid = watcher->result();
    cache_[key] = laid;
    if (level_ == key) build_scene(*laid);
  });
  watcher->setFuture(QtConcurrent::run([model = model_, key] {
    auto laid = std::make_shared<Laid>();
    laid->graph = key == kTop ? model->top() : model->group_graph(key);
    laid->layout = GraphLayoutEngine::layout(request_for(laid->graph));
    return std::shared_ptr<const Laid>(std::move(laid));
  }));
}

void GraphView::build_scene(const Laid& laid) {
  selecting_ = true;
  items_.clear();
  scene_->clear();
  const QPen edge_pen(QColor(120, 120, 130), 1);
  const QBrush head_brush(QColor(120, 120, 130));
  for (const EdgePlacement& e : laid.layout.edges) {
    scene_->addPath(edge_path(e), edge_pen)->setZValue(-1);
    if (e.has_tip) scene_->addPolygon(arrow_head(e), edge_pen, head_brush)->setZValue(-1);
  }
  for (size_t i = 0; i < laid.graph.nodes.size() && i < laid.layout.nodes.size(); ++i) {
    const NodePlacement& p = laid.layout.nodes[i];
    auto* item = new NodeItem(laid.graph.nodes[i], p.width, p.height);
    item->setPos(p.x, p.y);
    scene_->addItem(item);  // the scene owns it
    items_[item->name()] = item;
  }
  scene_->setSceneRect(
      QRectF(0, 0, laid.layout.width, laid.layout.height).adjusted(-20, -20, 20, 20));
  selecting_ = false;
  apply_marks();
  apply_notes();
  fit();
  if (!want_selected_.empty()) select_node(std::string(want_selected_));  // a copy: it is reset
  emit levelShown(level_);
}

void GraphView::apply_marks() {
  for (auto& [name, item] : items_) {
    const auto fill = marks_.fill.find(name);
    item->set_fill(fill == marks_.fill.end() ? QColor() : fill->second);
    const auto badge = marks_.badge.find(name);
    item->set_badge(badge == marks_.badge.end() ? QString() : badge->second);
    bool red = name == marks_.divergent;
    if (item->node().is_group && !marks_.divergent.empty() && model_) {
      red = model_->group_of(marks_.divergent) == item->node().group;  // the layer holding it
    }
    item->set_divergent(red);
    item->set_origin(!item->node().is_group && name == marks_.origin);
    item->set_dimmed(marks_.dim_unlit && !item->node().is_group && !marks_.lit.count(name));
  }
}

void GraphView::apply_notes() {
  for (auto& [name, item] : items_) {
    if (!item->node().is_group) {
      const auto note = notes_.find(name);
      item->set_note(note == notes_.end() ? QString() : QString::fromStdString(note->second));
      continue;
    }
    // A layer box: how many of its nodes carry a note.
    int inside = 0;
    for (const auto& [node, text] : notes_) {
      inside += model_ && model_->group_of(node) == item->node().group;
    }
    item->set_note(inside == 0 ? QString() : tr("%n note(s) inside this layer", nullptr, inside));
  }
}

void GraphView::select_node(const std::string& name) {
  want_selected_.clear();
  if (!model_ || name.empty()) return;
  const auto it = items_.find(name);
  if (it == items_.end()) {
    // Inside a collapsed layer: open it; the selection follows when it is laid out.
    const auto group = model_->group_of(name);
    if (group && *group != level_) {
      want_selected_ = name;
      show_level(*group);
    } else if (busy()) {
      want_selected_ = name;  // the level is still being laid out
    }
    return;
  }
  selecting_ = true;
  scene_->clearSelection();
  it->second->setSelected(true);
  selecting_ = false;
  primary_ = name;
  centerOn(it->second);
}

void GraphView::select_nodes(const std::vector<std::string>& names) {
  if (names.empty()) return;
  select_node(names.front());
  selecting_ = true;
  for (size_t i = 1; i < names.size(); ++i) {
    if (const auto it = items_.find(names[i]); it != items_.end()) it->second->setSelected(true);
  }
  selecting_ = false;
}

std::string GraphView::selected_name() const {
  if (const auto it = items_.find(primary_); it != items_.end() && it->second->isSelected()) {
    return primary_;
  }
  const QList<QGraphicsItem*> selected = scene_->selectedItems();
  for (QGraphicsItem* item : selected) {
    if (auto* node = dynamic_cast<NodeItem*>(item)) return node->name();
  }
  return {};
}

void GraphView::on_selection_changed() {
  if (selecting_) return;
  const std::string name = selected_name();
  if (!name.empty()) emit nodeSelected(QString::fromStdString(name));
}

void GraphView::zoom_in() { scale(kZoomStep, kZoomStep); }
void GraphView::zoom_out() { scale(1 / kZoomStep, 1 / kZoomStep); }

void GraphView::fit() {
  fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  // A tall graph fitted whole is unreadable: keep text legible and show the top instead.
  if (transform().m11() < kMinFitScale) {
    resetTransform();
    scale(kMinFitScale, kMinFitScale);
    centerOn(scene_->sceneRect().center().x(), scene_->sceneRect().top());
  }
}

QImage GraphView::render_image() const { return scene_image(*scene_); }

bool GraphView::export_to(const QString& path, ExportFormat format, QString* error) const {
  return export_scene(*scene_, path, format, error);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  const double factor = std::pow(kZoomStep, steps);
  scale(factor, factor);
  event->accept();
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  auto* node = dynamic_cast<NodeItem*>(itemAt(event->pos()));
  if (node && node->node().is_group) {
    show_level(node->node().group);
  } else if (!node && level_ != kTop && model_ && model_->is_overview()) {
    show_level(kTop);  // the background of an open layer: back to the overview
  } else {
    QGraphicsView::mouseDoubleClickEvent(event);
  }
  event->accept();
}

void GraphView::contextMenuEvent(QContextMenuEvent* event) {
  auto* node = dynamic_cast<NodeItem*>(itemAt(event->pos()));
  if (!node || node->node().is_group) {
    QGraphicsView::contextMenuEvent(event);
    return;
  }
  emit nodeMenuRequested(QString::fromStdString(node->name()), event->globalPos());
  event->accept();
}

}  // namespace scalify::views
