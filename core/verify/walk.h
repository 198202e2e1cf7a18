// The guided walk through a check's derivation, for teaching (the window's Example dock): the
// layout facts cut into a few steps a student can follow, each with a caption in plain English
// that says what happened and why, in the terms of the rule that gave it. The steps follow the
// derivation's order and cover every fact of it once, so the saturation timeline can follow
// them; a divergent result ends with a step on the divergence.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "verify/check_result.h"

namespace scalify::verify {

/// WalkStep::fact when there is no fact to show (an empty derivation).
inline constexpr size_t kNoFact = static_cast<size_t>(-1);

/// One step of a guided walk.
struct WalkStep {
  enum class Kind : uint8_t {
    kParameters,    ///< the bijection: what each parameter holds
    kLayoutChange,  ///< a collective, a contraction, a rank's slice, a sharded dot…
    kOutputs,       ///< the goals, proven (the last step of an equivalent result)
    kDivergence,    ///< where the distributed program stops computing the reference
    kStopped,       ///< the check stopped without a verdict (the last step of an inconclusive one)
  };
  Kind kind = Kind::kLayoutChange;
  /// The derivation facts this step covers, ascending (a closing step may cover none).
  std::vector<size_t> facts;
  /// The fact the timeline shows at this step: the last one covered (the divergence and the
  /// outputs: the derivation's last fact); kNoFact when the derivation is empty.
  size_t fact = kNoFact;
  /// The distributed nodes to highlight, the one the caption is about first (to centre).
  std::vector<std::string> nodes;
  /// The reference node the first of `nodes` holds ("" when none is named).
  std::string ref_node;
  /// "Step 3 of 12: `dot.12` contracts a dimension both operands shard over tp, …"
  std::string caption;
};

/// How long a walk may get: consecutive steps are merged (the smallest pair first) until it is
/// at most this long.
inline constexpr size_t kMaxWalkSteps = 25;

/// The guided walk of `result`: the parameters first (one step), then a step per layout change
/// (consecutive changes alike share one), each also covering the facts before it that only
/// carried their operands' layouts and the tuple copies after it; then the outputs (equivalent),
/// the divergence with its reason and source line (divergent), or why the check stopped.
///
///   auto r = check(*ref, *dist, {});
///   for (const WalkStep& s : guided_walk(*r)) std::cout << s.caption << '\n';
///   // Step 1 of 12: The parameters. Every distributed parameter holds a reference one: …
///   // Step 5 of 12: `dot.12` contracts a dimension both operands shard over tp, so each rank
///   //   holds a partial sum of the reference `dot.7`: partial(sum,tp).
///   // Step 6 of 12: `all-reduce.3` sums the partial values over tp: every rank now holds the
///   //   whole value of the reference `dot.7`, rep.
std::vector<WalkStep> guided_walk(const CheckResult& result);

}  // namespace scalify::verify
