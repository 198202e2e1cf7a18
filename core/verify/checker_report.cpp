// What a check reports beyond its verdict: goal proofs, the first divergence and the closest
// reference node, random assumptions (checker_internal.h).
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "egraph/explain.h"
#include "rules/proof.h"
#include "verify/checker_internal.h"

namespace scalify::verify::detail {

/// The last line of a goal's proof: how the reference term the distributed output stands for
/// equals the reference output, as the rewrites of the e-graph's explanation (names and
/// positions; `hash-consing` when it is the very node).
std::string Checker::rewrites_between(ClassId lifted, ClassId ref, const std::string& name) const {
  const std::string head = "the reference term equals " + name;
  if (lifted == ref) return head + " (the same node: hash-consing)";
  if (!g_.explanations()) {
    return head + " (the same e-class after saturation; --explain lists the rewrites)";
  }
  auto why = egraph::explain(g_, lifted, ref);
  if (!why) return head + " (same e-class; no explanation: " + why.error().message + ")";
  std::string line = head + " by " + std::to_string(why->steps.size()) + " rewrite" +
                     (why->steps.size() == 1 ? "" : "s");
  size_t shown = 0;
  for (const egraph::ProofStep& step : why->steps) {
    if (shown++ == 12) {
      line += ", …";
      break;
    }
    line += (shown == 1 ? ": " : ", ") + rules::step_name(step, origins_) + " at [";
    for (size_t k = 0; k < step.position.size(); ++k) {
      line += (k ? " " : "") + std::to_string(step.position[k]);
    }
    line += "]";
  }
  return line;
}

std::optional<InstrId> Checker::closest_ref(InstrId id) const {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const ir::Instruction& di = d[id];
  std::unordered_set<ClassId> operand_classes;
  for (InstrId o : di.operands) {
    for (const auto& element : facts_of_[static_cast<size_t>(o)]) {
      for (uint32_t f : element) operand_classes.insert(g_.find(facts_[f].ref));
    }
  }
  std::optional<InstrId> best;
  int best_score = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    const ir::Instruction& ri = r[static_cast<InstrId>(i)];
    int score = 0;
    if (ri.opcode == di.opcode) score += 4;
    if (!ri.metadata.op_name.empty() && ri.metadata.op_name == di.metadata.op_name) score += 2;
    if (ri.metadata.source_line >= 0 && ri.metadata.source_line == di.metadata.source_line)
      score += 1;
    for (InstrId o : ri.operands) {
      const auto& v = ref_values_[static_cast<size_t>(o)];
      if (v.size() == 1 && v[0] && operand_classes.count(g_.find(*v[0]))) score += 3;
    }
    if (score > best_score) {
      best_score = score;
      best = static_cast<InstrId>(i);
    }
  }
  // At least the same op, or the same op_name and line, or an operand in common.
  if (best_score < 3) return std::nullopt;
  return best;
}

