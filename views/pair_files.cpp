#include "views/pair_files.h"

#include <QDir>
#include <QFile>

#include "hlo/reader.h"
#include "ir/inline_calls.h"
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
  std::string texts[2];
  const QString* names[2] = {&paths.ref, &paths.dist};
  for (int i = 0; i < 2; ++i) {
    QFile f(*names[i]);
    const bool read = f.open(QIODevice::ReadOnly);
    const QByteArray bytes = read ? f.readAll() : QByteArray();
    if (!read || bytes.isEmpty() || bytes.contains('\0')) {
      // The reader says best what is wrong with a file it cannot take.
      LoadedPair out;
      auto m = hlo::read_module_file(names[i]->toStdString());
      out.error = m ? QStringLiteral("%1: cannot read the file").arg(*names[i])
                    : QString::fromStdString(m.error().format());
      return out;
    }
    texts[i] = bytes.toStdString();
  }
  return parse_pair(paths, std::move(texts[0]), std::move(texts[1]));
}

LoadedPair parse_pair(const PairPaths& paths, std::string ref_text, std::string dist_text) {
  LoadedPair out;
  auto ref = hlo::read_module(ref_text, paths.ref.toStdString());
  if (!ref) {
    out.error = QString::fromStdString(ref.error().format());
    return out;
  }
  auto dist = hlo::read_module(dist_text, paths.dist.toStdString());
  if (!dist) {
    out.error = QString::fromStdString(dist.error().format());
    return out;
  }
  out.ref = std::make_shared<const ir::Module>(std::move(*ref));
  out.dist = std::make_shared<const ir::Module>(std::move(*dist));
  out.ref_text = std::make_shared<const std::string>(std::move(ref_text));
  out.dist_text = std::make_shared<const std::string>(std::move(dist_text));
  // The graphs show what the checker checks: calls and fusions inlined, loops with a known trip
  // count unrolled (ir/inline_calls.h), so that the nodes a result names are there.
  const auto shown = [](const std::shared_ptr<const ir::Module>& m) {
    auto flat = ir::inline_calls(*m);
    return flat ? std::make_shared<const ir::Module>(std::move(*flat)) : m;
  };
  out.ref_graph = std::make_shared<const GraphModel>(shown(out.ref));
  out.dist_graph = std::make_shared<const GraphModel>(shown(out.dist));
  return out;
}

LoadedSession load_session(const QString& path) {
  LoadedSession out;
  auto session = store::open_session(path.toStdString());
  if (!session) {
    out.error = QString::fromStdString(session.error().format()).trimmed();
    return out;
  }
  store::Session& s = *session;
  const PairPaths paths{QString::fromStdString(s.reference.path),
                        QString::fromStdString(s.distributed.path)};
  out.pair = parse_pair(paths, std::move(s.reference.hlo), std::move(s.distributed.hlo));
  if (!out.pair.error.isEmpty()) {
    out.error =
        QStringLiteral("%1: a program it holds does not read: %2").arg(path, out.pair.error);
    return out;
  }
  s.reference.hlo.clear();
  s.distributed.hlo.clear();
  if (s.result) {
    out.result = std::make_shared<const verify::CheckResult>(std::move(*s.result));
    s.result.reset();
  }
  out.session = std::move(s);
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
