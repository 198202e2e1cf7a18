// Runner: equality saturation under budgets. Each iteration searches every (unbanned) rule on
// the clean e-graph, applies all matches, then rebuilds (egg's Runner; congruence is also
// restored every few thousand unions on the way, which leaves the same e-graph).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/query.h"

namespace scalify::egraph {

/// What a rule's action works on: the e-graph, the facts, the reason to record for each union
/// or fact (kRule, the rule's index, and the match's number in the run's match log), and where
/// to report the unions the e-graph refuses.
struct ApplyContext {
  EGraph& g;
  relations::Database* db;
  Reason reason;
  std::vector<Conflict>& conflicts;
  /// Apply only if the action builds nothing new (a union of classes that exist, a fact);
  /// else change nothing and set `deferred`. An action may ignore it and apply in full.
  bool existing_only = false;
  /// Set by an action that, under `existing_only`, would have built something: the runner
  /// applies the match again, in full, after the others.
  bool deferred = false;
};

/// A rule as the runner sees it: a query, an optional guard on its matches, and an action per
/// match. The rule compiler (core/rules) builds these from rule text.
struct Rule {
  std::string name;
  Query query;
  /// Keeps a match (e.g. "?x is not the constant 0"); empty: keep every match.
  std::function<bool(const EGraph&, std::span<const uint32_t> row)> guard;
  /// Applies one match and returns how many changes it made (unions, new facts).
  std::function<size_t(ApplyContext& context, std::span<const uint32_t> row)> apply;
  /// The guard reads only the classes a match binds and those below them (their nodes, types
  /// and constants): then, once a rule of one pattern has had all its matches applied, the
  /// runner searches it again only near the classes changed since (see Query::height()).
  /// Clear it for a guard that reads anything else.
  bool local_guard = true;
  /// The action reads only the row's classes (as classes: equal classes act alike) and its
  /// payloads, and a second application of an equal row changes nothing (a rewrite's does:
  /// the nodes it builds are there, and their class is already the matched one). The runner
  /// then skips a row equal, class by class, to one it applied in the same pass.
  bool idempotent = false;
};

/// A rewrite `lhs => rhs`: every match of lhs is unioned with rhs instantiated under it.
/// `type_of` types the new nodes.
///
///   Rule comm = make_rewrite("comm-add", lhs, rhs, {}, [](const ENode&) { return 0u; });
Rule make_rewrite(std::string name, const Pattern& lhs, const Pattern& rhs,
                  std::function<bool(const EGraph&, std::span<const uint32_t>)> guard,
                  std::function<TypeId(const ENode&)> type_of);

/// Applies one match of `lhs => rhs`: instantiates rhs under the match and unions it with the
/// matched class (`subst[root]`). With explanations on, the union joins the exact lhs and rhs
/// instances, so that a proof step shows both terms. With `context.existing_only`, applies only
/// if the e-graph holds every node of the instance. Returns 1 if the e-graph changed.
size_t apply_rewrite(ApplyContext& context, const Pattern& lhs, const Pattern& rhs, uint32_t root,
                     std::span<const ClassId> subst, std::span<const uint32_t> payloads,
                     const std::function<TypeId(const ENode&)>& type_of);

enum class StopReason {
  kSaturated,  ///< an iteration changed nothing: every consequence of the rules is present
  kIterationLimit,
  kNodeLimit,
  kTimeLimit,
  kMemoryLimit,
  kConflict,  ///< a rule tried to merge values of different types or constants: unsound
  kCancelled,
  kGoal,  ///< the caller's goal held (RunOptions::goal), checked before every iteration
};
const char* to_string(StopReason r);

struct Limits {
  size_t iterations = 30;
  size_t nodes = std::numeric_limits<size_t>::max();
  double seconds = std::numeric_limits<double>::infinity();
  size_t memory_bytes = std::numeric_limits<size_t>::max();
};

/// How rules are scheduled: every rule every iteration (egg's SimpleScheduler), or with
/// back-off: a rule whose matches exceed its threshold is banned for a while, the threshold
/// and the ban doubling each time (egg's BackoffScheduler).
struct Scheduling {
  bool backoff = false;
  size_t match_limit = 1000;
  size_t ban_length = 5;
  /// Back-off can starve a rule that one goal needs while another goal's rules explode. So,
  /// with a goal (RunOptions::goal) that does not hold at the iteration limit after some rule
  /// was banned, the run goes on for this many iterations with every ban lifted and match
  /// limits `rescue_match_factor` times higher (0: stop at the limit).
  size_t rescue_iterations = 0;
  size_t rescue_match_factor = 5;
  /// Applies first the matches whose right-hand side the e-graph holds already (unions of
  /// existing classes), then the rest; false: in the order found (as explanations always do).
  /// The same e-graph after each iteration, built from fewer node ids (see run()).
  bool held_first = true;
  /// Skips a match equal, class by class, to one its rule applied earlier in the same pass
  /// (Rule::idempotent; not when proofs are kept). The same e-graph, from fewer lookups.
  bool skip_repeats = true;
};

struct RunOptions {
  Limits limits;
  /// The facts rules join on and assert (needed by rules with relation atoms). Its stamp is
  /// the iteration: facts added in iteration i are stamped i + 1.
  relations::Database* db = nullptr;
  Scheduling scheduling;
  const std::atomic<bool>* cancel = nullptr;  ///< checked between rules
  /// The type the oracle gives a node it cannot type (a rule instantiated where its right-hand
  /// side does not type-check, e.g. a transpose of a scalar). A union with such a node is
  /// refused and counted as an ill-typed instance, not reported as an unsound rule, and
  /// saturation goes on.
  std::optional<TypeId> ill_typed;
  /// The type of values that stand for any shape (scalar numbers, splats): a rule instance that
  /// merges such a class with an array class is refused the same way, since it only restates
  /// a splat at one shape (`x * broadcast(c)` as `x * c` where x is itself a number). So is
  /// a congruence between such nodes (one typed as a number, one at an array type).
  std::optional<TypeId> shapeless;
  /// Stops the run (StopReason::kGoal) as soon as it returns true on the clean e-graph,
  /// checked before every iteration: a checker that needs certain equalities, not saturation.
  std::function<bool(const EGraph&)> goal;
};

/// What one rule did in one iteration.
struct RuleIteration {
  /// After the guard. A rule searched only near what changed (see Rule::local_guard) does not
  /// count again the matches it had in earlier iterations.
  size_t matches = 0;
  size_t applied = 0;  ///< changes its actions made
  size_t repeats = 0;  ///< matches skipped as repeats (Scheduling::skip_repeats)
  bool banned = false;
};

/// One iteration's statistics: sizes at its start (egg's convention) and at its end, per-rule
/// counts and the time of each phase.
struct Iteration {
  size_t classes_before = 0, nodes_before = 0;
  size_t classes_after = 0, nodes_after = 0;
  std::vector<RuleIteration> rules;
  size_t congruence_merges = 0;
  size_t facts_after = 0;  ///< facts in the database at the end of the iteration
  /// Rebuilding includes the congruence restored while matches are applied (see run()).
  double search_seconds = 0, apply_seconds = 0, rebuild_seconds = 0;
};

/// A refused union and the rule that asked for it.
struct RuleConflict {
  std::string rule;
  Conflict conflict;
};

/// The matches that changed the e-graph, by number (Reason::detail), each a row of its rule's
/// query: what a proof step cites.
class MatchLog {
 public:
  uint32_t append(std::span<const uint32_t> row);
  void pop() { data_.resize(start_.back()), start_.pop_back(); }
  std::span<const uint32_t> row(uint32_t i) const {
    const size_t end = i + 1 < start_.size() ? start_[i + 1] : data_.size();
    return std::span<const uint32_t>(data_).subspan(start_[i], end - start_[i]);
  }
  size_t size() const { return start_.size(); }

 private:
  std::vector<uint32_t> data_;
  std::vector<size_t> start_;
};

struct RunReport {
  StopReason stop = StopReason::kSaturated;
  std::vector<Iteration> iterations;
  std::vector<RuleConflict> conflicts;
  /// Unions refused for an ill-typed or shapeless side (RunOptions::ill_typed, ::shapeless):
  /// rule instances, and congruences between nodes typed apart that way.
  size_t ill_typed_instances = 0;
  /// The run went on past the iteration limit (Scheduling::rescue_iterations).
  bool rescued = false;
  double seconds = 0;
  /// Kept when proofs can ask for it (explanations on, or a fact database given); otherwise
  /// empty, and Reason::detail is 0.
  MatchLog matches;
};

/// Saturates `g` with `rules` under the options' limits; the e-graph is left clean.
///
///   RunReport r = run(g, rules, {});
///   if (r.stop == StopReason::kConflict) report(r.conflicts);
RunReport run(EGraph& g, std::span<Rule> rules, const RunOptions& options = {});

/// A rough count of the bytes the e-graph holds (for the memory limit).
size_t approx_memory_bytes(const EGraph& g);

}  // namespace scalify::egraph