std::optional<std::pair<InstrId, std::string>> Checker::partial_origin(InstrId id) const {
  const ir::Computation& d = dist_.entry();
  // Whether every fact of element `e` of `v` is a partial over `axis` (any axis when none is
  // given yet, which is then set).
  auto partial = [&](InstrId v, size_t e, std::optional<size_t>& axis) {
    const auto& elements = facts_of_[static_cast<size_t>(v)];
    if (e >= elements.size() || elements[e].empty()) return false;
    for (uint32_t f : elements[e]) {
      const Layout& l = facts_[f].layout;
      if (!axis) {
        for (size_t a = 0; a < l.axes.size() && !axis; ++a) {
          if (l.axes[a].is_partial()) axis = a;
        }
      }
      if (!axis || *axis >= l.axes.size() || !l.axes[*axis].is_partial()) return false;
    }
    return true;
  };
  for (InstrId o : d[id].operands) {
    std::optional<size_t> axis;
    if (!partial(o, 0, axis)) continue;
    // Back through values that are partial over the same axis: get-tuple-element and tuple
    // element by element, other ops through their first partial operand.
    InstrId at = o;
    size_t element = 0;
    for (;;) {
      const ir::Instruction& i = d[at];
      std::optional<std::pair<InstrId, size_t>> from;
      if (i.opcode == ir::Opcode::kGetTupleElement) {
        const auto* index = i.get<int64_t>("index");
        if (index && !i.operands.empty()) from = {i.operands[0], static_cast<size_t>(*index)};
      } else if (i.opcode == ir::Opcode::kTuple) {
        if (element < i.operands.size()) from = {i.operands[element], 0};
      } else {
        for (InstrId k : i.operands) {
          if (partial(k, 0, axis)) {
            from = {k, 0};
            break;
          }
        }
      }
      if (!from || !partial(from->first, from->second, axis)) break;
      std::tie(at, element) = *from;
    }
    if (at == o) return std::nullopt;
    const ir::Instruction& origin = d[at];
    std::string where = "`" + std::string(origin.opcode_text()) + "`";
    if (origin.metadata.has_source_site()) {
      where +=
          ", " + origin.metadata.source_file + ":" + std::to_string(origin.metadata.source_line);
    }
    return std::pair{at, "; the partial sum begins at '" + origin.name + "' (" + where +
                             ") and is not all-reduced over " + mesh_.name(*axis) +
                             " on the way here"};
  }
  return std::nullopt;
}

Divergence Checker::describe(InstrId id, std::string reason) const {
  const ir::Computation& d = dist_.entry();
  const ir::Instruction& di = d[id];
  Divergence out;
  out.dist_node = di.name;
  out.op = di.opcode_text();
  out.reason = std::move(reason);
  out.dist_line = di.pos.line;
  for (InstrId o : di.operands) {
    const auto& v = facts_of_[static_cast<size_t>(o)];
    std::string s;
    for (const auto& element : v) {
      for (uint32_t f : element) {
        if (!s.empty()) s += " | ";
        s += facts_[f].layout.to_string(mesh_);
      }
    }
    out.operand_layouts.push_back(s.empty() ? "none" : s);
  }
  out.op_name = di.metadata.op_name;
  if (di.metadata.has_source_site())
    out.source = SourceSite{di.metadata.source_file, di.metadata.source_line};
  if (auto r = closest_ref(id)) {
    out.ref_node = ref_.entry()[*r].name;
    out.ref_line = ref_.entry()[*r].pos.line;
  }
  return out;
}

/// Random values relate only under an assumption: every distributed random op whose value
/// stands for a reference random op (the same generator on the same state) is stated.
void Checker::state_random_assumptions() {
  std::unordered_map<ClassId, std::string> ref_random;
  const ir::Computation& r = ref_.entry();
  for (size_t i = 0; i < r.size(); ++i) {
    const ir::Instruction& instr = r[static_cast<InstrId>(i)];
    if (instr.opcode != ir::Opcode::kRngBitGenerator && instr.opcode != ir::Opcode::kRng) continue;
    const auto& v = ref_values_[i];
    for (const auto& c : v) {
      if (c) ref_random.emplace(g_.find(*c), instr.name);
    }
  }
  const ir::Computation& d = dist_.entry();
  for (size_t i = 0; i < d.size(); ++i) {
    const ir::Instruction& instr = d[static_cast<InstrId>(i)];
    if (instr.opcode != ir::Opcode::kRngBitGenerator && instr.opcode != ir::Opcode::kRng) continue;
    for (const auto& element : facts_of_[i]) {
      for (uint32_t f : element) {
        auto it = ref_random.find(g_.find(facts_[f].ref));
        if (it == ref_random.end()) continue;
        const bool block = !facts_[f].layout.is_rep();
        result_.assumptions.push_back(
            {instr.name, facts_[f].layout,
             block ? "random: assumed to draw, on each rank, its block of the values the "
                     "reference's " +
                         it->second + " draws on the same state"
                   : "random: assumed to draw the same values as the reference's " + it->second +
                         " (the same generator on the same state)"});
        goto next;
      }
    }
  next:;
  }
}

