#include "proof_command.h"

#include <ostream>
#include <string>

#include "proofcheck/proof_check.h"

namespace scalify::cli {

int run_proof(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    out << "usage: scalify " << kProofUsage << "\n\n"
        << "Re-checks the proof of a check from the two programs alone, with a checker of its\n"
        << "own (no e-graph, none of the checker's propagation): every layout fact the proven\n"
        << "goals rest on is replayed by the rule it cites, each fact's reference value is\n"
        << "rebuilt as a term, and a goal holds when its term is the reference output's.\n\n"
        << "FILE: a proof from `scalify check REF DIST --proof FILE.json`, an HTML report\n"
        << "(`--report FILE.html` embeds the proof), or a `.scalify` session.\n"
        << "\nexit codes: 0 accepted, 1 rejected, 2 bad input or usage, 3 a step the checker\n"
        << "does not model (the proof may hold; it is not re-checked)\n";
    return 0;
  }
  if (args.size() != 2 || args[0] != "verify") {
    err << "scalify: usage: scalify " << kProofUsage << '\n';
    return 2;
  }
  const std::string path(args[1]);
  auto proof = proofcheck::read_proof(path);
  if (!proof) {
    err << proof.error().format();
    return 2;
  }
  auto report = proofcheck::check_proof(*proof);
  if (!report) {
    err << report.error().format();
    return 2;
  }
  using Outcome = proofcheck::ProofCheckReport::Outcome;
  if (report->outcome == Outcome::kRejected) {
    out << path << ": rejected: " << report->why << '\n';
    return 1;
  }
  if (report->outcome == Outcome::kNotCheckable) {
    out << path << ": not re-checked: " << report->why << '\n';
    return 3;
  }
  out << path << ": accepted (" << proof->ref_path << " and " << proof->dist_path << ", mesh "
      << proof->result.mesh.to_string() << ")\n"
      << "  " << report->facts << " facts re-checked; " << report->goals << " of "
      << report->goals_in_all << " goals proven";
  if (report->verdict == "equivalent") out << "; the proof supports: equivalent";
  if (report->unmatched_outputs > 0) {
    out << " (of the outputs with a counterpart; " << report->unmatched_outputs
        << " reference output(s) have none, as the result says)";
  }
  out << '\n';
  if (report->verdict != "equivalent") {
    // Where the checker stopped is the absence of a proof, not a proof: nothing to re-check.
    const auto& d = proof->result.divergence;
    out << "  only the proven goals were re-checked: the result is " << report->verdict
        << (d ? " at " + d->dist_node : std::string()) << ", which no proof shows\n";
  }
  out << "  rests on the bijection of " << report->parameters << " parameter fact(s)";
  if (report->assumptions.empty()) {
    out << " and no assumption\n";
  } else {
    out << " and " << report->assumptions.size() << " assumption(s):\n";
    for (const std::string& a : report->assumptions) out << "    " << a << '\n';
  }
  for (const auto& [rule, n] : report->identities) {
    out << "  rewrite " << rule << " applied " << n << " time(s)\n";
  }
  return 0;
}

}  // namespace scalify::cli
