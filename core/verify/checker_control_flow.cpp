// Control flow the checker cannot flatten (ir/inline_calls.h), proven by what its computations
// do on the layouts of their operands.
//
// A loop (a trip count from the data, or too many iterations) by induction: when the two loops
// start from states related element by element by layouts L, and one step of the distributed
// body maps any state related by L to one related by L (and the conditions agree on every rank),
// then after any number of steps the states are related by L. A conditional whose branch depends
// on the data: every branch, on operands related as the conditional's are, gives outputs related
// by the same layouts, and the selectors agree. Each of these is checked as a program of its own:
// the computation with its parameters bound by the operands' layouts.
#include <algorithm>
#include <memory>

#include "ir/step_module.h"
#include "verify/checker_internal.h"

namespace scalify::verify::detail {

namespace {

/// Nested loops proven inside proven loop bodies stop here.
constexpr int kMaxLoopDepth = 4;

/// The check of `dist_step` against `ref_step` on parameters related by `layouts` (element by
/// element), with outputs required to be related by `out` (when given). nullopt when a
/// computation's parameter is no array or tuple of arrays.
std::optional<CheckResult> check_step(const ir::Module& ref, ir::CompId ref_step,
                                      const ir::Module& dist, ir::CompId dist_step,
                                      const Mesh& mesh, const std::vector<Layout>& layouts,
                                      const std::vector<Layout>& out, CheckOptions options) {
  const auto r = ir::step_module(ref, ref_step);
  const auto d = ir::step_module(dist, dist_step);
  if (!r || !d) return std::nullopt;
  std::vector<ParamBinding> bindings;
  for (size_t i = 0; i < layouts.size(); ++i) {
    ParamBinding b;
    b.dist = static_cast<ir::InstrId>(i);
    b.ref = static_cast<ir::InstrId>(i);
    b.layout = layouts[i];
    b.why = "loop state element " + std::to_string(i);
    bindings.push_back(std::move(b));
  }
  std::vector<OutputBinding> outputs;
  for (size_t i = 0; i < out.size(); ++i) {
    outputs.push_back({static_cast<int64_t>(i), static_cast<int64_t>(i), out[i]});
  }
  ++options.loop_depth;
  return check_under(*r, *d, mesh, bindings, options, outputs);
}

/// Why the check of a step (check_step) does not prove it; nullopt when it does.
std::optional<std::string> unproven(const std::optional<CheckResult>& checked) {
  if (!checked) return "its parameter is not a tuple of arrays";
  const CheckResult& c = *checked;
  if (c.verdict == Verdict::kEquivalent && c.assumptions.empty()) return std::nullopt;
  if (c.verdict == Verdict::kEquivalent) return std::string("it holds only under assumptions");
  if (c.divergence) return c.divergence->dist_node + ": " + c.divergence->reason;
  for (const Goal& g : c.goals) {
    if (!g.proven) return "state element " + std::to_string(g.index) + ": " + g.why_not;
  }
  return std::string("it could not be proven");
}

/// A proven step's check as its proof keeps it: without the node matches (the window's
/// colouring of the step's own program, which no one shows).
std::shared_ptr<const CheckResult> keep(CheckResult checked) {
  checked.matches.clear();
  return std::make_shared<const CheckResult>(std::move(checked));
}

}  // namespace

/// The facts of `value` (each element of it) whose reference terms are `start`'s, one per
/// element: the premises of a step that starts where the reference's does; empty when some
/// element does not.
std::vector<uint32_t> Checker::facts_starting_at(InstrId value, InstrId ref_value) const {
  const auto& have = facts_of_[static_cast<size_t>(value)];
  const auto& start = ref_values_[static_cast<size_t>(ref_value)];
  std::vector<uint32_t> out;
  for (size_t e = 0; e < have.size() && e < start.size(); ++e) {
    for (uint32_t f : have[e]) {
      if (start[e] && g_.find(facts_[f].ref) == g_.find(*start[e])) {
        out.push_back(f);
        break;
      }
    }
  }
  if (out.size() != have.size() || have.size() != start.size()) out.clear();
  return out;
}

/// Element e of `id` is element e of the reference's `ref` in `layouts[e]`, by `rule`.
void Checker::add_control_flow_facts(InstrId id, InstrId ref, const std::vector<Layout>& layouts,
                                     const std::vector<uint32_t>& premises, const char* rule,
                                     std::shared_ptr<const ControlFlowProof> proof) {
  const auto& values = ref_values_[static_cast<size_t>(ref)];
  for (size_t e = 0; e < values.size() && e < layouts.size(); ++e) {
    if (!values[e]) continue;
    Fact f;
    f.layout = layouts[e];
    f.ref = *values[e];
    f.rule = rule;
    f.premises = premises;
    f.apply = true;
    f.control_flow = proof;
    add_fact(id, e, std::move(f));
  }
}

bool Checker::lift_conditional(InstrId id) {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const ir::Instruction& cond = d[id];
  const std::vector<ir::CompId> branches = ir::branch_computations(dist_, cond);
  if (cond.opcode != ir::Opcode::kConditional || branches.empty() ||
      cond.operands.size() != branches.size() + 1) {
    return false;
  }
  // An empty tuple (a branch that takes nothing) holds no value to have a fact of.
  auto nothing = [](const ir::Instruction& x) {
    return x.type.is_tuple() && x.type.elements().empty();
  };
  for (InstrId o : cond.operands) {
    const auto& known = facts_of_[static_cast<size_t>(o)];
    if (nothing(d[o])) continue;
    if (known.empty() ||
        std::any_of(known.begin(), known.end(), [](const auto& e) { return e.empty(); })) {
      return false;
    }
  }
  if (options_.loop_depth >= kMaxLoopDepth) return false;
  std::string why = "no reference conditional takes the values it takes";
  bool diverges = false;
  for (InstrId k = 0; k < static_cast<InstrId>(r.size()); ++k) {
    const ir::Instruction& other = r[k];
    const auto& values = ref_values_[static_cast<size_t>(k)];
    if (other.opcode != ir::Opcode::kConditional || other.operands.size() != cond.operands.size() ||
        values.empty() || !values[0]) {
      continue;
    }
    const std::vector<ir::CompId> ref_branches = ir::branch_computations(ref_, other);
    if (ref_branches.size() != branches.size()) continue;
    // The same selector on every rank, and each branch's operand where the reference's is.
    std::vector<uint32_t> premises = facts_starting_at(cond.operands[0], other.operands[0]);
    if (premises.empty() || !facts_[premises[0]].layout.is_rep()) continue;
    std::vector<std::vector<Layout>> operand_layouts;
    for (size_t b = 1; b < cond.operands.size(); ++b) {
      const auto start = facts_starting_at(cond.operands[b], other.operands[b]);
      const bool empty = nothing(d[cond.operands[b]]) && nothing(r[other.operands[b]]);
      if (start.empty() && !empty) break;
      operand_layouts.emplace_back();
      for (uint32_t f : start) operand_layouts.back().push_back(facts_[f].layout);
      premises.insert(premises.end(), start.begin(), start.end());
    }
    if (operand_layouts.size() != branches.size()) continue;
    // Every branch proven, with the same layouts of its outputs.
    std::optional<std::vector<Layout>> out;
    auto proof = std::make_shared<ControlFlowProof>();
    proof->ref_node = other.name;
    for (size_t b = 0; b < branches.size(); ++b) {
      auto checked = check_step(ref_, ref_branches[b], dist_, branches[b], mesh_,
                                operand_layouts[b], {}, options_);
      if (auto no = unproven(checked)) {
        why = "branch " + std::to_string(b) + " is not the reference's (" + *no + ")";
        // Found diverging on the operands the reference's branch takes: a divergence, not a
        // conditional the checker cannot follow.
        diverges = checked && checked->verdict == Verdict::kDivergent;
        out.reset();
        break;
      }
      std::vector<Layout> layouts;
      for (const Goal& g : checked->goals) layouts.push_back(*g.layout);
      if (out && *out != layouts) {
        why = "its branches give their results in different layouts";
        out.reset();
        break;
      }
      out = std::move(layouts);
      proof->steps.push_back({"branch " + std::to_string(b), keep(std::move(*checked))});
    }
    if (!out || out->size() != values.size()) continue;
    add_control_flow_facts(id, k, *out, premises, "conditional-branches", std::move(proof));
    control_flow_proven_.push_back("conditional " + cond.name + " ~ " + other.name +
                                   " (every branch checked on its operands' layouts)");
    return true;
  }
  if (diverges) {
    refuse(id, NoLift{"its selector and operands are the reference's, but " + why, false});
  } else {
    refuse(id, NoLift{"`conditional` whose branch depends on the data: " + why, true});
  }
  return true;
}

bool Checker::lift_loop(InstrId id) {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const ir::Instruction& loop = d[id];
  if (loop.opcode != ir::Opcode::kWhile || loop.operands.size() != 1) return false;
  const auto& state = facts_of_[static_cast<size_t>(loop.operands[0])];
  const auto body = ir::called_computation(dist_, loop, "body"),
             cond = ir::called_computation(dist_, loop, "condition");
  if (!body || !cond || state.size() != element_count(loop.type)) return false;
  if (std::any_of(state.begin(), state.end(), [](const auto& e) { return e.empty(); })) {
    return false;
  }
  if (options_.loop_depth >= kMaxLoopDepth) {
    unsupported_.push_back(loop.name + ": nested " + std::to_string(kMaxLoopDepth) +
                           " deep in proven loop bodies and branches");
    return false;
  }
  std::string why = "no reference loop starts from the values it starts from";
  for (InstrId k = 0; k < static_cast<InstrId>(r.size()); ++k) {
    const ir::Instruction& other = r[k];
    const auto& values = ref_values_[static_cast<size_t>(k)];
    if (other.opcode != ir::Opcode::kWhile || other.operands.size() != 1 ||
        values.size() != state.size()) {
      continue;
    }
    if (!values[0]) {
      why = "the reference's loop " + other.name + " is not modelled (see the notes)";
      continue;
    }
    // Each element of the state must start as the reference loop's does.
    const std::vector<uint32_t> premises = facts_starting_at(loop.operands[0], other.operands[0]);
    const auto ref_body = ir::called_computation(ref_, other, "body"),
               ref_cond = ir::called_computation(ref_, other, "condition");
    if (premises.empty() || !ref_body || !ref_cond) continue;
    auto layouts_of = [&](const std::vector<uint32_t>& facts) {
      std::vector<Layout> out;
      for (uint32_t f : facts) out.push_back(facts_[f].layout);
      return out;
    };
    std::vector<Layout> layouts = layouts_of(premises);
    std::optional<CheckResult> step;
    auto kept = [&](const std::vector<Layout>& invariant) {
      step = check_step(ref_, *ref_body, dist_, *body, mesh_, invariant, invariant, options_);
      return unproven(step);
    };
    auto no = kept(layouts);
    // A state element that starts as zeros on every rank is also a partial sum of zeros: an
    // accumulator of partial sums (all-reduced after the loop) keeps that invariant instead.
    // Each such element is tried on its own, over one axis or (a == rank) all of them.
    for (size_t e = 0; no && e < layouts.size(); ++e) {
      if (!layouts[e].is_rep() || bridge_.number_value(facts_[premises[e]].ref) != 0.0) continue;
      for (size_t a = 0; no && a <= mesh_.rank(); ++a) {
        std::vector<Layout> invariant = layouts;
        for (size_t b = 0; b < mesh_.rank(); ++b) {
          if (a == b || a == mesh_.rank()) {
            invariant[e].axes[b] = AxisLayout::partial(ReduceOp::kSum);
          }
        }
        if (!kept(invariant)) {
          layouts = std::move(invariant);
          no.reset();
        }
      }
    }
    if (no) {
      why = "its body does not keep the layouts the state starts in (" + *no + ")";
      continue;
    }
    auto proof = std::make_shared<ControlFlowProof>();
    proof->ref_node = other.name;
    proof->steps.push_back({"body", keep(std::move(*step))});
    const std::vector<Layout> rep{Layout::replicated(mesh_.rank())};
    step = check_step(ref_, *ref_cond, dist_, *cond, mesh_, layouts, rep, options_);
    if ((no = unproven(step))) {
      why = "its condition is not the reference's on every rank (" + *no + ")";
      continue;
    }
    proof->steps.push_back({"condition", keep(std::move(*step))});
    add_control_flow_facts(id, k, layouts, premises, "while-induction", std::move(proof));
    control_flow_proven_.push_back("loop " + loop.name + " ~ " + other.name +
                                   " (by induction: its body and condition checked on the "
                                   "state's layouts)");
    return true;
  }
  refuse(id, NoLift{"`while` whose trip count is not a constant: " + why, true});
  return true;
}

}  // namespace scalify::verify::detail