void Checker::localise_by_value() {
  // The earliest op whose operands all stand for reference values but whose own value is
  // none of the reference's: it computes something the reference never does.
  std::unordered_set<ClassId> ref_classes = canonical_reference_classes();
  // Under balanced partials a node may hold a reference value scaled by an axis size.
  for (ClassId c : scaled_reference_) ref_classes.insert(g_.find(c));
  // A reference value laid out differently (a head dim dropped, blocks merged) or repeated by
  // a broadcast counts too: the distributed program's own intermediate forms of it.
  // Only a view of a value the reference views too (moved another way) is taken for one: a
  // reshape of a reference value the reference never reshapes is where a dropped op shows.
  // Likewise a broadcast of a type the reference has, of a value whose data it broadcasts too.
  std::unordered_set<ClassId> viewed, broadcast;
  auto base_of = [&](ClassId c) { return g_.find(bridge_.moved_from(c).value_or(c)); };
  for (const auto& v : ref_values_) {
    for (const auto& c : v) {
      if (!c) continue;
      if (auto base = bridge_.moved_from(*c)) viewed.insert(g_.find(*base));
      if (auto operand = bridge_.broadcast_of(*c)) broadcast.insert(base_of(*operand));
    }
  }
  // A program whose inputs are the reference's reordered (hidden states batch-first where the
  // reference keeps them feature-first) holds its values so throughout: there, any reordering of
  // a reference value is one of its own forms.
  const bool reordered_inputs = [&] {
    const ir::Computation& entry = dist_.entry();
    for (size_t i = 0; i < entry.size(); ++i) {
      if (entry[static_cast<InstrId>(i)].opcode != ir::Opcode::kParameter) continue;
      for (const auto& element : facts_of_[i]) {
        for (uint32_t f : element) {
          if (bridge_.reorders(facts_[f].ref)) return true;
        }
      }
    }
    return false;
  }();
  // There, classes that the e-graph's reshapes and transposes join hold the same elements in
  // another order: those joined to a reference value count (joined either way: the rewrites may
  // have written the reference's value as a view of the program's, or the other way round).
  std::unordered_set<ClassId> reordered_reference;
  if (reordered_inputs) {
    egraph::UnionFind joined;  // over the e-graph's ids
    joined.reserve(g_.id_count());
    while (joined.size() < g_.id_count()) joined.make_set();
    const auto reshape = vocab_.find_symbol("reshape"), transpose = vocab_.find_symbol("transpose");
    const std::vector<ClassId> classes = g_.class_ids();
    // (Only between arrays of one element count: an ill-typed rule instance joins nothing.)
    auto moves_elements = [&](ClassId c, ClassId child) {
      const auto a = types_.type(g_.type_of(c)), b = types_.type(g_.type_of(child));
      return a && b && a->is_array() && b->is_array() && a->element_count() == b->element_count();
    };
    for (ClassId c : classes) {
      for (const egraph::ENode& n : g_.nodes(c)) {
        if (n.children.size() != 1 || (n.op != reshape && n.op != transpose)) continue;
        if (moves_elements(c, n.children[0])) joined.unite(c, g_.find(n.children[0]));
      }
    }
    std::unordered_set<ClassId> reference_roots;
    for (ClassId c : ref_classes) reference_roots.insert(joined.find(g_.find(c)));
    for (ClassId c : classes) {
      if (reference_roots.count(joined.find(c))) reordered_reference.insert(c);
    }
  }
  // (The reference's own values may be views of a value it never names: a reduce written as a
  // view of the reduce of its grouped operand.)
  std::function<bool(ClassId, int)> reference_like = [&](ClassId c, int depth) {
    if (ref_classes.count(g_.find(c)) || viewed.count(g_.find(c))) return true;
    if (reordered_reference.count(g_.find(c))) return true;
    if (depth > 4) return false;
    if (auto base = bridge_.moved_from(c)) return viewed.count(g_.find(*base)) > 0;
    if (auto operand = bridge_.broadcast_of(c)) {
      return broadcast.count(base_of(*operand)) > 0 && ref_types_.count(g_.type_of(c)) > 0 &&
             reference_like(*operand, depth + 1);
    }
    return false;
  };
  auto in_ref = [&](uint32_t f) { return reference_like(facts_[f].ref, 0); };
  const ir::Computation& comp = dist_.entry();
  auto order = comp.topological_order();
  if (!order) return;
  // A value the reference never holds is still no suspect when a later value built from it is
  // the reference's again (a form only the distributed program needs, such as a scores matrix
  // with its head dim merged into the rows).
  std::vector<bool> reference(comp.size(), false), redeemed(comp.size(), false);
  for (InstrId id : *order) {
    for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
      for (uint32_t f : element) {
        if (facts_[f].apply && in_ref(f)) reference[static_cast<size_t>(id)] = true;
      }
    }
  }
  // A value no output depends on cannot make one wrong (a form left unused when the op that
  // read it was dropped).
  std::vector<bool> live(comp.size(), false);
  live[static_cast<size_t>(comp.root)] = true;
  // A tuple all-reduce redeems an operand only through that operand's own element: one
  // gradient that comes out right says nothing of the others reduced with it.
  auto redeems = [&](InstrId u, InstrId o) {
    const ir::Instruction& user = comp[u];
    const bool by_element = user.type.is_tuple() && (user.opcode == ir::Opcode::kAllReduce ||
                                                     user.opcode == ir::Opcode::kAllReduceStart);
    if (!by_element) return reference[static_cast<size_t>(u)] || redeemed[static_cast<size_t>(u)];
    for (size_t k = 0; k < user.operands.size(); ++k) {
      if (user.operands[k] != o) continue;
      for (InstrId g : users_of(u)) {
        const auto* index = comp[g].get<int64_t>("index");
        if (comp[g].opcode == ir::Opcode::kGetTupleElement && index &&
            *index == static_cast<int64_t>(k) &&
            (reference[static_cast<size_t>(g)] || redeemed[static_cast<size_t>(g)])) {
          return true;
        }
      }
    }
    return false;
  };
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    for (InstrId u : users_of(*it)) {
      live[static_cast<size_t>(*it)] =
          live[static_cast<size_t>(*it)] || live[static_cast<size_t>(u)];
      if (redeems(u, *it)) redeemed[static_cast<size_t>(*it)] = true;
    }
  }
  // A value combined with one the checker does not model (a shard moved by a
  // collective-permute) cannot be judged by value: only what feeds such a node can.
  std::vector<bool> unmodelled(comp.size(), false), downstream(comp.size(), false),
      meets(comp.size(), false), feeds(comp.size(), false);
  for (InstrId u : unmodelled_) unmodelled[static_cast<size_t>(u)] = true;
  // In a program that passes values along rings, a slice of another rank's block that no
  // completed ring writes back is a step of a ring the checker does not follow (one that passes
  // partial sums along): not judged by value.
  const bool rings = std::any_of(order->begin(), order->end(), [&](InstrId u) {
    return comp[u].opcode == ir::Opcode::kCollectivePermute ||
           comp[u].opcode == ir::Opcode::kCollectivePermuteStart;
  });
  for (InstrId u : *order) {
    if (!rings || redeemed[static_cast<size_t>(u)] || !rotated_slice(u)) continue;
    if (!std::any_of(unmodelled.begin(), unmodelled.end(), [](bool b) { return b; })) {
      result_.notes.push_back("could not follow " + comp[u].name +
                              " (`dynamic-slice`): it takes another rank's block, a step of a "
                              "ring the checker does not follow (one that passes partial sums)");
    }
    unmodelled[static_cast<size_t>(u)] = true;
  }
  // An op known only by its called computation (a sort's comparator, a reduce-window's body)
  // that no reference op matches may still compute what the reference does another way.
  for (InstrId id : *order) {
    if (!calls_opaque_computation(dist_, comp[id])) continue;
    bool matches = false;
    for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
      for (uint32_t f : element) matches = matches || in_ref(f);
    }
    if (!matches) unmodelled[static_cast<size_t>(id)] = true;
  }
  for (InstrId id : *order) {
    bool d = unmodelled[static_cast<size_t>(id)];
    for (InstrId o : comp[id].operands) d = d || downstream[static_cast<size_t>(o)];
    downstream[static_cast<size_t>(id)] = d;
  }
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    for (InstrId u : users_of(*it)) {
      const auto k = static_cast<size_t>(u);
      meets[static_cast<size_t>(*it)] =
          meets[static_cast<size_t>(*it)] || downstream[k] || meets[k];
      feeds[static_cast<size_t>(*it)] =
          feeds[static_cast<size_t>(*it)] || unmodelled[k] || feeds[k];
    }
  }
  std::vector<bool> overwritten(comp.size(), false);
  for (InstrId o : overwritten_) overwritten[static_cast<size_t>(o)] = true;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {  // and what only they read
    const auto& users = users_of(*it);
    if (!users.empty() && std::all_of(users.begin(), users.end(), [&](InstrId u) {
          return overwritten[static_cast<size_t>(u)];
        })) {
      overwritten[static_cast<size_t>(*it)] = true;
    }
  }
  // Whether operand o stands for a reference value (a collective's view of one counts; a
  // buffer a ring overwrites whole does not matter).
  auto matches_reference = [&](InstrId o) {
    bool any = redeemed[static_cast<size_t>(o)] || overwritten[static_cast<size_t>(o)];
    for (const auto& element : facts_of_[static_cast<size_t>(o)]) {
      for (uint32_t f : element) any = any || in_ref(f) || !facts_[f].apply;
    }
    return any;
  };
  // A data-parallel mean's factor (1/n or n, for n ranks dividing the mesh) and the scalars
  // made of it and of reference values (the learning rate halved) are no reference values,
  // yet no suspects either: they are judged where they scale one (the summed gradient).
  std::vector<bool> mean_factor(comp.size(), false);
  const int64_t devices = mesh_.device_count();
  for (InstrId id : *order) {
    const ir::Instruction& instr = comp[id];
    const auto at = static_cast<size_t>(id);
    if (instr.opcode == ir::Opcode::kConstant) {
      const std::optional<double> v = scalar_value(instr);
      for (int64_t n = 2; v && n <= devices; ++n) {
        const auto x = static_cast<double>(n);
        if (devices % n == 0 && (*v == x || *v * x == 1.0)) mean_factor[at] = true;
      }
      continue;
    }
    const bool scalar_op =
        instr.type.is_array() && !instr.operands.empty() &&
        ((instr.type.rank() == 0 &&
          (instr.opcode == ir::Opcode::kMultiply || instr.opcode == ir::Opcode::kDivide ||
           instr.opcode == ir::Opcode::kConvert)) ||
         (instr.opcode == ir::Opcode::kBroadcast && comp[instr.operands[0]].type.is_array() &&
          comp[instr.operands[0]].type.rank() == 0));
    if (!scalar_op) continue;
    bool any = false, rest = true;
    for (InstrId o : instr.operands) {
      const bool factor = mean_factor[static_cast<size_t>(o)];
      any = any || factor;
      rest = rest && (factor || matches_reference(o));
    }
    mean_factor[at] = any && rest;
  }
  for (InstrId id : *order) {
    const auto at = static_cast<size_t>(id);
    if (mean_factor[at] || overwritten[at]) continue;
    if ((downstream[at] || meets[at]) && !feeds[at]) continue;
    // The reshape or transpose that cuts a value for an all-to-all is part of the exchange: what
    // comes out of the exchange is judged, not the cut.
    if ((comp[id].opcode == ir::Opcode::kReshape || comp[id].opcode == ir::Opcode::kTranspose) &&
        !users_of(id).empty() &&
        std::all_of(users_of(id).begin(), users_of(id).end(),
                    [&](InstrId u) { return comp[u].opcode == ir::Opcode::kAllToAll; })) {
      continue;
    }
    // A constant used only in index arithmetic on the rank (evaluated per device, never
    // related to the reference) is no suspect.
    // Nor is one used only as an offset of dynamic slices and updates.
    const auto& users = users_of(id);
    auto as_index = [&](InstrId u) {
      const ir::Instruction& user = comp[u];
      const size_t first = user.opcode == ir::Opcode::kDynamicSlice         ? 1
                           : user.opcode == ir::Opcode::kDynamicUpdateSlice ? 2
                                                                            : user.operands.size();
      for (size_t k = 0; k < first && k < user.operands.size(); ++k) {
        if (user.operands[k] == id) return false;
      }
      return first < user.operands.size();
    };
    if (comp[id].operands.empty() && !users.empty() &&
        std::all_of(users.begin(), users.end(), [&](InstrId u) {
          return rank_values_[static_cast<size_t>(u)].has_value() || as_index(u);
        })) {
      continue;
    }
    // Some element (of a tuple-valued op, any) built by the op itself and equal to nothing of
    // the reference's.
    bool differs = false;
    for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
      bool applied = false, matches = false;
      for (uint32_t f : element) {
        applied = applied || facts_[f].apply;
        matches = matches || in_ref(f);
      }
      differs = differs || (applied && !matches);
    }
    // A slice of another rank's block (a ring's step) that no ring puts back in place.
    const auto slice = rotated_slice(id);
    if (!(differs || slice) || redeemed[at] || !live[at]) continue;
    // (A dynamic slice's or update's offsets are indices, not values.)
    const size_t values = comp[id].opcode == ir::Opcode::kDynamicSlice ? 1
                          : comp[id].opcode == ir::Opcode::kDynamicUpdateSlice
                              ? 2
                              : comp[id].operands.size();
    bool operands_match = true;
    for (size_t k = 0; k < comp[id].operands.size() && k < values; ++k) {
      const InstrId o = comp[id].operands[k];
      operands_match =
          operands_match && (mean_factor[static_cast<size_t>(o)] || matches_reference(o));
    }
    if (!operands_match) continue;
    if (slice) {
      result_.divergence = describe(id, *slice);
      result_.divergence->by_value = true;
      return;
    }
    if (auto earlier = trace_to_first_difference(id)) {
      result_.divergence = std::move(earlier);
      return;
    }
    if (const auto copies = sum_of_copies(id)) {
      result_.divergence = describe(id, *copies);
      result_.divergence->by_value = true;
      return;
    }
    if (const auto added = op_not_in_reference(id)) {
      result_.divergence = describe(id, *added);
      result_.divergence->by_value = true;
      return;
    }
    result_.divergence = describe(
        id, comp[id].operands.empty()
                ? "it is a value the reference never computes (a changed constant, or a "
                  "factor the reference does not apply)"
                : "its operands match reference values, but `" + comp[id].opcode_text() +
                      "` of them computes a value the reference never computes (a different "
                      "constant, operand order, window or permutation than the reference uses)");
    result_.divergence->by_value = true;
    return;
  }
  localise_at_outputs();
}

