#include "views/pair_files.h"

#include <QDir>
#include <QFile>

#include "hlo/reader.h"
#include "modelgen/llama_generator.h"

namespace scalify::views {

namespace {

bool write_text(const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

}  // namespace

LoadedPair load_pair(const PairPaths& paths) {
  LoadedPair out;
  auto ref = hlo::read_module_file(paths.ref.toStdString());
  if (!ref) {
    out.error = QString::fromStdString(ref.error().format());
    return out;
  }
  auto dist = hlo::read_module_file(paths.dist.toStdString());
  if (!dist) {
    out.error = QString::fromStdString(dist.error().format());
    return out;
  }
  out.ref = std::make_shared<const ir::Module>(std::move(*ref));
  out.dist = std::make_shared<const ir::Module>(std::move(*dist));
  out.ref_graph = std::make_shared<const GraphModel>(out.ref);
  out.dist_graph = std::make_shared<const GraphModel>(out.dist);
  return out;
}

PairPaths write_llama_pair(const modelgen::GenOptions& options, const QString& dir,
                           QString* error) {
  auto pair = modelgen::generate_llama(options);
  if (!pair) {
    *error = QString::fromStdString(pair.error().message);
    return {};
  }
  const QDir d(dir);
  PairPaths paths{d.filePath(QStringLiteral("ref.hlo")), d.filePath(QStringLiteral("dist.hlo"))};
  if (!write_text(paths.ref, pair->ref_hlo) || !write_text(paths.dist, pair->dist_hlo) ||
      !write_text(d.filePath(QStringLiteral("model.py")), pair->model_py)) {
    *error = QStringLiteral("cannot write the example pair into %1").arg(dir);
    return {};
  }
  return paths;
}

PairPaths write_example_pair(const QString& dir, QString* error) {
  modelgen::GenOptions options;
  options.model = *modelgen::llama_preset("tiny");
  options.tp = 2;
  options.bug = *modelgen::parse_bug("missing-allreduce@1");
  return write_llama_pair(options, dir, error);
}

}  // namespace scalify::views
