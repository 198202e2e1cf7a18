// The independent proof checker's control flow (fact_checker.h): a loop proven by induction and
// a conditional proven branch by branch. Each step such a fact rests on is a proof of its own,
// re-checked on the step programs (ir/step_module.h) of the computations the two nodes call,
// and it must state exactly what the argument needs:
// - a loop: its state starts, element by element, where the reference loop's does, in layouts
//   L (or as zeros, which are also a partial sum of zeros); the body, on parameters bound by L,
//   gives its outputs in L; the condition, on the same parameters, is the reference's on every
//   rank. Then after any number of iterations the two states are related by L.
// - a conditional: the selector is the reference's on every rank; each branch, on parameters
//   bound as the operand it receives is, gives its outputs in the layouts the fact claims.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/step_module.h"
#include "proofcheck/fact_checker.h"

namespace scalify::proofcheck::detail {

using verify::CheckResult;
using verify::DerivedFact;
using verify::Layout;

namespace {

size_t elements_of(const ir::Type& t) { return t.is_tuple() ? t.elements().size() : 1; }

/// The layouts a step's contract binds its `n` parameters by (parameter k, `state.k`, of both
/// step programs, as it is, in layouts[k]), or why it binds something else.
std::variant<std::vector<Layout>, std::string> bound_layouts(const CheckResult& step, size_t n) {
  std::vector<std::optional<Layout>> bound(n);
  for (const verify::BijectionEntry& b : step.bijection) {
    size_t k = n;
    for (size_t i = 0; i < n; ++i) {
      if (b.dist == "state." + std::to_string(i)) k = i;
    }
    if (k == n || b.ref != b.dist || !b.reshape.empty() || !b.permutation.empty() || bound[k]) {
      return "its contract binds '" + b.dist + "' to '" + b.ref +
             "', not each state element, as it is, to its own";
    }
    bound[k] = b.layout;
  }
  std::vector<Layout> out;
  for (size_t k = 0; k < n; ++k) {
    if (!bound[k]) return "its contract binds no layout to state element " + std::to_string(k);
    out.push_back(*bound[k]);
  }
  return out;
}

/// Why `step` does not prove output k in want[k] for every k (each output in its own place,
/// with no assumption); "" when it does.
std::string unproven_outputs(const CheckResult& step, const std::vector<Layout>& want,
                             const verify::Mesh& mesh) {
  if (step.verdict != verify::Verdict::kEquivalent || !step.assumptions.empty() ||
      !step.unmatched_ref_outputs.empty()) {
    return "it is not proven without assumptions";
  }
  if (step.goals.size() != want.size()) {
    return "it proves " + std::to_string(step.goals.size()) + " outputs, not " +
           std::to_string(want.size());
  }
  std::vector<bool> seen(want.size(), false);
  for (const verify::Goal& g : step.goals) {
    const auto ref = verify::split_value_name(g.ref), dist = verify::split_value_name(g.dist);
    const auto k = static_cast<size_t>(g.index);
    const bool in_place = ref && dist && ref->element == dist->element &&
                          (ref->element == g.index || (ref->element < 0 && g.index == 0));
    if (!g.proven || !g.layout || !in_place || k >= want.size() || seen[k]) {
      return "its goal " + g.ref + " is not output " + std::to_string(g.index) + " proven in place";
    }
    if (!(*g.layout == want[k])) {
      return "it gives output " + std::to_string(k) + " in " + g.layout->to_string(mesh) +
             ", not " + want[k].to_string(mesh);
    }
    seen[k] = true;
  }
  return "";
}

/// Every axis replicated or a partial sum: what replicated zeros also are.
bool zeros_may_be(const Layout& layout) {
  for (const verify::AxisLayout& a : layout.axes) {
    if (!a.is_rep() && !(a.is_partial() && a.op == verify::ReduceOp::kSum)) return false;
  }
  return true;
}

}  // namespace

std::optional<Failure> FactChecker::recheck_step(const verify::StepCheck& step, ir::CompId ref_step,
                                                 ir::CompId dist_step) {
  const auto ref = ir::step_module(ref_, ref_step);
  const auto dist = ir::step_module(dist_, dist_step);
  if (!ref || !dist) return Failure(step.role + ": its parameter is not a tuple of arrays");
  if (!step.result || !(step.result->mesh == mesh_)) {
    return Failure(step.role + ": its proof is on another mesh");
  }
  TermTable terms(terms_.identities());
  const ProofCheckReport report = check_result(*step.result, *ref, *dist, terms);
  if (report.outcome != ProofCheckReport::Outcome::kAccepted) {
    return Failure(step.role + ": " + report.why,
                   report.outcome == ProofCheckReport::Outcome::kNotCheckable);
  }
  if (report.verdict != "equivalent" || !report.assumptions.empty() ||
      report.goals != report.goals_in_all) {
    return Failure(step.role + ": not every output proven without assumptions");
  }
  for (const auto& [name, n] : report.identities) step_identities_[name] += n;
  return std::nullopt;
}

FactCheck FactChecker::control_flow(const DerivedFact& f, const ir::Instruction& instr) {
  const verify::ControlFlowProof* proof = f.control_flow.get();
  if (!proof) {
    return Failure(
        "control flow proven by checking its computations: their proofs are not part of this "
        "file",
        true);
  }
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const auto other_id = r.find(proof->ref_node);
  if (!other_id) return "the reference program has no node '" + proof->ref_node + "'";
  const ir::Instruction& other = r[*other_id];
  const bool loop = f.rule == "while-induction";
  const ir::Opcode op = loop ? ir::Opcode::kWhile : ir::Opcode::kConditional;
  if (instr.opcode != op || other.opcode != op || other.operands.size() != instr.operands.size() ||
      elements_of(other.type) != elements_of(instr.type)) {
    return "the node and the reference's '" + proof->ref_node + "' are not two `" +
           (loop ? "while" : "conditional") + "`s of the same operands and results";
  }
  // The premises: every element of every operand in order (a conditional's selector first),
  // each where the reference node's operand is.
  std::vector<std::vector<Layout>> starts;
  std::vector<TermId> start_terms;
  size_t next = 0;
  for (size_t o = 0; o < instr.operands.size(); ++o) {
    const ir::Instruction& operand = d[instr.operands[o]];
    starts.emplace_back();
    for (size_t e = 0; e < elements_of(operand.type); ++e, ++next) {
      const int64_t element = operand.type.is_tuple() ? static_cast<int64_t>(e) : -1;
      if (next >= f.premises.size() || premise(f, next).dist != operand.name ||
          premise(f, next).element != element) {
        return "its premises are not the elements of its operands, in order";
      }
      const auto start = reference_term(r[other.operands[o]].name, element);
      const TermId have = *known_[f.premises[next]];
      if (!start || !terms_.same_elements(*start, have)) {
        return "premise [" + std::to_string(f.premises[next]) + "] is not where the reference's '" +
               proof->ref_node + "' starts";
      }
      starts.back().push_back(premise(f, next).layout);
      start_terms.push_back(have);
    }
  }
  if (next != f.premises.size()) return "it has premises besides its operands' elements";
  auto step = [&](const std::string& role) -> const verify::StepCheck* {
    for (const verify::StepCheck& s : proof->steps) {
      if (s.role == role && s.result) return &s;
    }
    return nullptr;
  };
  const size_t n = elements_of(instr.type);
  std::vector<Layout> claimed;  // the node's outputs' layouts, element by element
  if (loop) {
    const auto* body = step("body");
    const auto* cond = step("condition");
    const auto dist_body = ir::called_computation(dist_, instr, "body"),
               dist_cond = ir::called_computation(dist_, instr, "condition"),
               ref_body = ir::called_computation(ref_, other, "body"),
               ref_cond = ir::called_computation(ref_, other, "condition");
    if (!body || !cond || proof->steps.size() != 2 || !dist_body || !dist_cond || !ref_body ||
        !ref_cond) {
      return std::string("the proof does not hold the checks of a body and a condition");
    }
    auto invariant = bound_layouts(*body->result, n);
    if (auto* no = std::get_if<std::string>(&invariant)) return "body: " + *no;
    claimed = std::get<std::vector<Layout>>(invariant);
    for (size_t k = 0; k < n; ++k) {
      const Layout& start = starts[0][k];
      const bool zeros =
          start.is_rep() && terms_[start_terms[k]].splat == 0.0 && zeros_may_be(claimed[k]);
      if (!(start == claimed[k]) && !zeros) {
        return "state element " + std::to_string(k) + " starts in " + start.to_string(mesh_) +
               ", not in the invariant's " + claimed[k].to_string(mesh_);
      }
    }
    auto cond_bound = bound_layouts(*cond->result, n);
    if (auto* no = std::get_if<std::string>(&cond_bound)) return "condition: " + *no;
    if (std::get<std::vector<Layout>>(cond_bound) != claimed) {
      return std::string("condition: checked on other layouts than the body");
    }
    if (auto no = unproven_outputs(*body->result, claimed, mesh_); !no.empty()) {
      return "body: " + no;
    }
    if (auto no = unproven_outputs(*cond->result, {Layout::replicated(mesh_.rank())}, mesh_);
        !no.empty()) {
      return "condition: " + no;
    }
    if (auto no = recheck_step(*body, *ref_body, *dist_body)) return *no;
    if (auto no = recheck_step(*cond, *ref_cond, *dist_cond)) return *no;
  } else {
    const std::vector<ir::CompId> branches = ir::branch_computations(dist_, instr),
                                  ref_branches = ir::branch_computations(ref_, other);
    if (branches.size() + 1 != instr.operands.size() || ref_branches.size() != branches.size() ||
        proof->steps.size() != branches.size()) {
      return std::string("the proof does not hold one check per branch");
    }
    if (starts[0].size() != 1 || !starts[0][0].is_rep()) {
      return std::string("its selector is not the same on every rank");
    }
    for (size_t b = 0; b < branches.size(); ++b) {
      const std::string role = "branch " + std::to_string(b);
      const auto* checked = step(role);
      if (!checked) return "the proof holds no check of " + role;
      auto bound = bound_layouts(*checked->result, starts[b + 1].size());
      if (auto* no = std::get_if<std::string>(&bound)) return role + ": " + *no;
      if (std::get<std::vector<Layout>>(bound) != starts[b + 1]) {
        return role + ": checked on other layouts than its operand's";
      }
      if (b == 0) {
        // The layouts the branches agree on: branch 0's, each output in its place.
        claimed.assign(n, Layout::replicated(mesh_.rank()));
        for (const verify::Goal& g : checked->result->goals) {
          if (g.layout && g.index >= 0 && static_cast<size_t>(g.index) < n) {
            claimed[static_cast<size_t>(g.index)] = *g.layout;
          }
        }
      }
      if (auto no = unproven_outputs(*checked->result, claimed, mesh_); !no.empty()) {
        return role + ": " + no;
      }
      if (auto no = recheck_step(*checked, ref_branches[b], branches[b])) return *no;
    }
  }
  const size_t e = f.element < 0 ? 0 : static_cast<size_t>(f.element);
  if (e >= claimed.size() || !(claimed[e] == f.layout)) {
    return "it claims " + f.layout.to_string(mesh_) + " where its steps prove another layout";
  }
  const auto term = reference_term(other.name, instr.type.is_tuple() ? f.element : -1);
  if (!term) return "the reference's '" + other.name + "' has no such element";
  return *term;
}

}  // namespace scalify::proofcheck::detail
