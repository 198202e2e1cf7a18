#include "verify/binding_search.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_set>

#include "verify/saturation_memo.h"

namespace scalify::verify {

namespace {

/// A parameter `node` depends on, and how many def-use hops away.
struct Upstream {
  ir::InstrId param;
  size_t hops;
};

/// The distributed parameters `node` depends on, nearest first (breadth-first upstream).
std::vector<Upstream> parameters_upstream(const ir::Computation& comp, ir::InstrId node) {
  std::vector<Upstream> out;
  std::vector<Upstream> queue{{node, 0}};
  std::unordered_set<ir::InstrId> seen{node};
  for (size_t i = 0; i < queue.size(); ++i) {
    const auto [id, hops] = queue[i];
    if (comp[id].opcode == ir::Opcode::kParameter) out.push_back({id, hops});
    for (ir::InstrId o : comp[id].operands) {
      if (seen.insert(o).second) queue.push_back({o, hops + 1});
    }
  }
  return out;
}

/// How far a check got: goals proven first, then every node lifted (a divergence by value
/// rather than a node without layout), then how late in topological order it diverged.
std::tuple<size_t, bool, size_t> progress(const CheckResult& r,
                                          const std::vector<ir::InstrId>& order,
                                          const ir::Computation& comp) {
  size_t proven = 0;
  for (const Goal& g : r.goals) proven += g.proven ? 1 : 0;
  size_t at = order.size();
  if (r.divergence) {
    if (auto id = comp.find(r.divergence->dist_node)) {
      at = static_cast<size_t>(std::find(order.begin(), order.end(), *id) - order.begin());
    }
  }
  return {proven, !r.divergence || r.divergence->by_value, at};
}

}  // namespace

/// A padded shard is right as it is when its padding never reaches a value; when it is summed
/// over, it must hold zeros (LLaMA's 4 heads over 8 ranks), which only the loader can promise:
/// a contract candidate right after the plain one.
void add_zero_padding_contracts(BijectionCandidates& candidates, const ir::Module& dist,
                                const Mesh& mesh) {
  for (ParameterCandidates& p : candidates.parameters) {
    std::vector<BijectionCandidate> out;
    for (const BijectionCandidate& c : p.candidates) {
      out.push_back(c);
      bool padded = false;
      BijectionCandidate zeros = c;
      for (AxisLayout& a : zeros.layout.axes) {
        if (a.is_shard() && a.full >= 0 && !a.zero_pad) {
          a.zero_pad = true;
          padded = true;
        }
      }
      if (!padded || c.source == BijectionCandidate::Source::kSpec) continue;
      zeros.source = BijectionCandidate::Source::kContract;
      zeros.contract = "the padding of '" + dist.entry()[p.dist].name + "' (" +
                       zeros.layout.to_string(mesh) + ") must hold zeros: it is summed over";
      out.push_back(std::move(zeros));
    }
    p.candidates = std::move(out);
  }
}

ParamBinding binding_of(const ParameterCandidates& p, size_t choice) {
  ParamBinding b;
  b.dist = p.dist;
  if (choice >= p.candidates.size()) {
    b.why = "no candidate";
    return b;
  }
  const BijectionCandidate& c = p.candidates[choice];
  b.ref = c.ref;
  b.layout = c.layout;
  b.reshape = c.reshape;
  b.permutation = c.permutation;
  b.why = c.why;
  if (!c.contract.empty()) {
    b.assumption = true;
    b.why = c.contract;
  }
  return b;
}

std::vector<ParamBinding> best_bindings(const BijectionCandidates& candidates) {
  std::vector<ParamBinding> bindings;
  for (const ParameterCandidates& p : candidates.parameters) bindings.push_back(binding_of(p, 0));
  return bindings;
}

Searched search_bindings(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                         const BijectionCandidates& candidates,
                         const std::vector<OutputBinding>& output_bindings,
                         const CheckOptions& options, size_t max_attempts) {
  // Start from every parameter's best candidate (binding_of binds one without any to nothing).
  std::vector<size_t> choice(candidates.parameters.size(), 0);
  auto bindings_for = [&](const std::vector<size_t>& pick) {
    std::vector<ParamBinding> bindings;
    for (size_t p = 0; p < candidates.parameters.size(); ++p) {
      bindings.push_back(binding_of(candidates.parameters[p], pick[p]));
    }
    return bindings;
  };
  const ir::Computation& comp = dist.entry();
  const std::vector<ir::InstrId> order =
      comp.topological_order().value_or(std::vector<ir::InstrId>{});
  // Trials often build the e-graph an earlier check saturated (the parameter they move is not
  // read before the divergence): those take it from the memo.
  SaturationMemo memo;
  CheckResult best =
      check_under(ref, dist, mesh, bindings_for(choice), options, output_bindings, &memo);
  std::vector<std::string> tried;
  // A divergence may only mean that a parameter's layout is another of its candidates (a
  // partial(sum) bias): try the next candidate of the parameters it depends on, nearest first,
  // keeping a change only when the check gets further.
  size_t attempts = 1;
  // The next candidate of parameter index p after `from`, or nullopt.
  auto next_of = [&](size_t p, size_t from) -> std::optional<size_t> {
    if (from + 1 >= candidates.parameters[p].candidates.size()) return std::nullopt;
    return from + 1;
  };
  // Runs `trial`; it is better than the best so far when it proves, or gets further while
  // still finding a divergence. An inconclusive trial (it ran into what the checker does not
  // model) never replaces a divergence: that would trade a finding for silence.
  struct Trial {
    std::vector<size_t> choice;
    std::vector<size_t> changed;
    CheckResult result;
  };
  CheckOptions current = options;  // with the balanced-count assumption once it is adopted
  auto run_trial = [&](std::vector<size_t> trial, std::vector<size_t> changed) {
    ++attempts;
    // A trial that diverges before the best check so far cannot beat it (better() below): it
    // stops at that node.
    CheckOptions trial_options = current;
    trial_options.give_up_before = std::get<2>(progress(best, order, comp));
    CheckResult r =
        check_under(ref, dist, mesh, bindings_for(trial), trial_options, output_bindings, &memo);
    return Trial{std::move(trial), std::move(changed), std::move(r)};
  };
  // A weight stored transposed is believed only when it proves: a divergence found under it
  // would be reported against a layout nobody wrote.
  auto permutes = [&](const Trial& t) {
    return std::any_of(t.changed.begin(), t.changed.end(), [&](size_t p) {
      return candidates.parameters[p].candidates[t.choice[p]].source ==
             BijectionCandidate::Source::kPermuted;
    });
  };
  auto better = [&](const Trial& t, const CheckResult& than) {
    const CheckResult& r = t.result;
    if (than.verdict == Verdict::kEquivalent) return false;
    return r.verdict == Verdict::kEquivalent ||
           (r.verdict == Verdict::kDivergent && !permutes(t) &&
            progress(r, order, comp) > progress(than, order, comp));
  };
  auto adopt = [&](Trial& t) {
    for (size_t p : t.changed) {
      // A parameter moved on again is told once, as it ends.
      const std::string name = comp[candidates.parameters[p].dist].name + " as ";
      std::erase_if(tried, [&](const std::string& s) { return s.starts_with(name); });
      tried.push_back(name +
                      candidates.parameters[p].candidates[t.choice[p]].layout.to_string(mesh));
    }
    choice = std::move(t.choice);
    best = std::move(t.result);
  };
  // A change that clears the divergence but ends where the checker cannot follow (an op it does
  // not model) is not adopted; what it showed is told beside the divergence it leaves standing.
  struct Hint {
    std::string node;  // the divergence it got past
    std::string text;
  };
  std::optional<Hint> hint;
  auto remember = [&](const Trial& t) {
    if (hint || t.result.verdict != Verdict::kInconclusive || !best.divergence) return;
    std::string change;
    for (size_t p : t.changed) {
      const BijectionCandidate& c = candidates.parameters[p].candidates[t.choice[p]];
      if (c.contract.empty()) return;  // only a loader's contract is worth telling
      change += (change.empty() ? "" : " and ") + comp[candidates.parameters[p].dist].name +
                " as " + c.layout.to_string(mesh) + " (" + c.contract + ")";
    }
    for (const std::string& n : t.result.notes) {
      if (!n.starts_with("could not follow")) continue;
      hint = Hint{best.divergence->dist_node, "with " + change + ", the check gets past " +
                                                  best.divergence->dist_node + ", then " + n};
      return;
    }
  };
  auto search = [&] {
    bool improved = true;
    while (improved && best.verdict == Verdict::kDivergent && best.divergence &&
           attempts < max_attempts) {
      improved = false;
      auto node = comp.find(best.divergence->dist_node);
      if (!node) break;
      // The parameters the divergent node depends on, nearest first, that have another candidate.
      std::vector<size_t> movable;
      std::vector<size_t> hops;  // of each movable parameter
      for (const Upstream& u : parameters_upstream(comp, *node)) {
        size_t p = 0;
        while (p < candidates.parameters.size() && candidates.parameters[p].dist != u.param) ++p;
        if (p < candidates.parameters.size() && next_of(p, choice[p])) {
          movable.push_back(p);
          hops.push_back(u.hops);
        }
      }
      // Single changes, nearest first, keeping the one that gets furthest among the nearest that
      // help (a proof ends the search; a farther parameter is tried only when no nearer one
      // helps: what feeds the divergent node most directly is what its reason is about); then,
      // if none helps, two of the nearest together (two operands whose shards only line up when
      // both move to another axis of the same size).
      std::optional<Trial> pick;
      size_t pick_hops = 0;
      for (size_t i = 0; i < movable.size() && attempts < max_attempts; ++i) {
        if (pick && hops[i] > pick_hops) break;
        std::vector<size_t> trial = choice;
        trial[movable[i]] = *next_of(movable[i], choice[movable[i]]);
        Trial t = run_trial(std::move(trial), {movable[i]});
        remember(t);
        if (better(t, pick ? pick->result : best)) {
          pick = std::move(t);
          pick_hops = hops[i];
        }
        if (pick && pick->result.verdict == Verdict::kEquivalent) break;
      }
      constexpr size_t kNearest = 4;
      for (size_t i = 0; !pick && i < movable.size() && i < kNearest; ++i) {
        for (size_t j = i + 1; !pick && j < movable.size() && j < kNearest; ++j) {
          if (attempts >= max_attempts) break;
          std::vector<size_t> trial = choice;
          trial[movable[i]] = *next_of(movable[i], choice[movable[i]]);
          trial[movable[j]] = *next_of(movable[j], choice[movable[j]]);
          Trial t = run_trial(std::move(trial), {movable[i], movable[j]});
          if (better(t, best)) pick = std::move(t);
        }
      }
      if (pick) {
        adopt(*pick);
        improved = true;
      }
    }
  };
  search();
  // A mean over batch shards is right only if every rank counts as many items: an assumption
  // adopted only when it is what proves, or what finds a later divergence.
  if (best.verdict == Verdict::kDivergent && attempts < max_attempts) {
    CheckOptions balanced = options;
    balanced.balanced_partials = true;
    Trial t{choice,
            {},
            check_under(ref, dist, mesh, bindings_for(choice), balanced, output_bindings, &memo)};
    ++attempts;
    // Kept when it proves, or when it gets further: a divergence found under the assumption
    // is nearer the real one (the assumption is then listed with it), and the parameters
    // upstream of that one are searched again under it (accumulators of local means).
    if (better(t, best)) {
      best = std::move(t.result);
      current = balanced;
      search();
    }
  }
  // Accumulators of local means first look like partial sums (each adopted as one gets further)
  // and are only right as partial means all at once: one moved alone still meets the others'
  // parts counted n times, so the search sees no progress. One more trial moves them together.
  if (best.verdict == Verdict::kDivergent && attempts < max_attempts) {
    std::vector<size_t> trial = choice;
    std::vector<size_t> changed;
    for (size_t p = 0; p < trial.size(); ++p) {
      const auto& list = candidates.parameters[p].candidates;
      if (trial[p] >= list.size() || list[trial[p]].source != BijectionCandidate::Source::kContract)
        continue;
      for (size_t c = trial[p] + 1; c < list.size(); ++c) {
        // The same reference value, with partial means where this one has partial sums.
        const auto [sums, n] = list[c].layout.means_as_sums(mesh);
        if (n > 1 && sums == list[trial[p]].layout && list[c].ref == list[trial[p]].ref) {
          trial[p] = c;
          changed.push_back(p);
          break;
        }
      }
    }
    if (!changed.empty()) {
      Trial t = run_trial(std::move(trial), std::move(changed));
      if (better(t, best)) adopt(t);
    }
  }
  if (hint && best.verdict == Verdict::kDivergent && best.divergence &&
      best.divergence->dist_node == hint->node) {
    best.notes.push_back(std::move(hint->text));
  }
  return {std::move(best), std::move(tried)};
}

}  // namespace scalify::verify
