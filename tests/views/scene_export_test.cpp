#include "views/scene_export.h"

#include <QFile>
#include <QGraphicsScene>
#include <QImage>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <catch2/catch.hpp>

#include "views/graph_model.h"
#include "views/node_item.h"

namespace scalify::views {

namespace {

/// A scene of two boxes, as a pane draws them.
void fill_scene(QGraphicsScene& scene) {
  const ViewNode dot{"dot.42", "dot", "f32[8,16]", "model.layers.0.mlp", "model.py:12", false, 0};
  const ViewNode add{"add.7", "add", "f32[8,16]", "", "", false, 0};
  for (const ViewNode* n : {&dot, &add}) {
    const auto [w, h] = node_size(*n);
    auto* item = new NodeItem(*n, w, h);
    item->setPos(120, n == &dot ? 40 : 140);
    scene.addItem(item);  // the scene owns it
  }
  scene.setSceneRect(0, 0, 240, 200);
}

}  // namespace

TEST_CASE("export_scene writes a well-formed SVG with the nodes' labels as text") {
  QGraphicsScene scene;
  fill_scene(scene);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("graph.svg"));
  REQUIRE(export_format_for(path) == ExportFormat::kSvg);
  QString error;
  REQUIRE(export_scene(scene, path, ExportFormat::kSvg, &error));
  CHECK(error.isEmpty());

  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray svg = file.readAll();
  QXmlStreamReader xml(svg);
  QString root;
  QString text;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement() && root.isEmpty()) root = xml.name().toString();
    if (xml.isCharacters()) text += xml.text();
  }
  INFO(svg.left(400).toStdString());
  CHECK(!xml.hasError());
  CHECK(root == QStringLiteral("svg"));
  CHECK(text.contains(QStringLiteral("dot.42")));
  CHECK(text.contains(QStringLiteral("f32[8,16]")));
}

TEST_CASE("export_scene writes a PNG of the scene, and reports a path it cannot write") {
  QGraphicsScene scene;
  fill_scene(scene);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("graph.png"));
  CHECK(export_format_for(path) == ExportFormat::kPng);
  QString error;
  REQUIRE(export_scene(scene, path, ExportFormat::kPng, &error));
  const QImage image(path);
  REQUIRE(!image.isNull());
  CHECK(image.width() == 480);  // twice the scene's width
  CHECK(image.height() == 400);

  const QString nowhere = dir.filePath(QStringLiteral("no/such/folder/graph.svg"));
  CHECK(!export_scene(scene, nowhere, ExportFormat::kSvg, &error));
  CHECK(error.contains(QStringLiteral("cannot write")));
  error.clear();
  CHECK(!export_scene(scene, dir.filePath(QStringLiteral("no/such/folder/graph.png")),
                      ExportFormat::kPng, &error));
  CHECK(!error.isEmpty());
}

}  // namespace scalify::views
