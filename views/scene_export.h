// Writing a graph pane's scene to a file, as PNG or SVG: both are painted by one function, so
// the two exports always show the same picture.
#pragma once

#include <QImage>
#include <QString>

class QGraphicsScene;

namespace scalify::views {

enum class ExportFormat { kPng, kSvg };

/// The format a file name asks for: `.svg` (any case) is SVG, anything else PNG.
ExportFormat export_format_for(const QString& path);

/// The scene (its sceneRect) on a white background, twice its size when that stays within
/// 12,000 pixels a side, smaller otherwise.
QImage scene_image(QGraphicsScene& scene);

/// Writes the scene to `path`: a PNG image, or an SVG drawing at the scene's own size (text
/// stays text). false, with `error` saying why, when the file cannot be written.
///
///   QString error;
///   if (!export_scene(scene, "graph.svg", ExportFormat::kSvg, &error)) qWarning() << error;
bool export_scene(QGraphicsScene& scene, const QString& path, ExportFormat format, QString* error);

}  // namespace scalify::views
