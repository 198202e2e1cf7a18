// Where a wrong value first parts from the reference's structure (checker_internal.h): a node
// found to compute a value the reference never computes is often only where a mistake made
// upstream becomes visible (a constant changed, an op dropped before a same-type convert or a
// broadcast, operands swapped in a scalar's arithmetic). Walking back alongside the reference
// node that plays its part, operand by operand, finds the node where the two first differ.
#include <algorithm>
#include <unordered_set>

#include "verify/checker_internal.h"
#include "verify/term_bridge.h"

namespace scalify::verify::detail {
namespace {

bool same_metadata_scope(const ir::Instruction& d, const ir::Instruction& r) {
  const std::string& a = d.metadata.op_name;
  const std::string& b = r.metadata.op_name;
  return a.empty() || b.empty() || a == b;
}

/// How many instructions read `value`.
size_t readers(const ir::Computation& comp, InstrId value) {
  size_t n = 0;
  for (size_t i = 0; i < comp.size(); ++i) {
    const auto& operands = comp[static_cast<InstrId>(i)].operands;
    n += std::find(operands.begin(), operands.end(), value) != operands.end();
  }
  return n;
}

bool same_shape_of_op(const ir::Instruction& d, const ir::Instruction& r) {
  return d.opcode == r.opcode && d.operands.size() == r.operands.size();
}

}  // namespace

bool Checker::holds_reference_value(InstrId dist_value, InstrId ref_value) const {
  const auto& d = facts_of_[static_cast<size_t>(dist_value)];
  const auto& r = ref_values_[static_cast<size_t>(ref_value)];
  if (d.size() != r.size() || d.empty()) return false;
  for (size_t e = 0; e < d.size(); ++e) {
    if (!r[e]) return false;
    const ClassId want = g_.find(*r[e]);
    const bool held = std::any_of(d[e].begin(), d[e].end(),
                                  [&](uint32_t f) { return g_.find(facts_[f].ref) == want; });
    if (!held) return false;
  }
  return true;
}

std::unordered_set<ClassId> Checker::canonical_reference_classes() const {
  std::unordered_set<ClassId> reference;
  for (const auto& v : ref_values_) {
    for (const auto& c : v) {
      if (c) reference.insert(g_.find(*c));
    }
  }
  return reference;
}

bool Checker::feeds_reference_value(InstrId value, InstrId except,
                                    const std::unordered_set<ClassId>& reference) const {
  const ir::Computation& d = dist_.entry();
  for (size_t i = 0; i < d.size(); ++i) {
    const auto user = static_cast<InstrId>(i);
    const auto& operands = d[user].operands;
    if (user == except || std::find(operands.begin(), operands.end(), value) == operands.end()) {
      continue;
    }
    for (const auto& element : facts_of_[i]) {
      for (uint32_t f : element) {
        if (reference.count(g_.find(facts_[f].ref))) return true;
      }
    }
  }
  return false;
}

std::vector<size_t> Checker::differing_operands(InstrId dist, InstrId ref) const {
  const ir::Instruction& d = dist_.entry()[dist];
  const ir::Instruction& r = ref_.entry()[ref];
  std::vector<size_t> differ;
  for (size_t k = 0; k < d.operands.size(); ++k) {
    if (!holds_reference_value(d.operands[k], r.operands[k])) differ.push_back(k);
  }
  return differ;
}

Checker::Counterparts Checker::counterparts(InstrId id) const {
  const ir::Instruction& d = dist_.entry()[id];
  const ir::Computation& r = ref_.entry();
  std::vector<InstrId> best;
  size_t best_score = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const auto rid = static_cast<InstrId>(i);
    const ir::Instruction& ri = r[rid];
    if (!same_shape_of_op(d, ri) || !same_metadata_scope(d, ri)) continue;
    const size_t same = d.operands.size() - differing_operands(id, rid).size();
    const bool same_site = !d.metadata.op_name.empty() && d.metadata.has_source_site() &&
                           d.metadata.op_name == ri.metadata.op_name &&
                           d.metadata.source_file == ri.metadata.source_file &&
                           d.metadata.source_line == ri.metadata.source_line;
    // Evidence that ri plays d's part: an operand in common, or the same source site.
    if (same == 0 && !same_site) continue;
    size_t score = 4 * same;
    if (!d.metadata.op_name.empty() && d.metadata.op_name == ri.metadata.op_name) score += 2;
    if (d.metadata.source_line >= 0 && d.metadata.source_line == ri.metadata.source_line) ++score;
    if (score > best_score) best.clear(), best_score = score;
    if (score == best_score) best.push_back(rid);
  }
  if (!best.empty() || d.operands.empty()) return {std::move(best), false};
  // No evidence: every reference node of this kind, for the walks to tell apart.
  for (size_t i = 0; i < r.size(); ++i) {
    const auto rid = static_cast<InstrId>(i);
    if (same_shape_of_op(d, r[rid]) && same_metadata_scope(d, r[rid])) best.push_back(rid);
  }
  return {std::move(best), true};
}

