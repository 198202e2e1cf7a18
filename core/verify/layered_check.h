// Checking a model layer by layer: both programs are cut into the layers their metadata names
// (verify/partition.h), every distinct layer is checked once on a thread pool (identical layers
// share one check through the memo, verify/part_memo.h), and the layouts at the cuts are then
// chained: what one part proves of a value it hands on must be what the next part assumed.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

#include "ir/module.h"
#include "verify/check_result.h"
#include "verify/checker.h"
#include "verify/mesh.h"
#include "verify/part_memo.h"

namespace scalify::verify {

/// Progress of a check, for a progress bar: parts checked out of all, memo hits among them.
struct CheckProgress {
  std::atomic<size_t> done{0}, total{0}, memo_hits{0};

  /// The results in stages: each part that holds publishes its matches as it finishes, in the
  /// whole program's names. They are provisional (a part may be checked again under the
  /// bindings of the parts before it); the final result has the last word.
  ///
  ///   size_t seen = 0;
  ///   if (auto staged = progress.staged_since(seen)) show(*staged);  // seen is updated
  void publish(const Mesh& mesh, const std::vector<NodeMatch>& matches);
  /// Everything published so far (its mesh and matches) when there is news since the count
  /// `seen`, which it advances; nullopt when there is none.
  std::optional<CheckResult> staged_since(size_t& seen) const;

 private:
  mutable std::mutex mutex_;
  Mesh mesh_;
  std::vector<NodeMatch> published_;
};

struct LayeredRequest {
  CheckOptions options;
  size_t max_attempts = 24;                   ///< checks per part while searching its bindings
  size_t threads = 1;                         ///< parts checked at once
  PartMemo* memo = nullptr;                   ///< nullptr: a memo for this call only
  CheckProgress* progress = nullptr;          ///< updated as parts finish, may be nullptr
  const std::atomic<bool>* cancel = nullptr;  ///< when it turns true, no further part starts
  bool evidence = true;  ///< join the derivation and matches (CheckRequest::evidence)
};

/// Checks `dist` against `ref` part by part. nullopt when the programs do not cut into the same
/// layers (fewer than two named layers, other layer numbers, a value flowing backwards), when
/// programs cut by repeated structure are not found equivalent (the whole program then speaks
/// for a divergence), or the check was cancelled; the caller then checks the whole program.
///
///   LayeredRequest lr;
///   lr.threads = 2;
///   if (auto r = check_by_layers(ref, dist, mesh, lr)) std::cout << r->stats.parts;
std::optional<CheckResult> check_by_layers(const ir::Module& ref, const ir::Module& dist,
                                           const Mesh& mesh, const LayeredRequest& request);

}  // namespace scalify::verify
