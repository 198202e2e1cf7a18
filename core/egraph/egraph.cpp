#include "egraph/egraph.h"

#include <algorithm>
#include <tuple>

namespace scalify::egraph {
namespace {

bool node_less(const ENode& a, const ENode& b) {
  return std::tie(a.op, a.payload, a.children) < std::tie(b.op, b.payload, b.children);
}

}  // namespace

void EGraph::canonicalize(ENode& node) {
  for (ClassId& c : node.children) c = uf_.find(c);
}

ClassId EGraph::add(ENode node, TypeId type) {
  canonicalize(node);
  if (auto it = memo_.find(node); it != memo_.end()) return uf_.find(it->second);
  const ClassId id = uf_.make_set();
  classes_.push_back(EClass{type, {node}, {}});
  ++live_classes_;
  for (size_t i = 0; i < node.children.size(); ++i) {
    const ClassId child = node.children[i];
    // A node using the same child twice is one parent of it, not two.
    if (std::find(node.children.begin(), node.children.begin() + static_cast<std::ptrdiff_t>(i),
                  child) != node.children.begin() + static_cast<std::ptrdiff_t>(i)) {
      continue;
    }
    classes_[child].parents.emplace_back(node, id);
  }
  memo_.emplace(std::move(node), id);
  return id;
}

std::vector<ClassId> EGraph::class_ids() {
  std::vector<ClassId> ids;
  ids.reserve(live_classes_);
  for (ClassId c = 0; c < uf_.size(); ++c) {
    if (uf_.find(c) == c) ids.push_back(c);
  }
  return ids;
}

std::optional<ClassId> EGraph::lookup(ENode node) {
  canonicalize(node);
  auto it = memo_.find(node);
  if (it == memo_.end()) return std::nullopt;
  return uf_.find(it->second);
}

std::optional<TypeConflict> EGraph::merge(ClassId a, ClassId b) {
  a = uf_.find(a);
  b = uf_.find(b);
  if (a == b) return std::nullopt;
  if (classes_[a].type != classes_[b].type) {
    return TypeConflict{a, b, classes_[a].type, classes_[b].type};
  }
  const ClassId root = uf_.unite(a, b);
  const ClassId gone = root == a ? b : a;
  EClass& into = classes_[root];
  EClass& from = classes_[gone];
  into.nodes.insert(into.nodes.end(), std::make_move_iterator(from.nodes.begin()),
                    std::make_move_iterator(from.nodes.end()));
  into.parents.insert(into.parents.end(), std::make_move_iterator(from.parents.begin()),
                      std::make_move_iterator(from.parents.end()));
  from = EClass{};
  --live_classes_;
  pending_.push_back(root);
  return std::nullopt;
}

void EGraph::repair(ClassId c, Rebuilt& out, std::vector<ClassId>& touched) {
  std::vector<std::pair<ENode, ClassId>> parents = std::move(classes_[c].parents);
  classes_[c].parents.clear();
  // The parents' hash-cons keys name a child that is no longer canonical: drop them, then put
  // the canonical nodes back, merging classes whose nodes turn out to be the same (congruence).
  for (auto& [node, owner] : parents) memo_.erase(node);
  for (auto& [node, owner] : parents) {
    canonicalize(node);
    owner = uf_.find(owner);
    auto [it, inserted] = memo_.try_emplace(node, owner);
    if (!inserted && uf_.find(it->second) != owner) {
      if (auto conflict = merge(it->second, owner)) {
        out.conflicts.push_back(*conflict);
      } else {
        ++out.congruence_merges;
      }
    }
    touched.push_back(owner);
  }
  std::sort(parents.begin(), parents.end(),
            [](const auto& x, const auto& y) { return node_less(x.first, y.first); });
  parents.erase(std::unique(parents.begin(), parents.end(),
                            [](const auto& x, const auto& y) { return x.first == y.first; }),
                parents.end());
  for (auto& p : parents) p.second = uf_.find(p.second);
  EClass& now = classes_[uf_.find(c)];
  now.parents.insert(now.parents.end(), std::make_move_iterator(parents.begin()),
                     std::make_move_iterator(parents.end()));
}

EGraph::Rebuilt EGraph::rebuild() {
  Rebuilt out;
  std::vector<ClassId> touched;
  while (!pending_.empty()) {
    std::vector<ClassId> todo;
    todo.swap(pending_);
    for (ClassId& c : todo) c = uf_.find(c);
    std::sort(todo.begin(), todo.end());
    todo.erase(std::unique(todo.begin(), todo.end()), todo.end());
    for (ClassId c : todo) {
      touched.push_back(c);
      repair(c, out, touched);
    }
  }
  // Node lists of the classes involved: canonical children, each node once.
  for (ClassId& c : touched) c = uf_.find(c);
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (ClassId c : touched) {
    std::vector<ENode>& nodes = classes_[c].nodes;
    for (ENode& n : nodes) canonicalize(n);
    std::sort(nodes.begin(), nodes.end(), node_less);
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  }
  return out;
}

}  // namespace scalify::egraph
