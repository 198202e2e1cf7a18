// Reading a (reference, distributed) pair of HLO files, or a saved session, off the GUI thread,
// and writing a generated Llama pair (the bundled example) to a folder.
#pragma once

#include <QString>
#include <memory>
#include <string>

#include "modelgen/llama_config.h"
#include "store/session_file.h"
#include "views/graph_model.h"

namespace scalify::views {

struct PairPaths {
  QString ref, dist;
};

/// Both programs, their text as read (what a saved session keeps) and their view graphs, or the
/// first error (FILE:LINE:COL: message).
struct LoadedPair {
  std::shared_ptr<const ir::Module> ref, dist;
  std::shared_ptr<const std::string> ref_text, dist_text;
  std::shared_ptr<const GraphModel> ref_graph, dist_graph;
  QString error;
};

/// Reads and indexes both files. Slow for big programs: run it on the thread pool.
LoadedPair load_pair(const PairPaths& paths);
/// Reads and indexes both programs from their text (a saved session's); `paths` label errors.
LoadedPair parse_pair(const PairPaths& paths, std::string ref_text, std::string dist_text);

/// A saved session read: its pair (programs from the stored text, paths as stored), its result
/// (nullptr when it holds none), and the rest of the session (notes, overrides, open layers;
/// its programs' text and result moved out); or the first error.
struct LoadedSession {
  LoadedPair pair;
  std::shared_ptr<const verify::CheckResult> result;
  store::Session session;
  QString error;
};

/// Reads the session file at `path` (store/session_file.h) and indexes its programs. Slow for
/// big programs: run it on the thread pool.
LoadedSession load_session(const QString& path);

/// Writes `scalify gen llama`'s ref.hlo, dist.hlo and model.py for `options` into `dir`;
/// the paths, or `error` set and empty paths.
PairPaths write_llama_pair(const modelgen::GenOptions& options, const QString& dir, QString* error);

/// The bundled example: tiny Llama, tp=2, the all-reduce after layer 1's attention missing
/// (`scalify gen llama --preset tiny --tp 2 --bug missing-allreduce@1`).
PairPaths write_example_pair(const QString& dir, QString* error);

}  // namespace scalify::views
