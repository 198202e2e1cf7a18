// The independent proof checker: re-checks a check's proof (proof_file.h) from the two programs'
// text alone. It re-reads both programs and replays every fact the proven goals rest on with
// its own kernel (layout_steps.h: no e-graph, no propagation code of the checker), building each
// fact's reference value as a term; a goal holds when its fact's term is the reference output's
// term and its layout is the goal's. The only rewrites it applies are the identity rules of the
// rule files, and it says which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proofcheck/proof_file.h"
#include "support/expected.h"

namespace scalify::proofcheck {

struct ProofCheckReport {
  enum class Outcome : uint8_t {
    kAccepted,      ///< every fact and goal re-checked
    kRejected,      ///< a fact or goal does not hold (`why` says which and why)
    kNotCheckable,  ///< a fact cites a rule or op the checker does not model (`why`)
  };
  Outcome outcome = Outcome::kRejected;
  std::string why;
  size_t facts = 0;         ///< facts re-checked (those the proven goals rest on)
  size_t goals = 0;         ///< proven goals re-checked
  size_t goals_in_all = 0;  ///< goals of the result
  size_t parameters = 0;    ///< bijection facts (the contract on the inputs)
  /// Reference outputs the result states have no distributed counterpart (not proven; the
  /// verdict is about the others, as the result says).
  size_t unmatched_outputs = 0;
  std::vector<std::string> assumptions;  ///< "p16.30 partial(sum,tp): why", each once
  /// The rewrites applied to reference terms, by name: identity rules of the rule files,
  /// XLA's identities (`xla:convert-identity`), `constant-factor` (a constant factor taken out
  /// of a linear op), `assumed-nonzero` (a guard of a value assumed not 0).
  std::map<std::string, size_t> identities;
  /// The verdict the proof supports: "equivalent" when every reference output has a
  /// re-checked goal (or is stated unmatched); else the result's own verdict, whose goals'
  /// proofs alone were checked.
  std::string verdict;
};

/// Re-checks `proof`. The report's `why` names the first fact or goal that does not hold (or
/// cannot be re-checked) and why; an error is a program that does not read.
///
///   auto proof = read_proof("gpt2.proof.json");
///   auto report = check_proof(*proof);
///   // report->outcome == kRejected, report->why == "fact [41] dot.12 (factor:dot): operands
///   //   shard(1,tp) and rep of the dot do not give the claim partial(sum,tp)"
Expected<ProofCheckReport> check_proof(const ProofFile& proof);

}  // namespace scalify::proofcheck
