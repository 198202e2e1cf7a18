// The independent proof checker's driver (proof_check.h): reads the programs, checks the facts
// the proven goals rest on in order (fact_checker.h), then the goals and what the verdict covers.
#include "proofcheck/proof_check.h"

#include <algorithm>
#include <optional>
#include <set>

#include "hlo/reader.h"
#include "ir/inline_calls.h"
#include "proofcheck/fact_checker.h"
#include "proofcheck/reference_terms.h"
#include "rules/bundled_rules.h"
#include "rules/rule_parser.h"

namespace scalify::proofcheck {

namespace detail {

using verify::AxisLayout;
using verify::DerivedFact;

/// Re-checks the facts the proven goals rest on, then the goals and the verdict's coverage.
ProofCheckReport check_result(const verify::CheckResult& r, const ir::Module& ref,
                              const ir::Module& dist, TermTable& terms) {
  detail::FactChecker checker(r, ref, dist, terms);
  ProofCheckReport report;
  auto error = [&](std::string message, bool unsupported = false) {
    report.outcome = unsupported ? ProofCheckReport::Outcome::kNotCheckable
                                 : ProofCheckReport::Outcome::kRejected;
    report.why = std::move(message);
    return report;
  };
  const auto& facts = r.derivation;
  // The facts the proven goals rest on.
  std::vector<bool> needed(facts.size(), false);
  report.goals_in_all = r.goals.size();
  for (const verify::Goal& g : r.goals) {
    if (!g.proven) continue;
    if (!g.fact || *g.fact >= facts.size()) {
      return error("goal " + g.ref + ": proven, but the proof names no fact for it");
    }
    std::vector<size_t> stack{*g.fact};
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      if (needed[i]) continue;
      needed[i] = true;
      for (size_t p : facts[i].premises) {
        if (p >= facts.size())
          return error("fact [" + std::to_string(i) + "]: no premise " + std::to_string(p));
        stack.push_back(p);
      }
    }
  }
  for (size_t i = 0; i < facts.size(); ++i) {
    if (!needed[i]) continue;
    const DerivedFact& f = facts[i];
    if (f.index != i)
      return error("fact [" + std::to_string(i) + "] is numbered " + std::to_string(f.index));
    if (auto failed = checker.add(f)) return error(failed->why, failed->unsupported);
    ++report.facts;
  }
  // Each proven goal: its fact is about the distributed output, in the goal's layout, and its
  // term is the reference output's.
  std::set<int64_t> covered;
  const ir::Instruction& droot = dist.entry()[dist.entry().root];
  const ir::Instruction& rroot = ref.entry()[ref.entry().root];
  for (const verify::Goal& g : r.goals) {
    if (!g.proven) continue;
    const DerivedFact& f = facts[*g.fact];
    const auto ref_name = verify::split_value_name(g.ref);
    const auto dist_name = verify::split_value_name(g.dist);
    if (!ref_name || !dist_name) return error("goal " + g.ref + ": not an output's name");
    const int64_t ref_element = ref_name->element;
    // The goal names the distributed output element (`tuple.162#3`), which the output
    // alignment may have paired with another reference element.
    const int64_t element = dist_name->element >= 0 ? dist_name->element : g.index;
    const bool output_fact =
        (droot.opcode == ir::Opcode::kTuple && f.dist == droot.name && f.element == element) ||
        (droot.opcode == ir::Opcode::kTuple && f.element < 0 &&
         static_cast<size_t>(element) < droot.operands.size() &&
         dist.entry()[droot.operands[static_cast<size_t>(element)]].name == f.dist) ||
        (droot.opcode != ir::Opcode::kTuple && f.dist == droot.name);
    if (!output_fact) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] is about " +
                   verify::value_name(f) + ", not the distributed output " + g.dist);
    }
    // A sum over n ranks of n·X is their mean of X: a goal may say partial(mean) where its
    // fact says partial(sum) of n times the reference output.
    double factor = 1;
    bool same_layout = g.layout && g.layout->axes.size() == f.layout.axes.size();
    for (size_t a = 0; same_layout && a < f.layout.axes.size(); ++a) {
      const AxisLayout& want_part = g.layout->axes[a];
      const AxisLayout& got = f.layout.axes[a];
      if (want_part == got) continue;
      same_layout = want_part.is_partial() && want_part.op == verify::ReduceOp::kMean &&
                    got.is_partial() && got.op == verify::ReduceOp::kSum;
      factor *= static_cast<double>(r.mesh.size(a));
    }
    if (!same_layout) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] gives layout " +
                   f.layout.to_string(r.mesh) + ", not the goal's");
    }
    auto want = checker.reference_term(ref_name->node, ref_element);
    if (ref_name->node != rroot.name || !want) {
      return error("goal " + g.ref + ": not an output of the reference program");
    }
    *want = terms.scaled(factor, *want);
    if (*want != checker.term(f.index)) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] computes " +
                   terms.describe(checker.term(f.index)) + ", not the reference output " +
                   terms.describe(*want));
    }
    covered.insert(ref_element);
    ++report.goals;
  }
  report.assumptions.assign(checker.assumptions().begin(), checker.assumptions().end());
  for (const auto& [name, n] : terms.identities_used()) report.identities[name] = n;
  for (const auto& [name, n] : checker.step_identities()) report.identities[name] += n;
  // Every reference output has a re-checked goal, or the result says it has no counterpart
  // (then the verdict is about the others, as the result states; --strict refuses that).
  const size_t outputs = rroot.opcode == ir::Opcode::kTuple ? rroot.operands.size() : 1;
  size_t missing = 0;
  for (size_t k = 0; k < outputs; ++k) {
    const auto element = rroot.opcode == ir::Opcode::kTuple ? static_cast<int64_t>(k) : -1;
    // A token or an empty tuple carries no values (what a token's effects send out is below).
    if (ir::carries_no_values(element < 0 ? rroot.type : rroot.type.elements()[k])) continue;
    const std::string name = element < 0 ? rroot.name : rroot.name + "#" + std::to_string(k);
    const bool proven = covered.contains(element) || (element <= 0 && covered.contains(0)) ||
                        (element < 0 && covered.contains(-1));
    const bool unmatched = std::find(r.unmatched_ref_outputs.begin(), r.unmatched_ref_outputs.end(),
                                     name) != r.unmatched_ref_outputs.end();
    if (unmatched && !proven) ++report.unmatched_outputs;
    if (!proven && !unmatched) ++missing;
  }
  const std::string claimed(verify::verdict_name(r.verdict));
  bool sends_out = false;
  for (const ir::Module* m : {&ref, &dist}) {
    // Values sent out of a program (an outfeed) are behaviour no goal covers.
    const auto at = ir::first_output_effect(m->entry());
    if (at && claimed == "equivalent") {
      return error("the result says equivalent, but " + m->entry()[*at].name +
                   " sends values out of the program, which no goal covers");
    }
    sends_out = sends_out || at.has_value();
  }
  const bool all = missing == 0 && !sends_out;
  if (claimed == "equivalent" && !all) {
    return error("the result says equivalent, but " + std::to_string(missing) +
                 " reference output(s) have no proven goal");
  }
  report.verdict = all ? "equivalent" : claimed;
  report.parameters = checker.parameters();
  report.outcome = ProofCheckReport::Outcome::kAccepted;
  return report;
}

}  // namespace detail

Expected<ProofCheckReport> check_proof(const ProofFile& proof) {
  auto ref = hlo::read_module(proof.ref_hlo, proof.ref_path);
  if (!ref) return ref.error();
  auto dist = hlo::read_module(proof.dist_hlo, proof.dist_path);
  if (!dist) return dist.error();
  // Calls and fusions are checked op by op, named CALL.NODE, as the checker names them.
  if (auto flat = ir::inline_calls(*ref)) *ref = std::move(*flat);
  if (auto flat = ir::inline_calls(*dist)) *dist = std::move(*flat);
  // A mesh of no axes is one device: the refactoring check, every layout replicated.
  std::vector<IdentityRule> identities;
  for (const rules::RuleText& file : rules::bundled_rule_files()) {
    auto parsed = rules::parse_rules(file.text, file.name);
    if (!parsed) return parsed.error();
    auto more = identity_rules(*parsed);
    identities.insert(identities.end(), more.begin(), more.end());
  }
  TermTable terms(std::move(identities));
  return detail::check_result(proof.result, *ref, *dist, terms);
}

}  // namespace scalify::proofcheck
