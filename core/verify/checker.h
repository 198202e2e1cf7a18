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
  bool strict = false;
  /// Keep the e-graph's explanations, so that every proven goal lists the rewrites that make
  /// its reference side equal (about ten times slower).
  bool explain = false;
};

/// Decides whether `dist` computes `ref` on `mesh` under the parameter bindings (one per
/// distributed parameter, by parameter number order). Goals pair the outputs by position, except
/// where `outputs` (from the spec) says otherwise.
///
///   auto r = check_under(ref, dist, mesh, bindings, {});
///   r.verdict == Verdict::kEquivalent;  r.goals[0].proven;
CheckResult check_under(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                        const std::vector<ParamBinding>& bindings, const CheckOptions& options,
                        const std::vector<OutputBinding>& outputs = {});

}  // namespace scalify::verify
