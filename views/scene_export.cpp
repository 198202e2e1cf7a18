#include "views/scene_export.h"

#include <QCoreApplication>
#include <QGraphicsScene>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>

namespace scalify::views {

namespace {

constexpr double kMaxImageSide = 12000;
constexpr double kImageScale = 2;

/// The one painting of a scene, shared by every format: a white page, then the scene's
/// sceneRect stretched onto `target`.
void paint_scene(QGraphicsScene& scene, QPainter& painter, const QRectF& target) {
  painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  painter.fillRect(target, Qt::white);
  scene.render(&painter, target, scene.sceneRect());
}

QString tr(const char* text) { return QCoreApplication::translate("scene_export", text); }

}  // namespace

ExportFormat export_format_for(const QString& path) {
  return path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive) ? ExportFormat::kSvg
                                                                    : ExportFormat::kPng;
}

QImage scene_image(QGraphicsScene& scene) {
  const QRectF source = scene.sceneRect();
  const double factor =
      std::min(kImageScale, kMaxImageSide / std::max({source.width(), source.height(), 1.0}));
  QImage image((source.size() * factor).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
  QPainter painter(&image);
  paint_scene(scene, painter, QRectF(QPointF(0, 0), image.size()));
  return image;
}

bool export_scene(QGraphicsScene& scene, const QString& path, ExportFormat format, QString* error) {
  if (format == ExportFormat::kPng) {
    if (scene_image(scene).save(path, "PNG")) return true;
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  const QSizeF size = scene.sceneRect().size().expandedTo(QSizeF(1, 1));
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size.toSize());
  svg.setViewBox(QRectF(QPointF(0, 0), size));
  svg.setTitle(QStringLiteral("Scalify Studio"));
  svg.setDescription(tr("A graph pane of Scalify Studio"));
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error) *error = tr("cannot write %1").arg(path);
    return false;
  }
  paint_scene(scene, painter, QRectF(QPointF(0, 0), size));
  painter.end();
  return true;
}

}  // namespace scalify::views
