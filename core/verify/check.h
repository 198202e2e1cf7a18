// `scalify check` as a library call: the mesh (given, from the spec, or inferred), the
// bijection (inferred, the spec overriding), the checker, and retries with the next candidate
// layouts of the parameters upstream of a divergence (a loader contract such as partial(sum)
// biases is adopted only when it is what proves, and is then stated as an assumption).
#pragma once

#include <optional>
#include <string>

#include "ir/module.h"
#include "support/expected.h"
#include "verify/check_result.h"
#include "verify/checker.h"
#include "verify/layered_check.h"
#include "verify/mesh.h"
#include "verify/part_memo.h"

namespace scalify::verify {

struct Spec;

struct CheckRequest {
  std::optional<Mesh> mesh;    ///< --mesh; else the spec's, else inferred
  const Spec* spec = nullptr;  ///< --spec
  CheckOptions options;
  std::string dist_file = "<dist>";  ///< labels diagnostics
  size_t max_attempts = 24;          ///< bijections tried before giving up
  /// Check layer by layer when both programs name the same layers (verify/layered_check.h).
  bool by_layers = true;
  size_t threads = 1;                 ///< -j: parts checked at once
  PartMemo* memo = nullptr;           ///< shared across calls (and runs, with a store)
  CheckProgress* progress = nullptr;  ///< parts done, for a progress bar
  /// Stops a layered check between parts; a cancelled check returns kInconclusive with
  /// stats.stop_reason "cancelled" (it never falls back to the whole program).
  const std::atomic<bool>* cancel = nullptr;
  /// Gather a layered check's evidence into the result: the derivation (goals' proofs) and the
  /// node matches, renamed part by part into the whole program's names. Without it the result
  /// holds the verdict, mesh, bijection, goals (without proofs), assumptions, divergence, notes
  /// and stats: all the text output shows, at a fraction of a large model's cost.
  bool evidence = true;
};

/// Checks that `dist` computes `ref`. Errors (a bad spec, a mesh that contradicts the program)
/// come back as a Diagnostic; every verdict, including divergent, is a CheckResult.
///
///   auto r = check(*ref, *dist, {});
///   if (r && r->verdict == Verdict::kDivergent) std::cout << r->divergence->reason;
Expected<CheckResult> check(const ir::Module& ref, const ir::Module& dist,
                            const CheckRequest& request);

}  // namespace scalify::verify
