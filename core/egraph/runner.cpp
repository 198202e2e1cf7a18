#include "egraph/runner.h"

#include <algorithm>
#include <map>

#include "egraph/change_log.h"
#include "egraph/repeat_filter.h"

namespace scalify::egraph {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Per-rule back-off state (egg's BackoffScheduler).
struct Ban {
  size_t times_banned = 0;
  size_t banned_until = 0;  ///< the first iteration the rule runs again
};

/// Whether the e-graph refused a union because one side is ill-typed or shapeless (see
/// RunOptions): an instance that does not apply, not an unsound rule.
bool refused_as_ill_typed(const Conflict& c, const RunOptions& options) {
  auto either = [&c](const std::optional<TypeId>& t) {
    return t && c.constant_a == kNoConstant && (c.type_a == *t || c.type_b == *t);
  };
  return either(options.ill_typed) || either(options.shapeless);
}

/// One iteration's searches: each rule searched in full, or (semi-naive, see Query::height())
/// only near the classes changed since its matches were last all applied. The indexes and
/// maps of changed classes are built once per iteration for the rules that share them.
class IterationSearch {
 public:
  IterationSearch(const EGraph& g, const ChangeLog& log) : g_(g), log_(log), none_(g, {}) {}

  /// Calls `yield` with the matches of `rule` that are new since iteration `applied_in`
  /// (nullopt: every match).
  void run(const Rule& rule, std::optional<size_t> applied_in,
           const std::function<bool(std::span<const uint32_t>)>& yield, relations::Database* db,
           uint32_t since) {
    const std::optional<uint32_t> height = rule.query.height();
    if (!applied_in || !height || !rule.local_guard) {
      rule.query.search(g_, rule.query.scans() ? full_index() : none_, yield, db, since);
      return;
    }
    const std::pair key(*applied_in, *height);
    auto near = near_.find(key);
    if (near == near_.end()) {
      near = near_.emplace(key, OpIndex(g_, log_.near(g_, key.first, key.second))).first;
    }
    auto changed = changed_.find(*applied_in);
    if (changed == changed_.end()) {
      changed = changed_.emplace(*applied_in, log_.changed(g_, *applied_in)).first;
    }
    rule.query.search_changed(g_, near->second, changed->second, yield);
  }

 private:
  const OpIndex& full_index() {
    if (!full_) full_.emplace(g_);
    return *full_;
  }

  const EGraph& g_;
  const ChangeLog& log_;
  const OpIndex none_;  ///< for queries that scan no classes (facts alone)
  std::optional<OpIndex> full_;
  std::map<std::pair<size_t, uint32_t>, OpIndex> near_;  ///< by (since, height)
  std::map<size_t, std::vector<bool>> changed_;          ///< by since
};

}  // namespace

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::kSaturated:
      return "saturated";
    case StopReason::kIterationLimit:
      return "iteration limit";
    case StopReason::kNodeLimit:
      return "e-node limit";
    case StopReason::kTimeLimit:
      return "time limit";
    case StopReason::kMemoryLimit:
      return "memory limit";
    case StopReason::kConflict:
      return "unsound union (type or constant conflict)";
    case StopReason::kCancelled:
      return "cancelled";
    case StopReason::kGoal:
      return "goals proven";
  }
  return "?";
}

uint32_t MatchLog::append(std::span<const uint32_t> row) {
  start_.push_back(data_.size());
  data_.insert(data_.end(), row.begin(), row.end());
  return static_cast<uint32_t>(start_.size() - 1);
}

Rule make_rewrite(std::string name, const Pattern& lhs, const Pattern& rhs,
                  std::function<bool(const EGraph&, std::span<const uint32_t>)> guard,
                  std::function<TypeId(const ENode&)> type_of) {
  Rule rule;
  rule.name = std::move(name);
  const uint32_t root = std::max(lhs.var_count(), rhs.var_count());  // a fresh variable
  rule.query.add(lhs, root);
  rule.query.compile();
  rule.guard = std::move(guard);
  rule.idempotent = true;
  const uint32_t vars = rule.query.var_count();
  rule.apply = [lhs, rhs, root, vars, type_of = std::move(type_of)](
                   ApplyContext& context, std::span<const uint32_t> row) -> size_t {
    return apply_rewrite(context, lhs, rhs, root, row.first(vars), row.subspan(vars), type_of);
  };
  return rule;
}

