#include "egraph/pattern.h"

#include <algorithm>

namespace scalify::egraph {
namespace {

// Extends each substitution in `in` by matching pattern node `p` against class `c`.
void match_node(EGraph& g, const Pattern& pattern, uint32_t p, ClassId c, const Subst& in,
                std::vector<Subst>& out) {
  const Pattern::Node& pn = pattern.nodes()[p];
  c = g.find(c);
  if (pn.is_var) {
    if (in[pn.var] == kUnbound) {
      Subst s = in;
      s[pn.var] = c;
      out.push_back(std::move(s));
    } else if (g.find(in[pn.var]) == c) {
      out.push_back(in);
    }
    return;
  }
  for (const ENode& node : g.nodes(c)) {
    if (node.op != pn.op || node.children.size() != pn.children.size()) continue;
    if (pn.payload && node.payload != *pn.payload) continue;
    std::vector<Subst> current{in};
    for (size_t k = 0; k < pn.children.size() && !current.empty(); ++k) {
      std::vector<Subst> next;
      for (const Subst& s : current)
        match_node(g, pattern, pn.children[k], node.children[k], s, next);
      current = std::move(next);
    }
    for (Subst& s : current) out.push_back(std::move(s));
  }
}

}  // namespace

uint32_t Pattern::var(uint32_t i) {
  Node n;
  n.is_var = true;
  n.var = i;
  var_count_ = std::max(var_count_, i + 1);
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

uint32_t Pattern::op(Symbol op, std::vector<uint32_t> children, std::optional<uint32_t> payload) {
  Node n;
  n.op = op;
  n.payload = payload;
  n.children = std::move(children);
  nodes_.push_back(std::move(n));
  return static_cast<uint32_t>(nodes_.size() - 1);
}

std::vector<Subst> match_class(EGraph& g, const Pattern& pattern, ClassId c) {
  std::vector<Subst> out;
  match_node(g, pattern, pattern.root(), c, Subst(pattern.var_count(), kUnbound), out);
  return out;
}

std::vector<Match> search(EGraph& g, const Pattern& pattern) {
  std::vector<Match> matches;
  for (ClassId c : g.class_ids()) {
    for (Subst& s : match_class(g, pattern, c)) matches.push_back({c, std::move(s)});
  }
  return matches;
}

ClassId instantiate(EGraph& g, const Pattern& pattern, const Subst& subst,
                    const std::function<TypeId(const ENode&)>& type_of) {
  std::vector<ClassId> built(pattern.nodes().size());
  for (size_t i = 0; i < pattern.nodes().size(); ++i) {
    const Pattern::Node& pn = pattern.nodes()[i];
    if (pn.is_var) {
      built[i] = g.find(subst[pn.var]);
      continue;
    }
    ENode node{pn.op, pn.payload.value_or(0), {}};
    for (uint32_t child : pn.children) node.children.push_back(built[child]);
    if (auto existing = g.lookup(node)) {
      built[i] = *existing;
    } else {
      const TypeId type = type_of(node);
      built[i] = g.add(std::move(node), type);
    }
  }
  return built.back();
}

}  // namespace scalify::egraph
