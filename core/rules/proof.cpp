#include "rules/proof.h"

namespace scalify::rules {
namespace {

std::string position_text(const std::vector<uint32_t>& position) {
  std::string s = "[";
  for (size_t i = 0; i < position.size(); ++i) s += (i ? " " : "") + std::to_string(position[i]);
  return s + "]";
}

}  // namespace

std::string step_name(const egraph::ProofStep& step, std::span<const RuleOrigin> origins) {
  switch (step.kind) {
    case egraph::ProofStep::Kind::kRule:
      return step.rule < origins.size() ? origins[step.rule].name : "?";
    case egraph::ProofStep::Kind::kConstant:
      return "constant-folding";
    case egraph::ProofStep::Kind::kAxiom:
      return "axiom:" + std::to_string(step.rule);
    case egraph::ProofStep::Kind::kReorder:
      return "ac";
  }
  return "?";
}

std::string proof_to_text(const egraph::Explanation& proof, const egraph::Vocabulary& vocab,
                          std::span<const RuleOrigin> origins) {
  std::string text = egraph::to_sexpr(proof.terms, proof.start, vocab) + "\n";
  for (const egraph::ProofStep& step : proof.steps) {
    text += std::string(step.backward ? "<= " : "=> ") + step_name(step, origins) + " at " +
            position_text(step.position) + ": " + egraph::to_sexpr(proof.terms, step.term, vocab) +
            "\n";
  }
  return text;
}

json::Value proof_to_json(const egraph::Explanation& proof, const egraph::Vocabulary& vocab,
                          std::span<const RuleOrigin> origins, std::string_view rules) {
  json::Array steps;
  for (const egraph::ProofStep& step : proof.steps) {
    json::Array at;
    for (uint32_t i : step.position) at.emplace_back(i);
    steps.emplace_back(json::Object{{"by", step_name(step, origins)},
                                    {"direction", step.backward ? "<=" : "=>"},
                                    {"at", std::move(at)},
                                    {"term", egraph::to_sexpr(proof.terms, step.term, vocab)}});
  }
  const uint32_t last = proof.steps.empty() ? proof.start : proof.steps.back().term;
  return json::Object{{"format", "scalify-proof-1"},
                      {"rules", std::string(rules)},
                      {"from", egraph::to_sexpr(proof.terms, proof.start, vocab)},
                      {"to", egraph::to_sexpr(proof.terms, last, vocab)},
                      {"steps", std::move(steps)}};
}

}  // namespace scalify::rules