size_t apply_rewrite(ApplyContext& context, const Pattern& lhs, const Pattern& rhs, uint32_t root,
                     std::span<const ClassId> subst, std::span<const uint32_t> payloads,
                     const std::function<TypeId(const ENode&)>& type_of) {
  EGraph& g = context.g;
  ClassId built;
  if (context.existing_only && !g.explanations()) {
    const std::optional<ClassId> held = instantiate_existing(g, rhs, subst, payloads);
    if (!held) {
      context.deferred = true;
      return 0;
    }
    built = *held;
  } else {
    built = instantiate(g, rhs, subst, type_of, payloads);
  }
  if (g.find(built) == g.find(subst[root])) return 0;
  const ClassId from =
      g.explanations() ? instantiate(g, lhs, subst, type_of, payloads) : subst[root];
  if (auto conflict = g.merge(from, built, context.reason)) {
    context.conflicts.push_back(*conflict);
    return 0;
  }
  return 1;
}

size_t approx_memory_bytes(const EGraph& g) {
  // Per node id: its node three times (by id, in its class, as a hash-cons key), a hash-table
  // entry, union-find slots, class record, and about two children in each copy plus parents.
  constexpr size_t kPerNode = 3 * sizeof(ENode) + 32 + 8 + 64 + 4 * 2 * 4;
  return g.id_count() * kPerNode;
}