std::optional<std::string> Checker::rotated_slice(InstrId id) const {
  const ir::Instruction& instr = dist_.entry()[id];
  if (instr.opcode != ir::Opcode::kDynamicSlice) return std::nullopt;
  for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
    for (uint32_t f : element) {
      const auto r = bridge_.rotation_of(facts_[f].ref);
      if (facts_[f].rule != "dynamic-slice-by-rank" || !r) continue;
      const auto offsets = offsets_by_device(instr.operands[static_cast<size_t>(r->dim) + 1]);
      const std::string offs = offsets ? per_device_text(*offsets) : std::string();
      return "its offsets along dimension " + std::to_string(r->dim) + " are " + offs +
             " by device: each rank takes another rank's block (a ring's step), and no ring "
             "writes the blocks back at their places";
    }
  }
  return std::nullopt;
}

std::optional<std::string> Checker::sum_of_copies(InstrId id) const {
  const ir::Instruction& instr = dist_.entry()[id];
  for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
    for (uint32_t f : element) {
      if (facts_[f].rule != kSumOfCopies) continue;
      const auto axes = mesh_.axes_of(instr.replica_groups_or_all(), false);
      if (!axes) return std::nullopt;
      std::string names;
      int64_t copies = 1;
      for (size_t a : *axes) {
        names += (names.empty() ? "" : ",") + mesh_.name(a);
        copies *= mesh_.size(a);
      }
      const std::string n = std::to_string(copies);
      return "its operand is rep on " + names + ": `all-reduce` sums " + n +
             " equal copies, and nothing after it divides by " + n +
             " (the reference value is counted " + n + " times)";
    }
  }
  return std::nullopt;
}

