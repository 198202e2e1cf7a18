#include "relations/fact_proof.h"

namespace scalify::relations {
namespace {

Diagnostic failure(std::string message) { return Diagnostic{"", {}, std::move(message), ""}; }

Expected<FactProof> prove(const Database& db, const egraph::EGraph& g,
                          std::span<const egraph::Rule> rules, const egraph::MatchLog& matches,
                          uint32_t relation, uint32_t fact, size_t depth, size_t max_depth) {
  if (depth > max_depth) return failure("the fact's proof is deeper than the limit");
  const Relation& rel = db.relation(relation);
  FactProof proof{relation,
                  std::vector<uint32_t>(rel.row(fact).begin(), rel.row(fact).end()),
                  rel.reason(fact),
                  "",
                  {},
                  {}};
  if (proof.reason.kind == egraph::Reason::Kind::kAxiom) {
    proof.by = "axiom:" + std::to_string(proof.reason.rule);
    return proof;
  }
  if (proof.reason.kind != egraph::Reason::Kind::kRule || proof.reason.rule >= rules.size() ||
      proof.reason.detail >= matches.size()) {
    return failure("the fact's reason does not name a rule of this run");
  }
  const egraph::Rule& rule = rules[proof.reason.rule];
  proof.by = rule.name;
  const std::span<const uint32_t> row = matches.row(proof.reason.detail);
  proof.match.assign(row.begin(), row.end());
  // The premises: the body's atoms under the match (canonical now: classes may have merged).
  for (const egraph::Query::Atom& atom : rule.query.atoms()) {
    const Relation& premise_rel = db.relation(atom.relation);
    std::vector<uint32_t> premise;
    for (size_t c = 0; c < atom.args.size(); ++c) {
      const egraph::AtomArg& a = atom.args[c];
      if (a.kind == egraph::AtomArg::Kind::kAny) break;  // cannot be looked up; searched below
      uint32_t v = a.kind == egraph::AtomArg::Kind::kVar ? row[a.value] : a.value;
      if (premise_rel.columns()[c] == Column::kClass) v = g.find(v);
      premise.push_back(v);
    }
    int64_t index = -1;
    if (premise.size() == atom.args.size()) {
      index = premise_rel.find(premise);
    } else {
      // A wildcard: the first fact agreeing on every other column, stamped before this one.
      for (uint32_t i = 0; i < premise_rel.size() && index < 0; ++i) {
        bool agrees = true;
        for (size_t c = 0; c < atom.args.size() && agrees; ++c) {
          const egraph::AtomArg& a = atom.args[c];
          if (a.kind == egraph::AtomArg::Kind::kAny) continue;
          uint32_t v = a.kind == egraph::AtomArg::Kind::kVar ? row[a.value] : a.value;
          if (premise_rel.columns()[c] == Column::kClass) v = g.find(v);
          agrees = premise_rel.row(i)[c] == v;
        }
        if (agrees) index = i;
      }
    }
    if (index < 0) return failure("a premise of '" + rule.name + "' is no longer a fact");
    auto sub = prove(db, g, rules, matches, atom.relation, static_cast<uint32_t>(index), depth + 1,
                     max_depth);
    if (!sub) return sub.error();
    proof.premises.push_back(std::move(*sub));
  }
  return proof;
}

std::string fact_text(const FactProof& proof, const Database& db) {
  std::string s = db.relation(proof.relation).name() + "(";
  for (size_t i = 0; i < proof.row.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(proof.row[i]);
  }
  return s + ")";
}

void append_text(const FactProof& proof, const Database& db, int indent, std::string& out) {
  out += std::string(static_cast<size_t>(indent) * 2, ' ') + fact_text(proof, db) + " by " +
         proof.by + "\n";
  for (const FactProof& p : proof.premises) append_text(p, db, indent + 1, out);
}

}  // namespace

Expected<FactProof> explain_fact(const Database& db, const egraph::EGraph& g,
                                 std::span<const egraph::Rule> rules,
                                 const egraph::MatchLog& matches, uint32_t relation, uint32_t fact,
                                 size_t max_depth) {
  if (relation >= db.relation_count() || fact >= db.relation(relation).size()) {
    return failure("no such fact");
  }
  return prove(db, g, rules, matches, relation, fact, 0, max_depth);
}

std::string fact_proof_to_text(const FactProof& proof, const Database& db) {
  std::string out;
  append_text(proof, db, 0, out);
  return out;
}

json::Value fact_proof_to_json(const FactProof& proof, const Database& db) {
  json::Array row, match, premises;
  for (uint32_t v : proof.row) row.emplace_back(v);
  for (uint32_t v : proof.match) match.emplace_back(v);
  for (const FactProof& p : proof.premises) premises.push_back(fact_proof_to_json(p, db));
  return json::Object{{"fact", db.relation(proof.relation).name()},
                      {"args", std::move(row)},
                      {"by", proof.by},
                      {"match", std::move(match)},
                      {"premises", std::move(premises)}};
}

}  // namespace scalify::relations