Checker::Parting Checker::walk_back(InstrId flagged, InstrId ref,
                                    const std::unordered_set<ClassId>& reference) const {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  Parting p{ref, flagged, ref, differing_operands(flagged, ref), Parting::Why::kOther};
  // Down one operand while it is the only one that differs and both sides apply the same op.
  while (p.differ.size() == 1) {
    const InstrId next = d[p.at].operands[p.differ[0]];
    const InstrId ref_next = r[p.ref_at].operands[p.differ[0]];
    const ir::Instruction& dn = d[next];
    const ir::Instruction& rn = r[ref_next];
    if (!same_shape_of_op(dn, rn) || !same_metadata_scope(dn, rn)) break;
    if (facts_of_[static_cast<size_t>(next)].empty()) break;
    // A value that another reader turns into a reference value is right, and reading it here
    // the mistake: the walk stays. So is a literal read in several places (`one`, read where
    // the loop counter should be).
    if (feeds_reference_value(next, p.at, reference) ||
        (dn.operands.empty() && readers(d, next) > 1)) {
      break;
    }
    p.at = next, p.ref_at = ref_next;
    p.differ = differing_operands(p.at, p.ref_at);
  }
  if (p.differ.empty()) {
    p.why = Parting::Why::kOwnAttributes;
  } else if (p.differ.size() == 1) {
    const InstrId dk = d[p.at].operands[p.differ[0]];
    const InstrId rk = r[p.ref_at].operands[p.differ[0]];
    const auto& ro = r[rk].operands;
    const auto& dop = d[dk].operands;
    if (std::any_of(ro.begin(), ro.end(),
                    [&](InstrId o) { return holds_reference_value(dk, o); })) {
      p.why = Parting::Why::kOpMissing;
    } else if (std::any_of(dop.begin(), dop.end(),
                           [&](InstrId o) { return holds_reference_value(o, rk); })) {
      p.why = Parting::Why::kOpAdded;
    }
  } else if (p.differ.size() == 2) {
    const auto& dop = d[p.at].operands;
    const auto& rop = r[p.ref_at].operands;
    const size_t i = p.differ[0], j = p.differ[1];
    if (holds_reference_value(dop[i], rop[j]) && holds_reference_value(dop[j], rop[i])) {
      p.why = Parting::Why::kSwapped;
    }
  }
  return p;
}

std::optional<Divergence> Checker::trace_to_first_difference(InstrId flagged) const {
  const Counterparts candidates = counterparts(flagged);
  std::vector<Parting> walks;
  const std::unordered_set<ClassId> reference = canonical_reference_classes();
  for (InstrId c : candidates.nodes) walks.push_back(walk_back(flagged, c, reference));
  // Several reference nodes may fit as well (the same layer norm applied three times, its scale
  // and offset shared; or, with an op dropped, the op the dropped one fed and the one it was).
  // A walk that ends in a parting it can name (an op missing or added, the same operands read
  // another way) is believed over one that ends in "the wrong value"; then the reference node
  // in the same place among its ops of this kind. Candidates found without evidence (no
  // operand in common) are believed only by a single named walk.
  std::vector<const Parting*> named;
  for (const Parting& w : walks) {
    if (w.why != Parting::Why::kOther) named.push_back(&w);
  }
  const Parting* chosen = nullptr;
  if (named.size() == 1) {
    chosen = named.front();
  } else if (candidates.guessed) {
    return std::nullopt;
  } else if (walks.size() == 1) {
    chosen = &walks.front();
  } else {
    auto ordinal = [](const ir::Computation& comp, InstrId of) {
      size_t n = 0;
      for (size_t i = 0; i < static_cast<size_t>(of); ++i) {
        n += comp[static_cast<InstrId>(i)].opcode == comp[of].opcode;
      }
      return n;
    };
    const size_t place = ordinal(dist_.entry(), flagged);
    for (const Parting& w : walks) {
      if (ordinal(ref_.entry(), w.start) == place) chosen = &w;
    }
  }
  if (chosen == nullptr) return std::nullopt;
  return parting_divergence(flagged, *chosen,
                            "reads reference values, but `" + dist_.entry()[flagged].opcode_text() +
                                "` of them computes a value the reference never computes");
}