std::optional<std::string> Checker::op_not_in_reference(InstrId id) const {
  const ir::Instruction& instr = dist_.entry()[id];
  const ir::Computation& r = ref_.entry();
  const auto& mine = instr.operands;
  if (mine.empty()) return std::nullopt;
  const std::string computes = "its operands match reference values, but `" + instr.opcode_text() +
                               "` of them computes a value the reference never computes";
  // Reference nodes reading the values this node reads: the same op (then an attribute or the
  // order is wrong, which the generic reason says), another op, or the same op one op further
  // on (an op dropped here).
  std::optional<std::string> other_op, op_missing;
  for (const ir::Instruction& user : r.instructions) {
    if (user.operands.size() != mine.size()) continue;
    std::vector<size_t> differ;
    for (size_t k = 0; k < mine.size(); ++k) {
      if (!holds_reference_value(mine[k], user.operands[k])) differ.push_back(k);
    }
    const bool same_op = user.opcode_text() == instr.opcode_text();
    if (same_op && differ.size() == 2 &&
        holds_reference_value(mine[differ[0]], user.operands[differ[1]]) &&
        holds_reference_value(mine[differ[1]], user.operands[differ[0]])) {
      return std::nullopt;  // swapped
    }
    if (differ.empty()) {
      if (same_op) return std::nullopt;
      if (!other_op) {
        other_op = computes + ": the reference applies `" + user.opcode_text() + "` to them ('" +
                   user.name + "')";
      }
      continue;
    }
    if (!same_op || differ.size() != 1 || op_missing) continue;
    const size_t k = differ[0];
    const ir::Instruction& between = r[user.operands[k]];
    for (InstrId o : between.operands) {
      if (!holds_reference_value(mine[k], o)) continue;
      op_missing = computes + ": the reference's '" + user.name + "' reads '" + between.name +
                   "' there, which `" + between.opcode_text() + "` computes from the '" +
                   r[o].name + "' read here: that `" + between.opcode_text() + "` is missing";
      break;
    }
  }
  if (other_op) return other_op;
  if (op_missing) return op_missing;
  // A rounding the reference does not make: its operand a reference value, its result none.
  const ir::Type& from = dist_.entry()[mine[0]].type;
  if (instr.opcode != ir::Opcode::kConvert || !from.is_array() || !instr.type.is_array()) {
    return std::nullopt;
  }
  for (InstrId v = 0; v < static_cast<InstrId>(r.size()); ++v) {
    if (!holds_reference_value(mine[0], v)) continue;
    return "its operand holds the reference's '" + r[v].name + "', kept as " +
           std::string(ir::dtype_name(from.dtype())) + " in the reference: the `convert` to " +
           std::string(ir::dtype_name(instr.type.dtype())) +
           " is no conversion the reference makes there (a precision change)";
  }
  return std::nullopt;
}

