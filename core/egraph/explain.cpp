#include "egraph/explain.h"

#include <cstdio>
#include <deque>

namespace scalify::egraph {
namespace {

Diagnostic failure(std::string message) { return Diagnostic{"", {}, std::move(message), ""}; }

/// Walks the proof forest. Each union record is an edge between two node ids; the forest has
/// one tree per e-class, so the path between two ids of a class is unique.
class Explainer {
 public:
  Explainer(const EGraph& g, size_t max_depth) : g_(g), max_depth_(max_depth) {
    edges_.resize(g.id_count());
    const auto& unions = g.unions();
    for (uint32_t i = 0; i < unions.size(); ++i) {
      edges_[unions[i].a].push_back(i);
      edges_[unions[i].b].push_back(i);
    }
  }

  Expected<Explanation> run(ClassId a, ClassId b) {
    out_.start = term_of(a);
    uint32_t current = out_.start;
    std::vector<uint32_t> position;
    if (auto error = prove(a, b, position, current, 0)) return *error;
    return std::move(out_);
  }

 private:
  uint32_t term_of(ClassId id) {
    if (auto it = term_ids_.find(id); it != term_ids_.end()) return it->second;
    ENode node = g_.node_of_id(id);
    for (ClassId& child : node.children) child = term_of(child);
    const uint32_t term = out_.terms.add(std::move(node));
    term_ids_.emplace(id, term);
    return term;
  }

  uint32_t term_at(uint32_t term, std::span<const uint32_t> position) const {
    for (uint32_t i : position) term = out_.terms.node(term).children[i];
    return term;
  }

  bool pairwise_equal(std::span<const ClassId> a, std::span<const ClassId> b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (g_.find(a[i]) != g_.find(b[i])) return false;
    }
    return true;
  }

  /// The order of the operands `a` whose classes are those of `b` (indices into `a`), if `a`
  /// is a permutation of `b` as classes.
  std::optional<std::vector<size_t>> reorder(std::span<const ClassId> a,
                                             std::span<const ClassId> b) const {
    std::vector<size_t> order;
    std::vector<bool> used(a.size(), false);
    for (ClassId want : b) {
      size_t k = 0;
      while (k < a.size() && (used[k] || g_.find(a[k]) != g_.find(want))) ++k;
      if (k == a.size()) return std::nullopt;
      used[k] = true;
      order.push_back(k);
    }
    return order;
  }

  uint32_t replace(uint32_t term, std::span<const uint32_t> position, uint32_t sub) {
    if (position.empty()) return sub;
    ENode node = out_.terms.node(term);
    node.children[position[0]] = replace(node.children[position[0]], position.subspan(1), sub);
    return out_.terms.add(std::move(node));
  }

  /// The union records on the forest path from a to b, in order, with the id each one reaches.
  std::optional<std::vector<std::pair<uint32_t, ClassId>>> path(ClassId a, ClassId b) const {
    std::unordered_map<ClassId, std::pair<uint32_t, ClassId>> came_from;  // id -> (edge, prev)
    std::deque<ClassId> queue{a};
    came_from.emplace(a, std::pair<uint32_t, ClassId>{0, a});
    while (!queue.empty() && !came_from.count(b)) {
      const ClassId at = queue.front();
      queue.pop_front();
      for (uint32_t e : edges_[at]) {
        const UnionRecord& r = g_.unions()[e];
        const ClassId next = r.a == at ? r.b : r.a;
        if (came_from.emplace(next, std::pair<uint32_t, ClassId>{e, at}).second) {
          queue.push_back(next);
        }
      }
    }
    if (!came_from.count(b)) return std::nullopt;
    std::vector<std::pair<uint32_t, ClassId>> edges;
    for (ClassId at = b; at != a; at = came_from.at(at).second) {
      edges.emplace_back(came_from.at(at).first, at);
    }
    return std::vector<std::pair<uint32_t, ClassId>>(edges.rbegin(), edges.rend());
  }

  /// The id of the constant leaf of class c.
  std::optional<ClassId> constant_leaf(ClassId c) const {
    const auto op = g_.constant_op();
    if (!op || g_.constant_of(c) == kNoConstant) return std::nullopt;
    return g_.lookup_node(ENode{*op, g_.constant_of(c), {}});
  }

