#include "proof_command.h"

#include <ostream>
#include <string>

#include "proofcheck/proof_check.h"
#include "support/json.h"

namespace scalify::cli {

namespace {

using Outcome = proofcheck::ProofCheckReport::Outcome;

std::string_view outcome_name(Outcome o) {
  switch (o) {
    case Outcome::kAccepted:
      return "accepted";
    case Outcome::kRejected:
      return "rejected";
    case Outcome::kNotCheckable:
      return "not-rechecked";
  }
  return "rejected";
}

int exit_code(Outcome o) {
  switch (o) {
    case Outcome::kAccepted:
      return 0;
    case Outcome::kRejected:
      return 1;
    case Outcome::kNotCheckable:
      return 3;
  }
  return 1;
}

json::Value to_json(const proofcheck::ProofFile& proof, const proofcheck::ProofCheckReport& r) {
  json::Object o;
  o["outcome"] = std::string(outcome_name(r.outcome));
  o["why"] = r.why;
  o["reference"] = proof.ref_path;
  o["distributed"] = proof.dist_path;
  o["mesh"] = proof.result.mesh.to_string();
  o["result_verdict"] = std::string(verify::verdict_name(proof.result.verdict));
  o["supports"] = r.outcome == Outcome::kAccepted ? json::Value(r.verdict) : json::Value(nullptr);
  o["facts"] = r.facts;
  o["goals_proven"] = r.goals;
  o["goals"] = r.goals_in_all;
  o["unmatched_outputs"] = r.unmatched_outputs;
  o["parameters"] = r.parameters;
  json::Array assumptions;
  for (const std::string& a : r.assumptions) assumptions.push_back(a);
  o["assumptions"] = std::move(assumptions);
  json::Object rewrites;
  for (const auto& [rule, n] : r.identities) rewrites[rule] = n;
  o["rewrites"] = std::move(rewrites);
  return o;
}

void print_text(std::ostream& out, const std::string& path, const proofcheck::ProofFile& proof,
                const proofcheck::ProofCheckReport& r) {
  if (r.outcome == Outcome::kRejected) {
    out << path << ": rejected: " << r.why << '\n';
    return;
  }
  if (r.outcome == Outcome::kNotCheckable) {
    out << path << ": not re-checked: " << r.why << '\n';
    return;
  }
  out << path << ": accepted (" << proof.ref_path << " and " << proof.dist_path << ", mesh "
      << proof.result.mesh.to_string() << ")\n"
      << "  " << r.facts << " facts re-checked; " << r.goals << " of " << r.goals_in_all
      << " goals proven";
  if (r.verdict == "equivalent") out << "; the proof supports: equivalent";
  if (r.unmatched_outputs > 0) {
    out << " (of the outputs with a counterpart; " << r.unmatched_outputs
        << " reference output(s) have none, as the result says)";
  }
  out << '\n';
  if (r.verdict != "equivalent") {
    // Where the checker stopped is the absence of a proof, not a proof: nothing to re-check.
    const auto& d = proof.result.divergence;
    out << "  only the proven goals were re-checked: the result is " << r.verdict
        << (d ? " at " + d->dist_node : std::string()) << ", which no proof shows\n";
  }
  out << "  rests on the bijection of " << r.parameters << " parameter fact(s)";
  if (r.assumptions.empty()) {
    out << " and no assumption\n";
  } else {
    out << " and " << r.assumptions.size() << " assumption(s):\n";
    for (const std::string& a : r.assumptions) out << "    " << a << '\n';
  }
  for (const auto& [rule, n] : r.identities) {
    out << "  rewrite " << rule << " applied " << n << " time(s)\n";
  }
}

}  // namespace

int run_proof(std::span<const std::string_view> args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    out << "usage: scalify " << kProofUsage << "\n\n"
        << "Re-checks the proof of a check from the two programs alone, with a checker of its\n"
        << "own (no e-graph, none of the checker's propagation): every layout fact the proven\n"
        << "goals rest on is replayed by the rule it cites, each fact's reference value is\n"
        << "rebuilt as a term, and a goal holds when its term is the reference output's.\n\n"
        << "FILE: a proof from `scalify check REF DIST --proof FILE.json`, an HTML report\n"
        << "(`--report FILE.html` embeds the proof), or a `.scalify` session.\n"
        << "  --json   print one JSON object: outcome, why, facts, goals, assumptions, rewrites\n"
        << "\nexit codes: 0 accepted, 1 rejected, 2 bad input or usage, 3 a step the checker\n"
        << "does not model (the proof may hold; it is not re-checked)\n";
    return 0;
  }
  bool as_json = false;
  std::vector<std::string_view> rest;
  for (std::string_view a : args) {
    if (a == "--json") {
      as_json = true;
    } else {
      rest.push_back(a);
    }
  }
  if (rest.size() != 2 || rest[0] != "verify") {
    err << "scalify: usage: scalify " << kProofUsage << '\n';
    return 2;
  }
  const std::string path(rest[1]);
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
  if (as_json) {
    out << to_json(*proof, *report).dump(2) << '\n';
  } else {
    print_text(out, path, *proof, *report);
  }
  return exit_code(report->outcome);
}

}  // namespace scalify::cli