std::optional<Divergence> Checker::trace_from(InstrId dist, InstrId ref,
                                              const std::string& symptom) const {
  if (!same_shape_of_op(dist_.entry()[dist], ref_.entry()[ref])) return std::nullopt;
  const Parting p = walk_back(dist, ref, canonical_reference_classes());
  if (p.at == dist && p.why == Parting::Why::kOther) return std::nullopt;
  return parting_divergence(dist, p, symptom);
}

namespace {

/// What sets apart two instructions of one op that read the same values: their attributes
/// (not the value-neutral ones, nor the computations they call, whose names differ between
/// programs), e.g. "its `direction` is GE where the reference's is LT"; "" when none differs.
std::string attribute_difference(const ir::Instruction& d, const ir::Instruction& r) {
  std::vector<std::string> differ;
  auto shown = [](const ir::Attribute& a) {
    return !value_neutral(a.key) && !std::holds_alternative<ir::ComputationRefs>(a.value);
  };
  for (const ir::Attribute& a : d.attrs) {
    if (!shown(a)) continue;
    const ir::Attribute* b = r.attr(a.key);
    const std::string mine = ir::attr_value_to_string(a.value);
    if (!b) {
      differ.push_back("it has `" + a.key + "=" + mine + "`, which the reference's has not");
    } else if (const std::string theirs = ir::attr_value_to_string(b->value); theirs != mine) {
      differ.push_back("its `" + a.key + "` is " + mine + " where the reference's is " + theirs);
    }
  }
  for (const ir::Attribute& b : r.attrs) {
    if (shown(b) && !d.attr(b.key)) {
      differ.push_back("it lacks the reference's `" + b.key + "=" +
                       ir::attr_value_to_string(b.value) + "`");
    }
  }
  std::string out;
  for (size_t i = 0; i < differ.size() && i < 2; ++i) out += (i ? "; " : "") + differ[i];
  return out;
}

}  // namespace

Divergence Checker::parting_divergence(InstrId flagged, const Parting& p,
                                       const std::string& symptom) const {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const ir::Instruction& di = d[p.at];
  const ir::Instruction& ri = r[p.ref_at];
  const auto first_ref = first_reference_nodes();
  auto held_value = [&](InstrId value) -> std::string {
    for (const auto& element : facts_of_[static_cast<size_t>(value)]) {
      for (uint32_t f : element) {
        const auto found = first_ref.find(g_.find(facts_[f].ref));
        if (found != first_ref.end()) return " (the reference's '" + r[found->second].name + "')";
      }
    }
    return "";
  };
  std::string reason =
      "'" + d[flagged].name + "' " + symptom +
      (p.at == flagged ? "; against the reference's '" + ri.name + "': "
                       : "; walking back alongside the reference's '" + r[p.start].name +
                             "', the two programs first part here: ");
  if (p.differ.empty()) {
    const std::string attrs = attribute_difference(di, ri);
    reason += di.operands.empty()
                  ? "this " + di.opcode_text() + " differs from the reference's '" + ri.name + "'"
                  : "`" + di.opcode_text() + "` reads the values the reference's '" + ri.name +
                        "' reads but computes another (" +
                        (attrs.empty() ? "a different constant, window, dimension or permutation"
                                       : attrs) +
                        ")";
  } else if (p.differ.size() == 1) {
    const size_t k = p.differ[0];
    const InstrId dk = di.operands[k], rk = ri.operands[k];
    reason += "operand " + std::to_string(k) + " is '" + d[dk].name + "'" + held_value(dk) +
              " where the reference's '" + ri.name + "' reads '" + r[rk].name + "'";
    switch (p.why) {
      case Parting::Why::kOpMissing:
        reason += ": the reference's `" + r[rk].opcode_text() + "` '" + r[rk].name +
                  "' is missing between them";
        break;
      case Parting::Why::kOpAdded:
        reason += ": '" + d[dk].name + "' (`" + d[dk].opcode_text() +
                  "`) is one op too many between them";
        break;
      default:
        reason += " (the wrong value)";
    }
  } else if (p.why == Parting::Why::kSwapped) {
    const size_t i = p.differ[0], j = p.differ[1];
    reason += "operands " + std::to_string(i) + " and " + std::to_string(j) +
              " are swapped: the reference's '" + ri.name + "' reads '" + r[ri.operands[i]].name +
              "' as operand " + std::to_string(i) + " and '" + r[ri.operands[j]].name +
              "' as operand " + std::to_string(j);
  } else {
    reason += "operands";
    for (size_t k : p.differ) reason += (k == p.differ.front() ? " " : ", ") + std::to_string(k);
    reason += " differ from those the reference's '" + ri.name + "' reads (the wrong values)";
  }
  Divergence out = describe(p.at, std::move(reason));
  out.ref_node = ri.name;
  out.ref_line = ri.pos.line;
  out.by_value = true;
  return out;
}

}  // namespace scalify::verify::detail