RunReport run(EGraph& g, std::span<Rule> rules, const RunOptions& options) {
  const Clock::time_point start = Clock::now();
  const Limits& limits = options.limits;
  RunReport report;
  if (!g.clean()) g.rebuild();
  std::vector<Ban> bans(rules.size());
  std::vector<uint32_t> since(rules.size(), 0);  ///< semi-naive: facts new to each rule
  // Matches of the last iterations run to tens of MB: huge pages for them (large_array.h).
  std::vector<LargeVector<uint32_t>> found(rules.size());
  std::vector<Conflict> conflicts;
  RepeatFilter repeats;  // see apply_matches below
  // Semi-naive matching: a rule of one pattern whose matches were all applied in iteration k
  // then searches only near the classes touched since (ChangeLog::near): any other match it
  // has was found in iteration k, and applying it again would change nothing.
  std::vector<std::optional<size_t>> applied_in(rules.size());
  ChangeLog touched;
  struct TouchLog {
    EGraph& g;
    explicit TouchLog(EGraph& graph) : g(graph) { g.log_touches(true); }
    ~TouchLog() { g.log_touches(false); }
  } touch_log(g);

  auto out_of_budget = [&]() -> std::optional<StopReason> {
    if (options.cancel && options.cancel->load()) return StopReason::kCancelled;
    if (seconds_since(start) > limits.seconds) return StopReason::kTimeLimit;
    if (g.node_count() > limits.nodes) return StopReason::kNodeLimit;
    if (approx_memory_bytes(g) > limits.memory_bytes) return StopReason::kMemoryLimit;
    return std::nullopt;
  };

  const Scheduling& scheduling = options.scheduling;
  size_t iteration_limit = limits.iterations;
  size_t match_limit = scheduling.match_limit;
  bool ever_banned = false;
  for (size_t iter = 0;; ++iter) {
    if (options.goal && options.goal(g)) {
      report.stop = StopReason::kGoal;
      break;
    }
    if (iter == limits.iterations && options.goal && ever_banned &&
        scheduling.rescue_iterations > 0) {
      iteration_limit += scheduling.rescue_iterations;
      match_limit *= scheduling.rescue_match_factor;
      std::fill(bans.begin(), bans.end(), Ban{});
      report.rescued = true;
    }
    if (iter >= iteration_limit) {
      report.stop = StopReason::kIterationLimit;
      break;
    }
    if (auto stop = out_of_budget()) {
      report.stop = *stop;
      break;
    }
    Iteration it;
    it.classes_before = g.class_count();
    it.nodes_before = g.node_count();
    it.rules.resize(rules.size());

    // Search every rule on the clean e-graph.
    Clock::time_point phase = Clock::now();
    IterationSearch search(g, touched);
    bool any_banned = false;
    std::optional<StopReason> interrupted;
    for (size_t r = 0; r < rules.size() && !interrupted; ++r) {
      found[r].clear();
      if (scheduling.backoff && bans[r].banned_until > iter) {
        it.rules[r].banned = any_banned = true;
        continue;
      }
      size_t matches = 0;
      search.run(
          rules[r], applied_in[r],
          [&](std::span<const uint32_t> row) {
            if (rules[r].guard && !rules[r].guard(g, row)) return true;
            found[r].append(row.data(), row.data() + row.size());
            ++matches;
            return true;
          },
          options.db, since[r]);
      it.rules[r].matches = matches;
      bool dropped = false;
      if (scheduling.backoff) {
        const size_t threshold = match_limit << bans[r].times_banned;
        if (matches > threshold) {
          bans[r].banned_until = iter + (scheduling.ban_length << bans[r].times_banned);
          ++bans[r].times_banned;
          it.rules[r].banned = any_banned = ever_banned = true;
          found[r].clear();
          dropped = true;
        }
      }
      // The facts searched are seen only if their matches are applied: a banned rule searches
      // the same delta again when its ban ends.
      if (!dropped) {
        since[r] = static_cast<uint32_t>(iter + 1);
        applied_in[r] = iter;  // (the apply phase applies every match found)
      }
      interrupted = out_of_budget();
    }
    it.search_seconds = seconds_since(phase);
    if (interrupted) {
      report.stop = *interrupted;
      report.iterations.push_back(std::move(it));
      break;
    }

    // Apply every match, then restore the invariants once.
    phase = Clock::now();
    if (options.db) options.db->set_stamp(static_cast<uint32_t>(iter + 1));
    size_t applied = 0;
    // The log serves proofs only: of unions (explanations) and of facts (a database).
    const bool logging = g.explanations() || options.db != nullptr;
    // Congruence is restored every kRepairBatch unions (EGraph::restore_congruence(); on egg's
    // workloads any batch from 1,024 to 16,384 did about as well), and once more, with the
    // node lists, when all matches are applied.
    constexpr size_t kRepairBatch = 4096;
    EGraph::Rebuilt rebuilt;
    double repair_seconds = 0;  // (counted as rebuilding, not applying)
    auto restored = [&rebuilt](EGraph::Rebuilt&& part) {
      rebuilt.congruence_merges += part.congruence_merges;
      for (const Conflict& c : part.conflicts) rebuilt.conflicts.push_back(c);
    };
    auto repair = [&] {
      const Clock::time_point repair_start = Clock::now();
      restored(g.restore_congruence());
      repair_seconds += seconds_since(repair_start);
    };
    // Applies every match in found[]; with `existing_only`, only those whose action builds
    // nothing new, keeping the others in found[] (see ApplyContext::existing_only).
    auto apply_matches = [&](bool existing_only) {
      size_t deferred_rows = 0;
      for (size_t r = 0; r < rules.size(); ++r) {
        const size_t width = rules[r].query.width();
        if (width == 0) continue;
        const size_t rows = found[r].size() / width;
        // Unions made since the search make many rows equal, class by class (on egg's first
        // workload, 732 k of the last iteration's 1.37 M): only the first of them can change
        // anything (Rule::idempotent). Proofs cite every match, so logging runs keep them.
        const bool skip_repeats = scheduling.skip_repeats && !logging && rules[r].idempotent &&
                                  !rules[r].query.has_atoms() && width <= RepeatFilter::kMaxWidth;
        if (skip_repeats) repeats.start(rows);
        const uint32_t classes = rules[r].query.var_count();
        uint32_t canonical[RepeatFilter::kMaxWidth];
        size_t kept = 0;
        for (size_t i = 0; i < rows; ++i) {
          std::span<const uint32_t> row(found[r].data() + i * width, width);
          if (skip_repeats) {
            for (size_t k = 0; k < width; ++k) {
              canonical[k] = k < classes && row[k] != kUnbound ? g.find(row[k]) : row[k];
            }
            row = std::span<const uint32_t>(canonical, width);
            // A repeat of a row deferred in this pass is applied with it in the next.
            if (!repeats.insert(row)) {
              ++it.rules[r].repeats;
              continue;
            }
          }
          const uint32_t logged = logging ? report.matches.append(row) : 0;
          const size_t before = conflicts.size();
          ApplyContext context{g, options.db,
                               Reason{Reason::Kind::kRule, static_cast<uint32_t>(r), logged},
                               conflicts, existing_only};
          const size_t changes = rules[r].apply(context, row);
          if (context.deferred) {
            if (kept != i) std::copy(row.begin(), row.end(), found[r].data() + kept * width);
            ++kept;
          }
          if (g.unrepaired_merges() >= kRepairBatch) repair();
          for (size_t k = before; k < conflicts.size(); ++k) {
            if (refused_as_ill_typed(conflicts[k], options)) {
              ++report.ill_typed_instances;
            } else {
              report.conflicts.push_back({rules[r].name, conflicts[k]});
            }
          }
          if (logging && changes == 0) report.matches.pop();
          it.rules[r].applied += changes;
          applied += changes;
        }
        if (existing_only) found[r].resize(kept * width);
        deferred_rows += kept;
      }
      return deferred_rows;
    };
    // Two passes: first the matches whose right-hand side the e-graph holds already (unions
    // of existing classes), then the rest. The unions of the first pass let the lookups of the
    // second find nodes that would otherwise be built, only for congruence to fold them at the
    // rebuild (egg's first workload: 1.19 M node ids made → 0.33 M, 0.62 s → 0.40 s). Proofs
    // (explanations) keep the order found. The e-graph after the rebuild is the same.
    if (g.explanations() || !scheduling.held_first || apply_matches(/*existing_only=*/true) > 0) {
      apply_matches(/*existing_only=*/false);
    }
    it.apply_seconds = seconds_since(phase) - repair_seconds;

    phase = Clock::now();
    restored(g.rebuild());
    touched.record(g.take_touched());
    // Facts about merged classes now name the canonical class: new to the rules joining them.
    if (options.db) applied += options.db->canonicalize(g);
    it.rebuild_seconds = seconds_since(phase) + repair_seconds;
    it.congruence_merges = rebuilt.congruence_merges;
    // Congruence may meet the same two kinds of type mismatch as a rule instance: a node built
    // over a splat typed as a number in one place and at the array's type in another. The
    // e-graph refused to merge them; that loses an equality, never soundness.
    for (const Conflict& c : rebuilt.conflicts) {
      if (refused_as_ill_typed(c, options)) {
        ++report.ill_typed_instances;
      } else {
        report.conflicts.push_back({"congruence", c});
      }
    }
    for (const Conflict& c : g.take_analysis_conflicts()) {
      report.conflicts.push_back({"constant folding", c});
    }
    it.classes_after = g.class_count();
    it.nodes_after = g.node_count();
    it.facts_after = options.db ? options.db->fact_count() : 0;
    report.iterations.push_back(std::move(it));

    if (!report.conflicts.empty()) {
      report.stop = StopReason::kConflict;
      break;
    }
    if (applied == 0 && !any_banned) {
      report.stop = StopReason::kSaturated;
      break;
    }
  }
  report.seconds = seconds_since(start);
  return report;
}

}  // namespace scalify::egraph
