#include "egraph/egraph.h"

#include <algorithm>
#include <tuple>

namespace scalify::egraph {
namespace {

bool node_less(const ENode& a, const ENode& b) {
  return std::tie(a.op, a.payload, a.children) < std::tie(b.op, b.payload, b.children);
}

}  // namespace

ClassId EGraph::insert_new(ENode node, ENode canonical, TypeId type) {
  const ClassId id = uf_.make_set();
  const uint32_t constant = make_constant(canonical);
  classes_.push_back(EClass{type, constant, {canonical}, {}});
  node_of_id_.push_back(std::move(node));
  ++live_classes_;
  const Children& children = canonical.children;
  for (size_t i = 0; i < children.size(); ++i) {
    // A node using the same child twice is one parent of it, not two.
    if (std::find(children.begin(), children.begin() + i, children[i]) != children.begin() + i) {
      continue;
    }
    classes_[children[i]].parents.push_back(id);
  }
  memo_.insert(id, std::move(canonical));
  if (constant != kNoConstant) settle_constant(id, id);
  return id;
}

ClassId EGraph::add_alias(ENode node, ClassId existing) {
  const ClassId id = uf_.make_set();
  classes_.emplace_back();
  node_of_id_.push_back(std::move(node));
  uf_.link(find(existing), id);
  unions_.push_back(UnionRecord{existing, id, Reason{Reason::Kind::kCongruence, 0, 0}});
  return id;
}

std::optional<ClassId> EGraph::lookup_node(ENode node) const {
  for (ClassId& c : node.children) c = find(c);
  return memo_.find(node);
}

std::optional<ClassId> EGraph::lookup(ENode node) {
  auto id = lookup_node(std::move(node));
  if (!id) return std::nullopt;
  return find(*id);
}

std::vector<ClassId> EGraph::class_ids() const {
  std::vector<ClassId> ids;
  ids.reserve(live_classes_);
  for (ClassId c = 0; c < uf_.size(); ++c) {
    if (find(c) == c) ids.push_back(c);
  }
  return ids;
}

size_t EGraph::visible_node_count() const {
  size_t n = 0;
  for (ClassId c = 0; c < uf_.size(); ++c) {
    if (find(c) == c) n += classes_[c].nodes.size();
  }
  return n;
}

uint32_t EGraph::make_constant(const ENode& node) {
  if (!folding_) return kNoConstant;
  if (node.children.empty()) return node.op == folding_->constant_op ? node.payload : kNoConstant;
  if (!folding_->fold) return kNoConstant;
  uint32_t inline_constants[4];
  std::vector<uint32_t> many;
  std::span<uint32_t> constants;
  if (node.children.size() <= 4) {
    constants = std::span<uint32_t>(inline_constants, node.children.size());
  } else {
    many.resize(node.children.size());
    constants = many;
  }
  for (size_t i = 0; i < node.children.size(); ++i) constants[i] = constant_of(node.children[i]);
  return folding_->fold(node, constants);
}

void EGraph::settle_constant(ClassId c, std::optional<ClassId> folded) {
  const ClassId root = find(c);
  const uint32_t constant = classes_[root].constant;
  if (!folding_ || constant == kNoConstant) return;
  const ClassId leaf = add_node(ENode{folding_->constant_op, constant, {}}, classes_[root].type);
  if (find(leaf) != find(root)) {
    if (auto conflict = merge(folded.value_or(root), leaf, Reason{Reason::Kind::kConstant, 0, 0})) {
      analysis_conflicts_.push_back(*conflict);
    }
    return;  // the merge settled the merged class
  }
  if (folding_->prune) {
    std::vector<ENode>& nodes = classes_[find(root)].nodes;
    std::erase_if(nodes, [](const ENode& n) { return !n.children.empty(); });
  }
}

std::optional<Conflict> EGraph::merge(ClassId a, ClassId b, Reason reason) {
  const ClassId ra = find(a), rb = find(b);
  if (ra == rb) return std::nullopt;
  EClass& ca = classes_[ra];
  EClass& cb = classes_[rb];
  if (ca.type != cb.type) return Conflict{ra, rb, ca.type, cb.type};
  if (ca.constant != kNoConstant && cb.constant != kNoConstant && ca.constant != cb.constant) {
    return Conflict{ra, rb, ca.type, cb.type, ca.constant, cb.constant};
  }
  unions_.push_back(UnionRecord{a, b, reason});
  // The side that did not know the constant has parents whose own constants may now fold.
  if (ca.constant == kNoConstant && cb.constant != kNoConstant) {
    analysis_pending_.insert(analysis_pending_.end(), ca.parents.begin(), ca.parents.end());
  } else if (cb.constant == kNoConstant && ca.constant != kNoConstant) {
    analysis_pending_.insert(analysis_pending_.end(), cb.parents.begin(), cb.parents.end());
  }
  const uint32_t constant = ca.constant != kNoConstant ? ca.constant : cb.constant;
  // The class with more parents stays root: only the other's parents need repair, and the
  // smaller lists are the ones copied.
  const bool a_bigger = ca.parents.size() + ca.nodes.size() >= cb.parents.size() + cb.nodes.size();
  const ClassId root = a_bigger ? ra : rb;
  const ClassId gone = a_bigger ? rb : ra;
  uf_.link(root, gone);
  EClass& into = classes_[root];
  EClass& from = classes_[gone];
  // The children of the merged-away class's parents are no longer canonical.
  pending_.insert(pending_.end(), from.parents.begin(), from.parents.end());
  into.nodes.insert(into.nodes.end(), std::make_move_iterator(from.nodes.begin()),
                    std::make_move_iterator(from.nodes.end()));
  into.parents.insert(into.parents.end(), from.parents.begin(), from.parents.end());
  into.constant = constant;
  from = EClass{};
  --live_classes_;
  dirty_.push_back(root);
  if (constant != kNoConstant) settle_constant(root, std::nullopt);
  return std::nullopt;
}

EGraph::Rebuilt EGraph::rebuild() {
  Rebuilt out;
  while (!pending_.empty() || !analysis_pending_.empty()) {
    while (!pending_.empty()) {
      const ClassId id = pending_.back();
      pending_.pop_back();
      dirty_.push_back(id);
      // A node that congruence already folded into another keeps no entry of its own.
      if (!memo_.erase(id)) continue;
      ENode node = node_of_id_[id];
      canonicalize(node);
      if (auto existing = memo_.find(node)) {
        if (find(*existing) != find(id)) {
          if (auto conflict = merge(*existing, id, Reason{Reason::Kind::kCongruence, 0, 0})) {
            out.conflicts.push_back(*conflict);
          } else {
            ++out.congruence_merges;
          }
        }
      } else {
        memo_.insert(id, std::move(node));
      }
    }
    while (!analysis_pending_.empty()) {
      const ClassId id = analysis_pending_.back();
      analysis_pending_.pop_back();
      ENode node = node_of_id_[id];
      canonicalize(node);
      const uint32_t constant = make_constant(node);
      EClass& owner = classes_[find(id)];
      if (constant == kNoConstant || owner.constant == constant) continue;
      if (owner.constant != kNoConstant) {
        analysis_conflicts_.push_back(
            Conflict{find(id), find(id), owner.type, owner.type, owner.constant, constant});
        continue;
      }
      owner.constant = constant;
      analysis_pending_.insert(analysis_pending_.end(), owner.parents.begin(), owner.parents.end());
      settle_constant(id, id);
    }
  }
  // Node lists of the classes involved: canonical children, sorted, each node once.
  for (ClassId& c : dirty_) c = find(c);
  std::sort(dirty_.begin(), dirty_.end());
  dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
  for (ClassId c : dirty_) {
    std::vector<ENode>& nodes = classes_[c].nodes;
    for (ENode& n : nodes) canonicalize(n);
    std::sort(nodes.begin(), nodes.end(), node_less);
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  }
  dirty_.clear();
  return out;
}

}  // namespace scalify::egraph