  /// Appends the steps that turn term(a), at `position` of `current`, into term(b).
  std::optional<Diagnostic> prove(ClassId a, ClassId b, std::vector<uint32_t>& position,
                                  uint32_t& current, size_t depth) {
    if (a == b || term_of(a) == term_of(b)) return std::nullopt;
    if (depth > max_depth_) return failure("the explanation is deeper than the limit");
    auto edges = path(a, b);
    if (!edges) return failure("the two terms are not equal in the e-graph");
    ClassId at = a;
    for (const auto& [e, next] : *edges) {
      const UnionRecord& r = g_.unions()[e];
      switch (r.reason.kind) {
        case Reason::Kind::kCongruence: {
          const ENode& x = g_.node_of_id(at);
          const ENode& y = g_.node_of_id(next);
          if (x.op != y.op || x.payload != y.payload || x.children.size() != y.children.size()) {
            return failure("internal: a congruence edge joins different operators");
          }
          // Operands in another order: the e-graph sorted an associative-commutative
          // application; say so with a reordering step, then prove operand by operand.
          std::vector<ClassId> from(x.children.begin(), x.children.end());
          if (!pairwise_equal(from, y.children)) {
            auto order = reorder(from, y.children);
            if (!order) return failure("internal: congruent nodes with unequal operands");
            ENode reordered = out_.terms.node(term_at(current, position));
            const ENode before = reordered;
            for (size_t i = 0; i < order->size(); ++i) {
              from[i] = x.children[(*order)[i]];
              reordered.children[i] = before.children[(*order)[i]];
            }
            current = replace(current, position, out_.terms.add(std::move(reordered)));
            out_.steps.push_back({ProofStep::Kind::kReorder, 0, false, position, current});
          }
          for (uint32_t i = 0; i < from.size(); ++i) {
            position.push_back(i);
            auto error = prove(from[i], y.children[i], position, current, depth + 1);
            position.pop_back();
            if (error) return error;
          }
          break;
        }
        case Reason::Kind::kConstant: {
          // r.a folded to the constant leaf r.b: its children are constants first.
          const bool unfolding = at == r.b;
          const ClassId folded = r.a;
          const ENode& node = g_.node_of_id(folded);
          std::vector<ClassId> leaves;
          for (ClassId child : node.children) {
            auto leaf = constant_leaf(child);
            if (!leaf) return failure("internal: a folded node has a child that is not constant");
            leaves.push_back(*leaf);
          }
          ENode of_leaves = node;
          for (size_t i = 0; i < leaves.size(); ++i) of_leaves.children[i] = term_of(leaves[i]);
          const uint32_t folded_form = out_.terms.add(std::move(of_leaves));
          if (!unfolding) {
            if (auto error = prove_children(node.children, leaves, position, current, depth)) {
              return error;
            }
            current = replace(current, position, term_of(r.b));
            out_.steps.push_back({ProofStep::Kind::kConstant, 0, false, position, current});
          } else {
            current = replace(current, position, folded_form);
            out_.steps.push_back({ProofStep::Kind::kConstant, 0, true, position, current});
            if (auto error = prove_children(leaves, node.children, position, current, depth)) {
              return error;
            }
          }
          break;
        }
        case Reason::Kind::kRule:
        case Reason::Kind::kAxiom:
          current = replace(current, position, term_of(next));
          out_.steps.push_back({r.reason.kind == Reason::Kind::kRule ? ProofStep::Kind::kRule
                                                                     : ProofStep::Kind::kAxiom,
                                r.reason.rule, r.a != at, position, current});
          break;
      }
      at = next;
    }
    return std::nullopt;
  }

  std::optional<Diagnostic> prove_children(std::span<const ClassId> from,
                                           std::span<const ClassId> to,
                                           std::vector<uint32_t>& position, uint32_t& current,
                                           size_t depth) {
    for (uint32_t i = 0; i < from.size(); ++i) {
      position.push_back(i);
      auto error = prove(from[i], to[i], position, current, depth + 1);
      position.pop_back();
      if (error) return error;
    }
    return std::nullopt;
  }

  const EGraph& g_;
  size_t max_depth_;
  std::vector<std::vector<uint32_t>> edges_;  ///< union records by node id
  std::unordered_map<ClassId, uint32_t> term_ids_;
  Explanation out_;
};

}  // namespace

uint32_t TermTable::add(ENode node) {
  auto [it, inserted] = ids_.try_emplace(node, static_cast<uint32_t>(nodes_.size()));
  if (inserted) nodes_.push_back(std::move(node));
  return it->second;
}

Expected<Explanation> explain(const EGraph& g, ClassId a, ClassId b, size_t max_depth) {
  if (!g.explanations()) return failure("the e-graph was built without explanations");
  if (a >= g.id_count() || b >= g.id_count()) return failure("no such node id");
  if (g.find(a) != g.find(b)) return failure("the two terms are not equal in the e-graph");
  return Explainer(g, max_depth).run(a, b);
}

std::string to_sexpr(const TermTable& terms, uint32_t term, const Vocabulary& vocab) {
  const ENode& n = terms.node(term);
  if (n.children.empty() && n.op == vocab.constant_symbol()) {
    if (auto value = vocab.constant_value(n.payload)) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.17g", *value);
      return buffer;
    }
  }
  const std::string attrs = to_string(vocab.attrs(n.payload));
  if (n.children.empty() && attrs.empty()) return vocab.name(n.op);
  std::string s = "(" + vocab.name(n.op);
  for (ClassId child : n.children) s += " " + to_sexpr(terms, child, vocab);
  if (!attrs.empty()) s += " " + attrs;
  return s + ")";
}

}  // namespace scalify::egraph
