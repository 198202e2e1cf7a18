// Reading a (reference, distributed) pair of HLO files off the GUI thread, and writing a
// generated Llama pair (the bundled example) to a folder.
#pragma once

#include <QString>
#include <memory>

#include "modelgen/llama_config.h"
#include "views/graph_model.h"

namespace scalify::views {

struct PairPaths {
  QString ref, dist;
};

/// Both programs and their view graphs, or the first error (FILE:LINE:COL: message).
struct LoadedPair {
  std::shared_ptr<const ir::Module> ref, dist;
  std::shared_ptr<const GraphModel> ref_graph, dist_graph;
  QString error;
};

/// Reads and indexes both files. Slow for big programs: run it on the thread pool.
LoadedPair load_pair(const PairPaths& paths);

/// Writes `scalify gen llama`'s ref.hlo, dist.hlo and model.py for `options` into `dir`;
/// the paths, or `error` set and empty paths.
PairPaths write_llama_pair(const modelgen::GenOptions& options, const QString& dir, QString* error);

/// The bundled example: tiny Llama, tp=2, the all-reduce after layer 1's attention missing
/// (`scalify gen llama --preset tiny --tp 2 --bug missing-allreduce@1`).
PairPaths write_example_pair(const QString& dir, QString* error);

}  // namespace scalify::views