/// Every node holds a value of the reference, but an output is not the one the reference
/// returns there (an op dropped just before it): the node that produces the output is the
/// suspect.
void Checker::localise_at_outputs() {
  const ir::Computation& r = ref_.entry();
  const ir::Computation& d = dist_.entry();
  const auto first_ref = first_reference_nodes();
  for (const Goal& goal : result_.goals) {
    if (goal.proven) continue;
    const auto e = dist_element(static_cast<size_t>(goal.index));
    const auto& out = facts_of_[static_cast<size_t>(d.root)];
    if (!e || *e >= out.size()) continue;
    for (uint32_t f : out[*e]) {
      const auto held = first_ref.find(g_.find(facts_[f].ref));
      if (held == first_ref.end()) continue;
      const InstrId producer = output_producer(d, *e);
      const std::string symptom = "holds the reference's '" + r[held->second].name +
                                  "', but the reference returns another value as its output " +
                                  std::to_string(goal.index) + " ('" + goal.ref + "')";
      // Walked back alongside the reference's output, the place the two first part.
      if (auto parted =
              trace_from(producer, output_producer(r, static_cast<size_t>(goal.index)), symptom)) {
        result_.divergence = std::move(parted);
        return;
      }
      result_.divergence = describe(producer, "it " + symptom);
      result_.divergence->by_value = true;
      return;
    }
  }
}

