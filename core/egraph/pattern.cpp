#include "egraph/pattern.h"

#include <algorithm>

#include "egraph/query.h"

namespace scalify::egraph {

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

uint32_t Pattern::op_with_payload_var(Symbol op, std::vector<uint32_t> children,
                                      uint32_t payload_var) {
  const uint32_t index = this->op(op, std::move(children), std::nullopt);
  nodes_.back().payload_var = payload_var;
  payload_var_count_ = std::max(payload_var_count_, payload_var + 1);
  return index;
}

std::vector<Match> search(const EGraph& g, const Pattern& pattern) {
  Query q;
  const uint32_t root_var = pattern.var_count();  // a fresh variable names the root
  q.add(pattern, root_var);
  q.compile();
  std::vector<Match> matches;
  q.search(g, OpIndex(g), [&](std::span<const uint32_t> row) {
    matches.push_back({row[root_var], Subst(row.begin(), row.begin() + root_var)});
    return true;
  });
  return matches;
}

std::vector<Subst> match_class(const EGraph& g, const Pattern& pattern, ClassId c) {
  std::vector<Subst> out;
  for (Match& m : search(g, pattern)) {
    if (m.root == g.find(c)) out.push_back(std::move(m.subst));
  }
  return out;
}

namespace {

/// Builds the pattern's nodes bottom-up under `subst`: `node_id(node)` gives the id of each
/// (children as built), or nothing to give up.
template <class NodeId>
std::optional<ClassId> build(const Pattern& pattern, std::span<const ClassId> subst,
                             std::span<const uint32_t> payloads, const NodeId& node_id) {
  // The ids built so far, by pattern node; on the stack for the usual small right-hand sides.
  constexpr size_t kSmall = 16;
  ClassId small[kSmall];
  std::vector<ClassId> large;
  ClassId* built = small;
  if (pattern.nodes().size() > kSmall) {
    large.resize(pattern.nodes().size());
    built = large.data();
  }
  for (size_t i = 0; i < pattern.nodes().size(); ++i) {
    const Pattern::Node& pn = pattern.nodes()[i];
    if (pn.is_var) {
      built[i] = subst[pn.var];
      continue;
    }
    ENode node{pn.op, pn.payload_in(payloads), {}};
    node.children.reserve(pn.children.size());
    for (uint32_t child : pn.children) node.children.push_back(built[child]);
    const std::optional<ClassId> id = node_id(std::move(node));
    if (!id) return std::nullopt;
    built[i] = *id;
  }
  return built[pattern.nodes().size() - 1];
}

}  // namespace

ClassId instantiate(EGraph& g, const Pattern& pattern, std::span<const ClassId> subst,
                    const std::function<TypeId(const ENode&)>& type_of,
                    std::span<const uint32_t> payloads) {
  return *build(pattern, subst, payloads, [&](ENode&& node) -> std::optional<ClassId> {
    return g.add_node_typed(std::move(node), type_of);
  });
}

std::optional<ClassId> instantiate_existing(const EGraph& g, const Pattern& pattern,
                                            std::span<const ClassId> subst,
                                            std::span<const uint32_t> payloads) {
  return build(pattern, subst, payloads,
               [&](ENode&& node) { return g.lookup_node(std::move(node)); });
}

}  // namespace scalify::egraph
