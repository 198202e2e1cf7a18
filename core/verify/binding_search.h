// The search over the parameters' candidate layouts: the best bijection is checked first; on a
// divergence the next candidates of the parameters upstream of it are tried, singly and then two
// together, keeping a change only when the check gets further (a loader contract such as a
// partial(sum) bias is adopted only when it is what proves). Shared by the whole-program check
// and the per-part checks of a partitioned one. The checks of a search encode the reference once
// (SaturationMemo), and a trial stops at the first node it refuses before the best check's
// divergence (CheckOptions::give_up_before): it cannot get further than that check.
#pragma once

#include <string>
#include <vector>

#include "ir/module.h"
#include "verify/bijection.h"
#include "verify/checker.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// Adds, after every padded-shard candidate, the same layout with zero padding as a loader
/// contract: right only if the loader fills the padding with zeros (it is summed over).
void add_zero_padding_contracts(BijectionCandidates& candidates, const ir::Module& dist,
                                const Mesh& mesh);

/// Parameter `p` bound to its candidate `choice` (a loader's contract an assumption, stated), or
/// to nothing ("no candidate") past its last.
ParamBinding binding_of(const ParameterCandidates& p, size_t choice);

/// Every parameter bound to its best candidate: where a search starts.
///
///   check_under(ref, dist, mesh, best_bindings(infer_bijection(ref, dist, mesh)), {});
std::vector<ParamBinding> best_bindings(const BijectionCandidates& candidates);

/// The best check found and the parameter layouts that were changed to reach it.
struct Searched {
  CheckResult result;
  std::vector<std::string> tried;  ///< "p16.30 as partial(sum,tp)", when they led to a proof
};

/// Checks `dist` against `ref` under the candidates' best bindings, then searches the other
/// candidates of the parameters upstream of a divergence (at most `max_attempts` checks), and
/// last assumes balanced partial sums (CheckOptions::balanced_partials) if only that proves.
///
///   auto c = infer_bijection(ref, dist, mesh);
///   Searched s = search_bindings(ref, dist, mesh, c, {}, {}, 24);
///   s.result.verdict == Verdict::kEquivalent;
Searched search_bindings(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                         const BijectionCandidates& candidates,
                         const std::vector<OutputBinding>& outputs, const CheckOptions& options,
                         size_t max_attempts);

}  // namespace scalify::verify
