// The checker: one e-graph over the reference and the distributed program, layouts lifted
// through the distributed program, saturation, goals decided, the first divergence localised.
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"
#include "support/expected.h"
#include "verify/check_result.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// How a distributed parameter relates to a reference parameter (an input of the proof).
struct ParamBinding {
  ir::InstrId dist = -1;
  std::optional<ir::InstrId> ref;  ///< none: no counterpart
  Layout layout;
  /// Non-empty: the parameter relates by `layout` to the reference parameter reshaped to these
  /// dims (an input the two programs flatten differently, e.g. images [32,784] and [16,1,28,28]).
  std::vector<int64_t> reshape;
  /// Non-empty: the parameter relates by `layout` to the reference parameter transposed by this
  /// permutation (a weight stored [out, in] where the reference has [in, out]).
  std::vector<int64_t> permutation;
  std::string why;
  bool assumption = false;  ///< a contract the user must confirm (e.g. partial(sum) inputs)
};

/// What the spec says of one goal: reference output element `ref_index` is computed by
/// distributed output element `dist_index` (none: no counterpart), with `layout` if given.
struct OutputBinding {
  int64_t ref_index = 0;
  std::optional<int64_t> dist_index;
  std::optional<Layout> layout;
};

struct CheckOptions {
  double budget_seconds = 30;
  size_t node_limit = 2'000'000;
  size_t iteration_limit = 12;
  /// Back-off: a rule with more matches than this in an iteration is banned for a while.
  size_t match_limit = 1000;
  /// Iterations free of back-off after the limit while goals are unproven
  /// (egraph::Scheduling::rescue_iterations). One finds every divergence that two found on
  /// the corpus and unseen mutants, at two thirds of the time (README, "Injected bugs").
  size_t rescue_iterations = 1;
  bool strict = false;
  /// Keep the e-graph's explanations, so that every proven goal lists the rewrites that make
  /// its reference side equal (about ten times slower).
  bool explain = false;
  /// Assume that a scalar partial sum (a count or a sum of losses over a batch shard) is the
  /// same on every rank, and not 0: each rank then holds 1/n of the reference value, so a
  /// non-linear op may use it (a data-parallel mean over equal shards). Stated when it is on;
  /// check() turns it on only when the plain check fails and this one proves.
  bool balanced_partials = false;
  /// How deep inside loop bodies being proven by induction this check runs (0: the program).
  int loop_depth = 0;
  /// For the binding search's trials (binding_search.h): stop at the first node refused before
  /// this position of the distributed entry's topological order, with the verdict divergent at
  /// that node and no goal decided. Such a trial diverges earlier than the check it would
  /// replace, so it cannot get further; the rest of the check would only cost time.
  size_t give_up_before = 0;
};

class SaturationMemo;

/// Decides whether `dist` computes `ref` on `mesh` under the parameter bindings (one per
/// distributed parameter, by parameter number order). Goals pair the outputs by position, except
/// where `outputs` (from the spec) says otherwise. Checks of one search may share a `memo`:
/// one that builds an e-graph already saturated takes it from there (verify/saturation_memo.h).
///
///   auto r = check_under(ref, dist, mesh, bindings, {});
///   r.verdict == Verdict::kEquivalent;  r.goals[0].proven;
CheckResult check_under(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                        const std::vector<ParamBinding>& bindings, const CheckOptions& options,
                        const std::vector<OutputBinding>& outputs = {},
                        SaturationMemo* memo = nullptr);

}  // namespace scalify::verify
