// The independent proof checker's facts (internal to proofcheck/): each fact the proven goals
// rest on is checked by the rule it cites, and its reference value built as a term.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "ir/module.h"
#include "proofcheck/proof_check.h"
#include "proofcheck/reference_terms.h"
#include "verify/check_result.h"

namespace scalify::proofcheck::detail {

/// The rule of a balanced share, before its axis name.
inline constexpr std::string_view kShare = "assumption: the same on every rank of ";

/// Why a fact does not hold, or cannot be re-checked.
struct Failure {
  Failure(std::string w, bool u = false) : why(std::move(w)), unsupported(u) {}  // NOLINT
  Failure(const char* w) : why(w) {}                                             // NOLINT
  std::string why;
  bool unsupported = false;  ///< a rule or op the checker does not model
};
using FactCheck = std::variant<TermId, Failure>;

/// Checks facts in derivation order, remembering the term each stands for.
///
///   FactChecker facts(result, ref, dist, terms);
///   for (const DerivedFact& f : result.derivation)
///     if (auto no = facts.add(f)) return no->why;   // "fact [12] dot.5 (factor:dot): …"
class FactChecker {
 public:
  FactChecker(const verify::CheckResult& r, const ir::Module& ref, const ir::Module& dist,
              TermTable& terms)
      : r_(r), mesh_(r.mesh), ref_(ref), dist_(dist), terms_(terms), known_(r.derivation.size()) {}

  /// Checks `f` (its premises added before): by its rule, its value's shape against the
  /// reference value's split by its layout, and the reference node it names. nullopt when it
  /// holds.
  std::optional<Failure> add(const verify::DerivedFact& f);
  /// The reference term of a fact add() accepted.
  TermId term(size_t index) const { return *known_[index]; }
  /// The term of reference node `name` (element `element` of a tuple, or -1).
  std::optional<TermId> reference_term(const std::string& name, int64_t element);
  /// The assumptions the accepted facts rest on, as "node layout: why".
  const std::set<std::string>& assumptions() const { return assumptions_; }
  /// Bijection facts accepted.
  size_t parameters() const { return parameters_; }
  /// Identity rules applied in the re-checked steps of loops and conditionals, by name.
  const std::map<std::string, size_t>& step_identities() const { return step_identities_; }

 private:
  FactCheck check_fact(const verify::DerivedFact& f);
  FactCheck collective(const verify::DerivedFact& f, const ir::Instruction& instr,
                       const verify::DerivedFact& p);
  FactCheck slice_by_rank(const verify::DerivedFact& f, const ir::Instruction& instr);
  /// What makes a collective-permute's pairs no permutation of the mesh's devices (a device
  /// outside it, one that does not receive exactly once), if anything.
  std::optional<std::string> pairs_problem(const ir::SourceTargetPairs* pairs) const;
  FactCheck ring_step(const verify::DerivedFact& f, const ir::Instruction& instr,
                      const verify::DerivedFact& p);
  FactCheck ring_assembly(const verify::DerivedFact& f, const ir::Instruction& instr);
  /// The k with offsets[d] = ((d's coordinate on `axis`) + k) mod n × size for every device.
  std::optional<int64_t> ring_blocks(const std::vector<int64_t>& offsets, size_t axis,
                                     int64_t size) const;
  FactCheck select_by_rank(const verify::DerivedFact& f, const ir::Instruction& instr);
  /// Rule `view`: premise p's shard moved to another dim (its block index moved along).
  FactCheck moved_block(const verify::DerivedFact& p, const verify::DerivedFact& f);
  FactCheck all_to_all(const verify::DerivedFact& f, const ir::Instruction& instr,
                       const verify::DerivedFact& p, const std::vector<size_t>& axes);
  /// x's elements moved as `view` (a view of x's own shape) says.
  TermId rearranged(TermId x, const ir::DataView& view);
  /// Rules while-induction and conditional-branches (control_flow_steps.cpp).
  FactCheck control_flow(const verify::DerivedFact& f, const ir::Instruction& instr);
  /// `step`'s proof re-checked on the step programs of computations `ref_step` and `dist_step`.
  std::optional<Failure> recheck_step(const verify::StepCheck& step, ir::CompId ref_step,
                                      ir::CompId dist_step);
  FactCheck balanced_share(const verify::DerivedFact& f);
  FactCheck mean_as_sum(const verify::DerivedFact& f);
  FactCheck nonzero_guard(const verify::DerivedFact& f, const ir::Instruction& instr);
  /// The reference parameter a bijection entry binds, reshaped and transposed as it says.
  FactCheck parameter_term(const verify::BijectionEntry& b);
  const verify::DerivedFact& premise(const verify::DerivedFact& f, size_t k) const {
    return r_.derivation[f.premises[k]];
  }

  const verify::CheckResult& r_;
  const verify::Mesh& mesh_;
  const ir::Module& ref_;
  const ir::Module& dist_;
  TermTable& terms_;
  std::vector<std::optional<TermId>> known_;
  std::set<std::string> assumptions_;
  size_t parameters_ = 0;
  std::map<std::string, size_t> step_identities_;
};

/// Re-checks result `r` of `ref` against `dist`, both read and flattened (proof_check.h,
/// check_proof); control-flow facts re-check their steps through it.
ProofCheckReport check_result(const verify::CheckResult& r, const ir::Module& ref,
                              const ir::Module& dist, TermTable& terms);

}  // namespace scalify::proofcheck::detail