std::unordered_map<ClassId, InstrId> Checker::first_reference_nodes() const {
  std::unordered_map<ClassId, InstrId> first_ref;
  const ir::Computation& r = ref_.entry();
  for (InstrId id : r.topological_order().value_or(std::vector<InstrId>{})) {
    const auto& v = ref_values_[static_cast<size_t>(id)];
    if (v.size() == 1 && v[0]) first_ref.emplace(g_.find(*v[0]), id);
  }
  return first_ref;
}

void Checker::record_matches() {
  const std::unordered_map<ClassId, InstrId> first_ref = first_reference_nodes();
  const ir::Computation& r = ref_.entry();
  const ir::Computation& d = dist_.entry();
  for (InstrId id : d.topological_order().value_or(std::vector<InstrId>{})) {
    const auto& facts = facts_of_[static_cast<size_t>(id)];
    if (facts.size() != 1) continue;
    for (uint32_t f : facts[0]) {
      const auto found = first_ref.find(g_.find(facts_[f].ref));
      if (found == first_ref.end()) continue;
      result_.matches.push_back({d[id].name, r[found->second].name, facts_[f].layout});
      break;
    }
  }
}

void Checker::record_derivation() {
  const std::unordered_map<ClassId, InstrId> first_ref = first_reference_nodes();
  const ir::Computation& r = ref_.entry();
  const ir::Computation& d = dist_.entry();
  result_.derivation.reserve(facts_.size());
  // Numbers stand for constants of every type, so a class may hold reference nodes of several
  // element types: a fact names one of its own type.
  std::map<std::pair<ClassId, ir::DType>, InstrId> typed_first;
  for (InstrId id : r.topological_order().value_or(std::vector<InstrId>{})) {
    const auto& v = ref_values_[static_cast<size_t>(id)];
    if (v.size() == 1 && v[0] && r[id].type.is_array()) {
      typed_first.emplace(std::pair{g_.find(*v[0]), r[id].type.dtype()}, id);
    }
  }
  for (size_t i = 0; i < facts_.size(); ++i) {
    const Fact& x = facts_[i];
    DerivedFact out;
    out.index = i;
    out.dist = d[x.instr].name;
    out.element = d[x.instr].type.is_tuple() ? static_cast<int64_t>(x.element) : -1;
    out.layout = x.layout;
    out.eclass = static_cast<int64_t>(g_.find(x.ref));
    out.rule = x.rule;
    out.premises.assign(x.premises.begin(), x.premises.end());
    out.control_flow = x.control_flow;
    const auto found = first_ref.find(g_.find(x.ref));
    const ir::Type& own =
        d[x.instr].type.is_tuple() ? d[x.instr].type.elements()[x.element] : d[x.instr].type;
    const auto typed =
        own.is_array() ? typed_first.find({g_.find(x.ref), own.dtype()}) : typed_first.end();
    if (typed != typed_first.end()) {
      out.ref = r[typed->second].name;
    } else if (found != first_ref.end()) {
      out.ref = r[found->second].name;
    }
    if (found != first_ref.end()) {
      // With explanations: the rewrites that make the term built for the fact the node's.
      const ClassId node = *ref_values_[static_cast<size_t>(found->second)][0];
      if (g_.explanations() && node != x.ref) {
        if (auto why = egraph::explain(g_, x.ref, node)) {
          // Each rule once, in the order the explanation first uses it.
          for (const egraph::ProofStep& step : why->steps) {
            std::string name = rules::step_name(step, origins_);
            if (std::find(out.rewrites.begin(), out.rewrites.end(), name) != out.rewrites.end())
              continue;
            if (out.rewrites.size() == 16) {
              out.rewrites.push_back("…");
              break;
            }
            out.rewrites.push_back(std::move(name));
          }
        }
      }
    }
    result_.derivation.push_back(std::move(out));
  }
}

}  // namespace scalify::verify::detail
