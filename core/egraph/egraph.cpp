#include "egraph/egraph.h"

#include <algorithm>
#include <tuple>

namespace scalify::egraph {
namespace {

bool node_less(const ENode& a, const ENode& b) {
  return std::tie(a.op, a.payload, a.children) < std::tie(b.op, b.payload, b.children);
}

}  // namespace

ClassId EGraph::open_class() {
  const ClassId id = uf_.make_set();
  classes_.emplace_back();
  has_constant_.push_back(false);
  ++live_classes_;
  touch(id);
  const ENode& node = memo_.key(id);
  if (!lists_stale_) {
    classes_[id].nodes = static_cast<uint32_t>(node_ranges_.size());
    const auto at = static_cast<uint32_t>(node_store_.size());
    node_ranges_.push_back({at, at + 1, op_bit(node.op)});
    node_store_.push_back(node);
  }
  return id;
}

void EGraph::fold_new(ClassId id) {
  if (!folding_) return;
  const uint32_t constant = make_constant(memo_.key(id));
  if (constant == kNoConstant) return;
  set_constant(id, constant);
  settle_constant(id, id);
}

ClassId EGraph::add_alias(ENode node, ENode canonical, ClassId existing) {
  const ClassId id = uf_.make_set();
  classes_.emplace_back();
  has_constant_.push_back(false);
  exact_.push_back(std::move(node));
  memo_.set_key(id, std::move(canonical));
  uf_.link(find(existing), id);
  unions_.push_back(UnionRecord{existing, id, Reason{Reason::Kind::kCongruence, 0, 0}});
  return id;
}

std::optional<ClassId> EGraph::lookup_node(ENode node) const {
  for (ClassId& c : node.children) c = find(c);
  sort_if_ac(node);
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
    if (uf_.is_root(c)) n += nodes(c).size();
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
  for (size_t i = 0; i < node.children.size(); ++i) {
    // Most classes have no constant: the bit says so without loading the class.
    const ClassId c = find(node.children[i]);
    if (!has_constant_[c] && folding_->strict) return kNoConstant;
    constants[i] = has_constant_[c] ? classes_[c].constant : kNoConstant;
  }
  return folding_->fold(node, constants);
}

void EGraph::set_constant(ClassId root, uint32_t constant) {
  classes_[root].constant = constant;
  has_constant_[root] = true;
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
  // Pruned, as its constant says. Node lists are remade (pruned) by rebuild() after merges;
  // until the first merge, a class whose constant settles here has only its leaf anyway.
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
  if (explanations_) unions_.push_back(UnionRecord{a, b, reason});  // only proofs read them
  // The class with more parents stays root: only the other's parents need repair (their
  // children are no longer canonical), and the smaller list is the one copied.
  const bool a_bigger = ca.parent_count >= cb.parent_count;
  const ClassId root = a_bigger ? ra : rb;
  const ClassId gone = a_bigger ? rb : ra;
  uf_.link(root, gone);
  touch(root);
  EClass& into = classes_[root];
  EClass& from = classes_[gone];
  merged_.push_back(Merged{root, gone, into.constant == kNoConstant, from.constant == kNoConstant});
  if (into.constant == kNoConstant && from.constant != kNoConstant) {
    set_constant(root, from.constant);
  }
  into.parent_count += from.parent_count;
  lists_stale_ = true;
  --live_classes_;
  if (into.constant != kNoConstant) settle_constant(root, std::nullopt);
  return std::nullopt;
}

void EGraph::collect_parents() {
  // Each list is met at random: it is requested a few entries ahead (see rebuild()).
  constexpr ClassId kAhead = 4;
  // New nodes join the parent lists of the classes their children had when they were added,
  // which their keys still name (only repairs change keys, and new nodes are not pending);
  // the merges below carry those lists on if the classes were merged since. A node without
  // an entry here is an alias (explanations), whose stored twin is the parent.
  const auto ids = static_cast<ClassId>(uf_.size());
  auto children = [this](ClassId id) -> std::span<const ClassId> {
    if (!memo_.contains_id(id)) return {};
    return memo_.key(id).children;
  };
  for (ClassId id = filed_; id < ids; ++id) {
    if (id + 2 * kAhead < ids) {
      for (ClassId c : children(id + 2 * kAhead)) __builtin_prefetch(&classes_[c]);
    }
    if (id + kAhead < ids) {
      for (ClassId c : children(id + kAhead)) parents_.prefetch_tail(classes_[c].parents);
    }
    const std::span<const ClassId> kids = children(id);
    for (size_t i = 0; i < kids.size(); ++i) {
      // A node using the same child twice is one parent of it, not two.
      if (std::find(kids.begin(), kids.begin() + i, kids[i]) != kids.begin() + i) continue;
      EClass& cls = classes_[kids[i]];
      parents_.push(cls.parents, id);
      ++cls.parent_count;
    }
  }
  filed_ = ids;
  // Merges in their order: the parents of the class merged away have children that are no
  // longer canonical; and the parents of a side that learned a constant may now fold.
  const size_t merges = merged_.size();
  for (size_t i = 0; i < merges; ++i) {
    if (i + kAhead < merges) {
      __builtin_prefetch(&classes_[merged_[i + kAhead].root]);
      __builtin_prefetch(&classes_[merged_[i + kAhead].gone]);
    }
    const Merged m = merged_[i];
    EClass& root = classes_[m.root];
    EClass& gone = classes_[m.gone];
    const bool constant = classes_[find(m.root)].constant != kNoConstant;
    if (constant && m.root_lacked_constant) parents_.append_to(root.parents, analysis_pending_);
    if (gone.parents.empty()) continue;
    parents_.append_to(gone.parents, pending_);
    if (constant && m.gone_lacked_constant) parents_.append_to(gone.parents, analysis_pending_);
    parents_.splice(root.parents, gone.parents);
  }
  merged_.clear();
}

bool EGraph::is_orphan(ClassId id) const {
  return !orphans_.empty() && std::find(orphans_.begin(), orphans_.end(), id) != orphans_.end();
}

void EGraph::repair(ClassId id, Rebuilt& out) {
  // A node that congruence already folded into another keeps no entry of its own.
  if (!memo_.contains_id(id)) return;
  ENode node = memo_.key(id);
  canonicalize(node);
  if (node == memo_.key(id)) return;  // already canonical (listed twice): it stands
  memo_.erase(id);
  const ClassId holder = memo_.insert(id, std::move(node));
  if (holder == id || find(holder) == find(id)) return;
  if (auto conflict = merge(holder, id, Reason{Reason::Kind::kCongruence, 0, 0})) {
    out.conflicts.push_back(*conflict);
    orphans_.push_back(id);
  } else {
    ++out.congruence_merges;
  }
}

EGraph::Rebuilt EGraph::rebuild() {
  Rebuilt out = restore_congruence();
  if (lists_stale_) rebuild_node_lists();
  return out;
}

EGraph::Rebuilt EGraph::restore_congruence() {
  Rebuilt out;
  LargeVector<ClassId> batch;
  for (collect_parents(); !pending_.empty() || !analysis_pending_.empty(); collect_parents()) {
    while (!pending_.empty()) {
      // The pending ids are scattered over memory: each repair would wait for its node, then
      // its children's union-find entries, then its hash-cons slots. So the loop requests
      // them a few repairs ahead, in that order. Merges queue their ids for the next batch.
      constexpr size_t kAhead = 4;
      batch.swap(pending_);
      const size_t n = batch.size();
      for (size_t i = 0; i < n; ++i) {
        if (i + 3 * kAhead < n) memo_.prefetch_key(batch[i + 3 * kAhead]);
        if (i + 2 * kAhead < n && memo_.contains_id(batch[i + 2 * kAhead])) {
          for (ClassId c : memo_.key(batch[i + 2 * kAhead]).children) uf_.prefetch(c);
        }
        if (i + kAhead < n && memo_.contains_id(batch[i + kAhead])) {
          ENode ahead = memo_.key(batch[i + kAhead]);
          memo_.prefetch(ahead);  // its slot, to erase
          canonicalize(ahead);
          memo_.prefetch(ahead);  // where its canonical form goes
        }
        repair(batch[i], out);
      }
      batch.clear();
      collect_parents();
    }
    while (!analysis_pending_.empty()) {
      const ClassId id = analysis_pending_.back();
      analysis_pending_.pop_back();
      // A node without an entry computes what the congruent node holding it does (which is a
      // parent of the same classes, so it is in this list too).
      if (!memo_.contains_id(id) && !is_orphan(id)) continue;
      ENode node = memo_.key(id);
      canonicalize(node);
      const uint32_t constant = make_constant(node);
      EClass& owner = classes_[find(id)];
      if (constant == kNoConstant || owner.constant == constant) continue;
      if (owner.constant != kNoConstant) {
        analysis_conflicts_.push_back(
            Conflict{find(id), find(id), owner.type, owner.type, owner.constant, constant});
        continue;
      }
      set_constant(find(id), constant);
      touch(id);
      // (Parents of classes merged into it since the last collect_parents() follow then.)
      parents_.append_to(owner.parents, analysis_pending_);
      settle_constant(id, id);
    }
  }
  return out;
}

void EGraph::rebuild_node_lists() {
  // Lists are numbered by class in id order. Each canonical node once: the ids holding
  // hash-cons entries, plus orphans (canonicalized here); pruned classes keep their leaves.
  const auto ids = static_cast<ClassId>(uf_.size());
  std::vector<ENode> orphan_nodes;
  for (ClassId id : orphans_) {
    orphan_nodes.push_back(memo_.key(id));
    canonicalize(orphan_nodes.back());
  }
  auto listed = [this](ClassId id, const ENode& node) {
    return !pruned(classes_[find(id)]) || node.children.empty();
  };
  // Count, then place each node in its class's range.
  uint32_t lists = 0;
  node_ranges_.clear();
  for (ClassId c = 0; c < ids; ++c) {
    if (!uf_.is_root(c)) continue;
    classes_[c].nodes = lists++;
    node_ranges_.push_back({});
  }
  auto count = [&](ClassId id, const ENode& node) {
    if (listed(id, node)) ++node_ranges_[classes_[find(id)].nodes].end;
  };
  for (ClassId id = 0; id < ids; ++id) {
    if (memo_.contains_id(id)) count(id, memo_.key(id));
  }
  for (size_t k = 0; k < orphans_.size(); ++k) count(orphans_[k], orphan_nodes[k]);
  uint32_t total = 0;
  for (NodeRange& r : node_ranges_) {
    const uint32_t n = r.end;
    r.begin = r.end = total;
    total += n;
  }
  node_store_.clear();
  node_store_.resize(total);
  auto place = [&](ClassId id, const ENode& node) {
    if (!listed(id, node)) return;
    NodeRange& r = node_ranges_[classes_[find(id)].nodes];
    node_store_[r.end++] = node;
    r.ops |= op_bit(node.op);
  };
  for (ClassId id = 0; id < ids; ++id) {
    if (memo_.contains_id(id)) place(id, memo_.key(id));
  }
  for (size_t k = 0; k < orphans_.size(); ++k) place(orphans_[k], orphan_nodes[k]);
  for (NodeRange& r : node_ranges_) {
    const auto first = node_store_.begin() + r.begin, last = node_store_.begin() + r.end;
    std::sort(first, last, node_less);
    // An orphan may repeat a node its class holds already.
    if (!orphans_.empty())
      r.end = static_cast<uint32_t>(std::unique(first, last) - node_store_.begin());
  }
  lists_stale_ = false;
}

}  // namespace scalify::egraph
