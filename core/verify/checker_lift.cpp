// Lifting the distributed program node by node: the facts each node gets from its operands'
// (checker_internal.h).
#include <algorithm>
#include <array>

#include "ir/partition_id.h"
#include "verify/checker_internal.h"
#include "verify/factor_signature.h"

namespace scalify::verify::detail {

namespace {

/// The dims a broadcast or iota varies along (its operand's dims; the counting dim): along the
/// others every position holds the same value.
ir::DimList varying_dims(const ir::Instruction& instr) {
  if (const auto* counting = instr.get<int64_t>("iota_dimension")) return {*counting};
  return instr.dims_attr("dimensions");
}

}  // namespace

/// Element `element` of `id` holds what `from` say, as they say it (a tuple, a copy, an
/// element taken out): the same layouts and reference terms, by `rule`.
void Checker::forward_facts(InstrId id, size_t element, std::vector<uint32_t> from,
                            const char* rule) {
  for (uint32_t f : from) {
    Fact copy = facts_[f];
    copy.rule = rule;
    copy.premises = {f};
    copy.apply = false;
    add_fact(id, element, std::move(copy));
  }
}

void Checker::lift_instruction(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  auto& out = facts_of_[static_cast<size_t>(id)];
  if (instr.opcode == ir::Opcode::kParameter) return;
  if (instr.opcode == ir::Opcode::kTuple) {
    for (size_t i = 0; i < instr.operands.size() && i < out.size(); ++i) {
      // A nested tuple (empty ones too) has no facts of its own: only arrays are related.
      const auto& in = facts_of_[static_cast<size_t>(instr.operands[i])];
      if (comp[instr.operands[i]].type.is_tuple() || in.empty()) continue;
      forward_facts(id, i, in[0], "tuple");
    }
    return;
  }
  if (copies_tuple(comp, instr)) {
    const auto& in = facts_of_[static_cast<size_t>(instr.operands[0])];
    for (size_t e = 0; e < in.size() && e < out.size(); ++e) forward_facts(id, e, in[e], "copy");
    return;
  }
  if (instr.opcode == ir::Opcode::kGetTupleElement) {
    const auto* index = instr.get<int64_t>("index");
    const auto& in = facts_of_[static_cast<size_t>(instr.operands[0])];
    if (!index || static_cast<size_t>(*index) >= in.size()) return;
    forward_facts(id, 0, in[static_cast<size_t>(*index)], "get-tuple-element");
    return;
  }
  if (auto why = TermBridge::control_flow_left(instr)) {
    if (lift_loop(id) || lift_conditional(id)) return;
    unsupported_.push_back(instr.name + ": " + *why);
    unmodelled_.push_back(id);
    return;
  }
  // A tuple-valued collective works element by element on its operands.
  const bool elementwise_tuple = instr.type.is_tuple() && ir::is_collective(instr.opcode) &&
                                 instr.operands.size() == instr.type.elements().size();
  const size_t elements = elementwise_tuple ? instr.operands.size() : 1;
  // Index arithmetic on the rank (offsets computed from partition-id) is evaluated per device
  // (rank_values), not related to the reference.
  if (rank_values_[static_cast<size_t>(id)]) return;
  if (instr.opcode == ir::Opcode::kDynamicSlice && lift_slice_by_rank(id)) return;
  if (instr.opcode == ir::Opcode::kSelect && lift_select_by_rank(id)) return;
  if (lift_ring_assembly(id)) return;
  // Known operands: all of them, or (a tuple collective, element by element) at least one.
  auto known = [&](InstrId o) {
    const auto& in = facts_of_[static_cast<size_t>(o)];
    return in.size() == 1 && !in[0].empty();
  };
  const size_t known_count =
      static_cast<size_t>(std::count_if(instr.operands.begin(), instr.operands.end(), known));
  if (known_count < (elementwise_tuple ? size_t{1} : instr.operands.size())) return;
  if (lift_nonzero_guard(id)) return;
  offer_padded_broadcasts(id);
  offer_shard_moves(id);
  offer_dot_moves(id);
  offer_reshape_moves(id);
  if (instr.type.is_tuple() && !elementwise_tuple) {
    lift_replicated_tuple(id);
    return;
  }

  std::optional<NoLift> refusal;
  bool lifted = false;
  // Every fact the operands' combinations give, added best first (a value keeps six).
  struct Candidate {
    size_t element;
    Fact fact;
    Lift lift;
    std::vector<ClassId> refs;
    bool replicated_broadcast;
  };
  std::vector<Candidate> candidates;
  bool blockwise_only = false;  // a dot whose only reading is block by block, left unused
  for (size_t e = 0; e < elements; ++e) {
    ir::Instruction one = instr;
    std::vector<InstrId> operand_ids = instr.operands;
    if (elementwise_tuple) {
      if (!known(instr.operands[e])) continue;
      one.type = instr.type.elements()[e];
      operand_ids = {instr.operands[e]};
    }
    // Every combination of the operands' facts (few: each value keeps at most six).
    std::vector<size_t> pick(operand_ids.size(), 0);
    size_t combos = 0;
    while (combos++ < 64) {
      std::vector<OperandView> views;
      std::vector<uint32_t> premises;
      std::vector<ClassId> refs;
      for (size_t i = 0; i < operand_ids.size(); ++i) {
        const uint32_t f = facts_of_[static_cast<size_t>(operand_ids[i])][0][pick[i]];
        premises.push_back(f);
        refs.push_back(facts_[f].ref);
        views.push_back(operand_view(facts_[f]));
      }
      auto lifted_or = lift(dist_, comp, one, views, mesh_);
      if (auto* lifts = std::get_if<std::vector<Lift>>(&lifted_or)) {
        for (const Lift& l : *lifts) {
          // A dot read block by block is worth a fact only where the reference computes a dot
          // batched alike (attention over heads); elsewhere it only crowds the partial sum.
          if (l.term == Lift::Term::kBlockwise &&
              !ref_types_.count(types_.intern(l.ref_instr.type))) {
            blockwise_only = true;
            continue;
          }
          std::string why;
          auto f = fact_of(instr, l, refs, premises, &why);
          if (!f) {
            if (!refusal) refusal = NoLift{why, true};
            continue;
          }
          lifted = true;
          const bool replicated_broadcast =
              (one.opcode == ir::Opcode::kBroadcast || one.opcode == ir::Opcode::kIota) &&
              f->layout.is_rep() && f->apply;
          candidates.push_back({e, std::move(*f), l, refs, replicated_broadcast});
        }
      } else if (!refusal) {
        refusal = std::get<NoLift>(lifted_or);
      }
      // Next combination.
      size_t i = 0;
      while (i < pick.size()) {
        if (++pick[i] < facts_of_[static_cast<size_t>(operand_ids[i])][0].size()) break;
        pick[i++] = 0;
      }
      if (i == pick.size()) break;
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](const Candidate& a, const Candidate& b) {
                     return likeness(a.fact.ref) < likeness(b.fact.ref);
                   });
  for (const Candidate& c : candidates) {
    add_fact(id, c.element, c.fact);
    if (c.replicated_broadcast) add_broadcast_shards(id, c.lift, c.refs, c.fact);
  }
  if (!lifted && refusal) refuse(id, *refusal);
  if (!lifted && !refusal && blockwise_only) {
    // Each rank multiplies its own blocks of both operands (a column block of a row block in
    // a ring over a column-parallel weight): a block of two dims along one axis, which no
    // layout says; the program may well be right.
    refuse(id, NoLift{"each rank multiplies its own blocks of both operands: the product is a "
                      "block of two of its dims along one mesh axis (not modelled)",
                      true});
  }
  offer_reference_moves(id);
}

/// A shard of a moved value (what an all-to-all leaves: the block index in another dim) that,
/// moved back, is a shard of a reference value is offered that reading (rule `view`), so that
/// the ops after it meet the reference's layout instead of a view no other fact shares.
void Checker::offer_reference_moves(InstrId id) {
  if (facts_of_[static_cast<size_t>(id)].size() != 1) return;
  const std::vector<uint32_t> known = facts_of_[static_cast<size_t>(id)][0];
  for (uint32_t f : known) {
    if (likeness(facts_[f].ref) == 0 || !bridge_.moved_from(facts_[f].ref)) continue;
    const auto t = types_.type(g_.type_of(facts_[f].ref));
    if (!t) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      const AxisLayout& p = facts_[f].layout.axes[a];
      if (!p.is_shard() || p.full >= 0) continue;
      for (int32_t to = 0; to < t->rank(); ++to) {
        if (!moves_to_reference_type(f, a, to)) continue;
        auto v = moved_shard(f, a, to);
        if (v && likeness(v->ref) == 0) add_fact(id, 0, std::move(*v));
      }
    }
  }
}

/// A random op's value is the reference's only by assumption (the same generator on the same
/// state draws the same values): a fact that lands on a reference value says so, and the result
/// states it (state_random_assumptions).
void Checker::random_as_assumption(const ir::Instruction& instr, Fact& f) const {
  const bool random =
      instr.opcode == ir::Opcode::kRngBitGenerator || instr.opcode == ir::Opcode::kRng;
  if (random && likeness(f.ref) == 0) {
    f.rule = "assumption";
    f.premises.clear();
  }
}

/// How much a term looks like the reference's: 0 a reference value itself, 1 a value of a type
/// some reference value has, 2 anything else (a reshape that merged a sharded dim elsewhere).
int Checker::likeness(ClassId term) const {
  if (ref_classes_.count(g_.find(term))) return 0;
  if (ref_types_.count(g_.type_of(term))) return 1;
  return 2;
}

/// `dynamic-slice(x, offsets)` whose offsets depend on the rank: when x is replicated and the
/// offset along one dim is the rank's coordinate on a mesh axis times the slice size (the
/// slice covering the dim as the ranks of that axis go), each rank holds its shard of x
/// (replicated → shard, as XLA's SPMD partitioner writes it). True when it applied.
bool Checker::lift_slice_by_rank(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  if (instr.operands.size() < 2 || !instr.type.is_array()) return false;
  bool by_rank = false;
  for (size_t i = 1; i < instr.operands.size(); ++i) {
    by_rank = by_rank || rank_values_[static_cast<size_t>(instr.operands[i])].has_value();
  }
  if (!by_rank) return false;
  const ir::Type& x = comp[instr.operands[0]].type;
  // Per dim: the offsets per device (constants repeat).
  std::optional<int32_t> dim;
  std::optional<size_t> axis;
  int64_t shift = 0;  // in blocks: rank r takes block r + shift (a ring's step)
  for (size_t i = 1; i < instr.operands.size(); ++i) {
    const auto k = static_cast<int64_t>(i - 1);
    const auto by_device = offsets_by_device(instr.operands[i]);
    if (!by_device) return false;  // an offset the checker cannot evaluate per rank
    const PerDevice& offsets = *by_device;
    const int64_t size = instr.type.dim(k);
    const bool constant_zero =
        std::all_of(offsets.begin(), offsets.end(), [](int64_t v) { return v == 0; });
    if (constant_zero && size == x.dim(k)) continue;
    if (dim) return false;  // two dims move with the rank: not modelled
    for (size_t a = 0; a < mesh_.rank() && !axis; ++a) {
      if (mesh_.size(a) * size != x.dim(k)) continue;
      if (auto q = ring_blocks(offsets, a, size)) {
        axis = a;
        shift = *q;
      }
    }
    if (!axis) {
      const std::string offs = per_device_text(offsets);
      refuse(id, NoLift{"its offsets along dimension " + std::to_string(k) + " are " + offs +
                        " by device: not each rank's shard of " + std::to_string(x.dim(k)) +
                        " in the order of any mesh axis"});
      return true;
    }
    dim = static_cast<int32_t>(k);
  }
  if (!dim) return false;
  bool lifted = false;
  for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[0])][0]) {
    if (!facts_[f].layout.is_rep()) continue;
    Fact fact;
    fact.layout = Layout::on(mesh_, *axis, AxisLayout::shard(*dim));
    fact.ref = bridge_.rotate(facts_[f].ref, *dim, shift * instr.type.dim(*dim));
    fact.rule = "dynamic-slice-by-rank";
    fact.premises = {f};
    lifted = add_fact(id, 0, std::move(fact)) || lifted;
  }
  if (!lifted && !facts_of_[static_cast<size_t>(instr.operands[0])][0].empty()) {
    refuse(id, NoLift{"its offsets take each rank's slice of dimension " + std::to_string(*dim) +
                          ", but operand 0 is not replicated",
                      true});
  }
  return true;
}

std::optional<PerDevice> Checker::offsets_by_device(InstrId o) const {
  if (rank_values_[static_cast<size_t>(o)]) return *rank_values_[static_cast<size_t>(o)];
  // A constant offset: the same on every rank.
  for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
    if (!facts_[f].layout.is_rep()) continue;
    if (const auto c = bridge_.number_value(facts_[f].ref)) {
      return PerDevice(static_cast<size_t>(mesh_.device_count()), static_cast<int64_t>(*c));
    }
  }
  return std::nullopt;
}

std::optional<int64_t> Checker::ring_blocks(const PerDevice& offsets, size_t axis,
                                            int64_t size) const {
  const int64_t n = mesh_.size(axis);
  if (offsets.empty() || size <= 0 || offsets[0] % size != 0) return std::nullopt;
  const int64_t shift = ((offsets[0] / size - mesh_.coordinate(0, axis)) % n + n) % n;
  for (int64_t d = 0; d < mesh_.device_count(); ++d) {
    if (offsets[static_cast<size_t>(d)] != (mesh_.coordinate(d, axis) + shift) % n * size) {
      return std::nullopt;
    }
  }
  return shift;
}

/// dynamic-update-slice(buffer, update, offsets by rank) where the update is a shard of a value
/// rotated by k blocks (rank r holds block r + k: a ring step of a windowed einsum) and each
/// rank writes it at that block's own place: after the steps of one ring have written every
/// block on every rank, each rank holds the whole value (rule `ring-assembly`, replicated). The
/// steps before are remembered per node; the last one, if blocks are left unwritten, is where
/// the ring goes wrong. True when it applied.
bool Checker::lift_ring_assembly(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  if (instr.opcode != ir::Opcode::kDynamicUpdateSlice || instr.operands.size() < 3 ||
      !instr.type.is_array()) {
    return false;
  }
  const InstrId buffer = instr.operands[0], update = instr.operands[1];
  const ir::Type& u = comp[update].type;
  if (!u.is_array() || u.rank() != instr.type.rank() ||
      instr.operands.size() != static_cast<size_t>(u.rank()) + 2) {
    return false;
  }
  // The one dim the rank's offset moves along (every other written whole, at 0).
  std::optional<int32_t> dim;
  PerDevice along;
  bool by_rank = false;
  for (int64_t k = 0; k < u.rank(); ++k) {
    const InstrId o = instr.operands[static_cast<size_t>(k) + 2];
    by_rank = by_rank || rank_values_[static_cast<size_t>(o)].has_value();
    const auto offsets = offsets_by_device(o);
    if (!offsets) return false;
    const bool zero =
        std::all_of(offsets->begin(), offsets->end(), [](int64_t v) { return v == 0; });
    if (zero && u.dim(k) == instr.type.dim(k)) continue;
    if (dim) return false;
    dim = static_cast<int32_t>(k);
    along = *offsets;
  }
  if (!by_rank || !dim) return false;
  const int64_t block = u.dim(*dim), whole = instr.type.dim(*dim);
  const auto& chunks = facts_of_[static_cast<size_t>(update)];
  if (chunks.size() != 1) return false;
  // The value a chunk's term rotates along the dim, and by how many elements (none: 0).
  auto rotated_along = [&](ClassId ref) {
    const auto r = bridge_.rotation_of(ref);
    return r && r->dim == *dim ? std::pair{r->base, r->shift} : std::pair{ref, int64_t{0}};
  };
  bool sharded = false;
  for (uint32_t f : chunks[0]) {
    const Layout& l = facts_[f].layout;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      const AxisLayout& p = l.axes[a];
      if (!p.is_shard() || p.dim != *dim || p.full >= 0) continue;
      sharded = true;
      if (!(l == Layout::on(mesh_, a, p)) || mesh_.size(a) * block != whole) continue;
      const auto [value, shift] = rotated_along(facts_[f].ref);
      const auto t = types_.type(g_.type_of(value));
      if (!t || t->dims() != instr.type.dims() || shift % block != 0) continue;
      if (ring_blocks(along, a, block) != shift / block) continue;
      RingAssembly state;
      if (auto it = assembly_.find(buffer); it != assembly_.end() && it->second.axis == a &&
                                            it->second.dim == *dim &&
                                            g_.find(it->second.value) == g_.find(value)) {
        state = it->second;
      } else {
        state =
            RingAssembly{value, *dim, a, std::vector<bool>(static_cast<size_t>(mesh_.size(a))), {}};
      }
      state.written[static_cast<size_t>(shift / block)] = true;
      state.premises.push_back(f);
      const bool whole_value =
          std::all_of(state.written.begin(), state.written.end(), [](bool w) { return w; });
      if (whole_value) {
        // The buffer and the steps before are overwritten: their values are no suspects.
        InstrId step = id;
        for (size_t k = 0; k < state.premises.size(); ++k) {
          step = comp[step].operands[0];
          overwritten_.push_back(step);
        }
        Fact fact;
        fact.layout = Layout::replicated(mesh_.rank());
        fact.ref = value;
        fact.rule = "ring-assembly";
        fact.premises = state.premises;
        add_fact(id, 0, std::move(fact));
        return true;
      }
      const auto& users = users_of(id);
      const bool continued = std::any_of(users.begin(), users.end(), [&](InstrId v) {
        return comp[v].opcode == ir::Opcode::kDynamicUpdateSlice && comp[v].operands[0] == id;
      });
      if (!continued) {
        std::string missing;
        for (size_t q = 0; q < state.written.size(); ++q) {
          if (!state.written[q]) missing += (missing.empty() ? "r+" : ", r+") + std::to_string(q);
        }
        refuse(id, NoLift{"the ring's updates write only some blocks of dimension " +
                          std::to_string(*dim) + " on each rank r: blocks " + missing + " (mod " +
                          std::to_string(mesh_.size(a)) + ") of " + mesh_.name(a) +
                          " are never written"});
      }
      assembly_[id] = std::move(state);
      return true;
    }
  }
  if (!sharded) return false;
  // A block of a rotation the bridge could not take out of an op (its value is still rotated
  // somewhere inside): which block a rank writes is not known, so nothing is concluded.
  const bool rotated = std::any_of(chunks[0].begin(), chunks[0].end(), [&](uint32_t f) {
    return bridge_.built_on_rotation(facts_[f].ref) && !bridge_.rotation_of(facts_[f].ref);
  });
  if (rotated) {
    refuse(id, NoLift{"it writes a block passed along a ring through an op the checker does "
                      "not follow blocks through (rotated values)",
                      true});
    return true;
  }
  // The first device that writes its block elsewhere, when the block it holds is known.
  std::string first;
  for (uint32_t f : chunks[0]) {
    for (size_t a = 0; a < mesh_.rank() && first.empty(); ++a) {
      const AxisLayout& p = facts_[f].layout.axes[a];
      if (!p.is_shard() || p.dim != *dim || mesh_.size(a) * block != whole) continue;
      const int64_t shift = rotated_along(facts_[f].ref).second / block;
      for (int64_t d = 0; d < mesh_.device_count() && first.empty(); ++d) {
        const int64_t holds = (mesh_.coordinate(d, a) + shift) % mesh_.size(a);
        if (along[static_cast<size_t>(d)] == holds * block) continue;
        const int64_t at = along[static_cast<size_t>(d)];
        first = " (device " + std::to_string(d) + " holds block " + std::to_string(holds) +
                " and writes it at offset " + std::to_string(at) +
                (at % block == 0 ? ", block " + std::to_string(at / block) + "'s place" : "") + ")";
      }
    }
  }
  refuse(id, NoLift{"its offsets along dimension " + std::to_string(*dim) + " are " +
                    per_device_text(along) +
                    " by device: not where the block each rank writes belongs" + first});
  return true;
}

namespace {

/// Whether `id` is zeros: a zero scalar constant, or a broadcast (or reshape, convert, copy)
/// of one.
bool is_zeros(const ir::Computation& comp, InstrId id) {
  for (int hops = 0; hops < 8; ++hops) {
    const ir::Instruction& i = comp[id];
    if (auto v = scalar_value(i)) return *v == 0.0;
    const bool passes = i.opcode == ir::Opcode::kBroadcast || i.opcode == ir::Opcode::kReshape ||
                        i.opcode == ir::Opcode::kConvert || i.opcode == ir::Opcode::kCopy;
    if (!passes || i.operands.size() != 1) return false;
    id = i.operands[0];
  }
  return false;
}

}  // namespace

/// `select(p, a, b)` whose predicate is the same for every element of a rank but depends on
/// the rank (a scalar compare of partition-id, perhaps broadcast): each rank holds a or b.
/// When all pick the same operand, the result is that operand. When the ranks of one
/// coordinate on one mesh axis pick a and the others zeros, the result is a partial sum over
/// that axis of what a is on those ranks: a replicated value, or a padded shard whose first
/// block is the whole reference (torch-xla's FSDP gathers a one-row weight so: rank 0 keeps
/// it, the others zeros, then an all-reduce). True when it applied.
bool Checker::lift_select_by_rank(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  if (instr.operands.size() != 3 || !instr.type.is_array()) return false;
  InstrId p = instr.operands[0];
  for (int hops = 0; hops < 8 && !rank_values_[static_cast<size_t>(p)]; ++hops) {
    const ir::Instruction& b = comp[p];
    const auto* dims = b.get<ir::DimList>("dimensions");
    if (b.opcode != ir::Opcode::kBroadcast || b.operands.size() != 1 ||
        comp[b.operands[0]].type.rank() != 0 || (dims && !dims->empty())) {
      break;
    }
    p = b.operands[0];
  }
  const auto& picks = rank_values_[static_cast<size_t>(p)];
  if (!picks) return false;
  // The select's fact from fact f of an operand: its value, in `layout`.
  auto derive = [&](uint32_t f, Layout layout) {
    Fact fact;
    fact.layout = std::move(layout);
    fact.ref = facts_[f].ref;
    fact.anchored = facts_[f].anchored;
    fact.rule = "select-by-rank";
    fact.premises = {f};
    return add_fact(id, 0, std::move(fact));
  };
  const int64_t devices = mesh_.device_count();
  auto picks_a = [&](int64_t d) { return (*picks)[static_cast<size_t>(d)] != 0; };
  bool all_a = true, all_b = true;
  for (int64_t d = 0; d < devices; ++d) (picks_a(d) ? all_b : all_a) = false;
  if (all_a || all_b) {
    const InstrId from = instr.operands[all_a ? 1 : 2];
    for (uint32_t f : facts_of_[static_cast<size_t>(from)][0]) derive(f, facts_[f].layout);
    return true;
  }
  // The axis and coordinate whose ranks pick a.
  std::optional<std::pair<size_t, int64_t>> chosen;
  for (size_t a = 0; a < mesh_.rank() && !chosen; ++a) {
    for (int64_t c = 0; c < mesh_.size(a) && !chosen; ++c) {
      bool matches = true;
      for (int64_t d = 0; d < devices && matches; ++d) {
        matches = picks_a(d) == (mesh_.coordinate(d, a) == c);
      }
      if (matches) chosen = std::pair{a, c};
    }
  }
  if (!chosen || !is_zeros(comp, instr.operands[2])) {
    refuse(id, NoLift{"the ranks pick its operands by their number, other than one coordinate "
                      "of one mesh axis keeping operand 1 and the others zeros",
                      true});
    return true;
  }
  const auto [axis, coordinate] = *chosen;
  const ir::Type& a_type = comp[instr.operands[1]].type;
  bool lifted = false;
  for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[1])][0]) {
    const Layout& l = facts_[f].layout;
    if (l.has_partial()) continue;  // a part of a sum kept on some ranks only: not modelled
    const AxisLayout& on = l.axes[axis];
    // A padded shard whose first block is the whole reference: that block is the reference.
    const bool first_block_whole = on.is_shard() && coordinate == 0 && on.full >= 0 &&
                                   on.full == a_type.dim(on.dim) &&
                                   l.split(on.dim, mesh_) == mesh_.size(axis);
    if (!on.is_rep() && !first_block_whole) continue;
    Layout kept = l;
    kept.axes[axis] = AxisLayout::partial(ReduceOp::kSum);
    lifted = derive(f, std::move(kept)) || lifted;
  }
  if (!lifted && coordinate != 0) {
    // The reference is the first block of a padded shard, and the ranks keep another: what
    // they keep is padding.
    for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[1])][0]) {
      const Layout& l = facts_[f].layout;
      const AxisLayout& on = l.axes[axis];
      if (l.has_partial() || !on.is_shard() || on.full < 0 || on.full != a_type.dim(on.dim) ||
          l.split(on.dim, mesh_) != mesh_.size(axis)) {
        continue;
      }
      refuse(id, NoLift{"operand 1 is " + l.to_string(mesh_) + ", whose rows of the reference " +
                        "are on coordinate 0 of " + mesh_.name(axis) + ", but the ranks of " +
                        "coordinate " + std::to_string(coordinate) +
                        " keep it: they keep only padding (the mask selects the wrong rank)"});
      return true;
    }
  }
  if (!lifted && !facts_of_[static_cast<size_t>(instr.operands[1])][0].empty()) {
    refuse(id,
           NoLift{"the ranks of " + mesh_.name(axis) + " coordinate " + std::to_string(coordinate) +
                      " keep operand 1 and the others zeros, but operand 1 is neither "
                      "replicated nor a padded shard whose first block is the reference",
                  true});
  }
  return true;
}

/// The fact a lift gives: the reference term built as the lift says.
std::optional<Fact> Checker::fact_of(const ir::Instruction& instr, const Lift& lift,
                                     const std::vector<ClassId>& refs,
                                     const std::vector<uint32_t>& premises, std::string* why) {
  Fact f;
  f.layout = lift.layout;
  f.rule = lift.rule;
  f.premises = premises;
  switch (lift.term) {
    case Lift::Term::kApply: {
      auto enc = bridge_.encode(dist_, lift.ref_instr, refs, lift.ref_type, "dist");
      if (!enc) {
        *why = enc.why;
        return std::nullopt;
      }
      f.ref = *enc.id;
      f.apply = true;
      return f;
    }
    case Lift::Term::kOperand:
      f.ref = refs[lift.operand];
      return f;
    case Lift::Term::kBlockwise: {
      const ClassId parts[] = {bridge_.reshape(refs[0], lift.split[0]),
                               bridge_.reshape(refs[1], lift.split[1])};
      auto enc = bridge_.encode(dist_, lift.ref_instr, parts, lift.ref_instr.type, "dist");
      if (!enc) {
        *why = enc.why;
        return std::nullopt;
      }
      ClassId batched = *enc.id;
      if (!lift.block_order.empty()) {
        std::vector<int64_t> dims;
        for (int64_t k : lift.block_order) dims.push_back(lift.ref_instr.type.dim(k));
        batched = bridge_.transpose(batched, lift.block_order,
                                    ir::Type::array(lift.ref_type.dtype(), dims));
      }
      f.ref = bridge_.reshape(batched, lift.ref_type);
      f.apply = true;
      return f;
    }
    case Lift::Term::kView: {
      const auto t = types_.type(g_.type_of(refs[lift.operand]));
      if (!t || !lift.view) return std::nullopt;
      f.ref = bridge_.view(refs[lift.operand], *lift.view, t->dtype());
      return f;
    }
    case Lift::Term::kRotated:
      f.ref = bridge_.rotate(refs[lift.operand], lift.rotation_dim, lift.rotation);
      return f;
    case Lift::Term::kScaled:
      f.ref = bridge_.scale(refs[lift.operand], lift.factor);
      f.apply = true;  // a value of its own, which the reference may never compute
      return f;
    case Lift::Term::kPadded: {
      // The gathered value is the reference value followed by padding nobody knows.
      const ClassId x = refs[lift.operand];
      auto xt = types_.type(g_.type_of(x));
      if (!xt) return std::nullopt;
      ir::Type pad = lift.ref_type;
      std::vector<int64_t> dims = pad.dims();
      dims[static_cast<size_t>(lift.pad_dim)] -= xt->dim(lift.pad_dim);
      pad.set_dims(dims);
      const ClassId unknown = bridge_.unknown("dist:" + instr.name, pad);
      const std::vector<ClassId> parts{x, unknown};
      f.ref = bridge_.concatenate(parts, lift.pad_dim, lift.ref_type);
      return f;
    }
  }
  return std::nullopt;
}

/// A variadic reduce (an argmax) or a sort of several arrays, whose results have one shape:
/// lifted like one array-valued op (the factor signature of its first result), each element
/// then the reference op's element. nullopt when it lifted or is no such op; else why not.
std::optional<NoLift> Checker::lift_rows_of_tuple(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  const auto& elements = instr.type.elements();
  if (instr.opcode != ir::Opcode::kReduce && instr.opcode != ir::Opcode::kSort) return std::nullopt;
  for (const ir::Type& e : elements) {
    if (!e.is_array() || !e.same_dims(elements[0])) return std::nullopt;
  }
  ir::Instruction one = instr;
  one.type = elements[0];
  // Per fact of the first operand: the others in its layout (an iota beside the values is
  // also a shard of a bigger iota), else replicated (the initial values).
  std::optional<NoLift> refused;
  const auto sig = factor_signature(dist_, comp, one, nullptr);
  for (uint32_t lead : facts_of_[static_cast<size_t>(instr.operands[0])][0]) {
    // A shard of a dim the op runs along: each rank would reduce (or sort) its own block.
    for (size_t a = 0; sig && a < mesh_.rank(); ++a) {
      const AxisLayout& p = facts_[lead].layout.axes[a];
      if (!p.is_shard() || static_cast<size_t>(p.dim) >= sig->operand_factors[0].size()) continue;
      const auto factor = sig->operand_factors[0][static_cast<size_t>(p.dim)];
      if (factor >= 0 && sig->factors[static_cast<size_t>(factor)].kind != Factor::Kind::kPass &&
          !refused) {
        refused = NoLift{"operand 0 is " + facts_[lead].layout.to_string(mesh_) + " and `" +
                         instr.opcode_text() + "` runs along dimension " + std::to_string(p.dim) +
                         ": each rank would combine only its own block (gather it first)"};
      }
    }
    std::vector<OperandView> views;
    std::vector<uint32_t> premises;
    std::vector<ClassId> refs;
    for (InstrId o : instr.operands) {
      const auto& known = facts_of_[static_cast<size_t>(o)][0];
      uint32_t f = known[0];
      for (uint32_t k : known) {
        if (facts_[k].layout == facts_[lead].layout) f = k;
      }
      if (!(facts_[f].layout == facts_[lead].layout)) {
        for (uint32_t k : known) {
          if (facts_[k].layout.is_rep()) f = k;
        }
      }
      premises.push_back(f);
      refs.push_back(facts_[f].ref);
      const auto t = types_.type(g_.type_of(facts_[f].ref));
      views.push_back({facts_[f].layout, t ? *t : ir::Type(), bridge_.number_value(facts_[f].ref)});
    }
    auto lifted = lift(dist_, comp, one, views, mesh_);
    if (auto* no = std::get_if<NoLift>(&lifted)) {
      if (!refused) refused = *no;
      continue;
    }
    if (add_rows_of_tuple(id, std::get<std::vector<Lift>>(lifted), refs, premises)) {
      return std::nullopt;
    }
  }
  return refused;
}

/// The facts of a tuple of rows (lift_rows_of_tuple) from the lifts of its first element.
bool Checker::add_rows_of_tuple(InstrId id, const std::vector<Lift>& lifts,
                                const std::vector<ClassId>& refs,
                                const std::vector<uint32_t>& premises) {
  const ir::Instruction& instr = dist_.entry()[id];
  const auto& elements = instr.type.elements();
  for (const Lift& l : lifts) {
    if (l.term != Lift::Term::kApply) continue;
    std::vector<ir::Type> ref_elements;
    for (const ir::Type& e : elements) {
      ir::Type r = e;
      r.set_dims(l.ref_type.dims());
      ref_elements.push_back(r);
    }
    auto enc = bridge_.encode(dist_, l.ref_instr, refs, ir::Type::tuple(ref_elements), "dist");
    if (!enc) continue;
    for (size_t e = 0; e < elements.size(); ++e) {
      Fact f;
      f.layout = l.layout;
      f.ref = bridge_.get_tuple_element(*enc.id, static_cast<int64_t>(e), ref_elements[e]);
      f.rule = "factor:" + instr.opcode_text();
      f.premises = premises;
      f.apply = true;
      add_fact(id, e, std::move(f));
    }
    return true;
  }
  return false;
}

/// A tuple-valued op (batch-norm-training, sort, rng-bit-generator…) on replicated operands
/// computes the reference's tuple on every rank; anything else is not understood.
void Checker::lift_replicated_tuple(InstrId id) {
  const ir::Instruction& instr = dist_.entry()[id];
  std::vector<ClassId> refs;
  std::vector<uint32_t> premises;
  for (size_t i = 0; i < instr.operands.size(); ++i) {
    std::optional<uint32_t> rep;
    for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[i])][0]) {
      if (facts_[f].layout.is_rep()) {
        rep = f;
        break;
      }
    }
    if (!rep) {
      if (auto rows = lift_rows_of_tuple(id)) {
        refuse(id, *rows);
        return;
      }
      if (!facts_of_[static_cast<size_t>(id)][0].empty()) return;
      const uint32_t f = facts_of_[static_cast<size_t>(instr.operands[i])][0][0];
      refuse(id, NoLift{"operand " + std::to_string(i) + " is " +
                            facts_[f].layout.to_string(mesh_) + " and `" + instr.opcode_text() +
                            "` (returning a tuple) only propagates replicated values",
                        true});
      return;
    }
    refs.push_back(facts_[*rep].ref);
    premises.push_back(*rep);
  }
  auto enc = bridge_.encode(dist_, instr, refs, instr.type, "dist");
  if (!enc) {
    unsupported_.push_back(instr.name + ": " + enc.why);
    unmodelled_.push_back(id);
    return;
  }
  for (size_t e = 0; e < instr.type.elements().size(); ++e) {
    Fact f;
    f.layout = Layout::replicated(mesh_.rank());
    f.ref = bridge_.get_tuple_element(*enc.id, static_cast<int64_t>(e), instr.type.elements()[e]);
    f.rule = "factor:" + instr.opcode_text();
    f.premises = premises;
    f.apply = true;
    add_fact(id, e, std::move(f));
  }
  if (instr.opcode == ir::Opcode::kRngBitGenerator && refs.size() == 1) {
    offer_random_blocks(id, refs[0]);
  }
}

/// A random generator that draws fewer values than the reference's on the same state, one dim
/// divided by a mesh axis's size (each rank drawing for its heads only), relates to the
/// reference's draws only under an assumption: that each rank draws its block of them. The fact
/// says so (rule `assumption`) and the result states it (state_random_assumptions).
void Checker::offer_random_blocks(InstrId id, ClassId state) {
  const ir::Instruction& instr = dist_.entry()[id];
  const ir::Computation& r = ref_.entry();
  if (!instr.type.is_tuple() || instr.type.elements().size() != 2) return;
  const ir::Type& drawn = instr.type.elements()[1];
  for (size_t i = 0; i < r.size(); ++i) {
    const ir::Instruction& ri = r[static_cast<InstrId>(i)];
    if (ri.opcode != ir::Opcode::kRngBitGenerator || ri.operands.size() != 1 ||
        !(ri.attrs == instr.attrs) || ri.type.elements().size() != 2) {
      continue;
    }
    const auto& operand = ref_values_[static_cast<size_t>(ri.operands[0])];
    const auto& values = ref_values_[i];
    if (operand.size() != 1 || !operand[0] || g_.find(*operand[0]) != g_.find(state) ||
        values.size() != 2 || !values[1]) {
      continue;
    }
    const ir::Type& whole = ri.type.elements()[1];
    if (whole.dtype() != drawn.dtype() || whole.rank() != drawn.rank()) continue;
    std::optional<int64_t> dim;
    for (int64_t k = 0; k < whole.rank(); ++k) {
      if (whole.dim(k) == drawn.dim(k)) continue;
      if (dim) {
        dim.reset();
        break;
      }
      dim = k;
    }
    if (!dim) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      if (mesh_.size(a) < 2 || drawn.dim(*dim) * mesh_.size(a) != whole.dim(*dim)) continue;
      Fact f;
      f.layout = Layout::on(mesh_, a, AxisLayout::shard(static_cast<int32_t>(*dim)));
      f.ref = *values[1];
      f.rule = "assumption";
      add_fact(id, 1, std::move(f));
      return;
    }
  }
}

/// A replicated broadcast (or iota) is the same along the dims it creates (does not count
/// along), so each rank's copy is also a shard of the same op to a bigger extent along any of
/// them: the view a sharded operand of the same op needs (a rotary table broadcast over the
/// heads each rank holds, an iota of classes beside a batch-sharded label).
void Checker::add_broadcast_shards(InstrId id, const Lift& lift, const std::vector<ClassId>& refs,
                                   const Fact& rep) {
  const ir::DimList kept = varying_dims(lift.ref_instr);
  for (int64_t k = 0; k < lift.ref_type.rank(); ++k) {
    if (std::find(kept.begin(), kept.end(), k) != kept.end()) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      if (mesh_.size(a) < 2) continue;
      ir::Type wide = lift.ref_type;
      std::vector<int64_t> dims = wide.dims();
      dims[static_cast<size_t>(k)] *= mesh_.size(a);
      wide.set_dims(dims);
      auto enc = bridge_.encode(dist_, lift.ref_instr, refs, wide, "dist");
      if (!enc) continue;
      Fact f = rep;
      f.layout = Layout::on(mesh_, a, AxisLayout::shard(static_cast<int32_t>(k)));
      f.ref = *enc.id;
      f.rule = "broadcast-as-shard";
      add_fact(id, 0, std::move(f));
    }
  }
}

/// The same view for padded shards, made on demand: when an elementwise op meets a padded
/// shard, its replicated broadcast (or iota) operands are also offered as shards padded alike
/// (the reference value is the broadcast to the unpadded extent).
void Checker::offer_padded_broadcasts(InstrId user) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[user];
  if (!takes_numbers(instr.opcode)) return;
  std::vector<std::pair<size_t, AxisLayout>> padded;
  for (InstrId o : instr.operands) {
    for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
      for (size_t a = 0; a < facts_[f].layout.axes.size(); ++a) {
        const AxisLayout& p = facts_[f].layout.axes[a];
        if (p.is_shard() && p.full >= 0) padded.emplace_back(a, AxisLayout::shard(p.dim, p.full));
      }
    }
  }
  for (InstrId o : instr.operands) {
    const ir::Instruction& b = comp[o];
    if (b.opcode != ir::Opcode::kBroadcast && b.opcode != ir::Opcode::kIota) continue;
    std::optional<uint32_t> rep;
    for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
      if (facts_[f].layout.is_rep() && facts_[f].apply) rep = f;
    }
    if (!rep) continue;
    const ir::DimList kept = varying_dims(b);
    std::vector<ClassId> refs;
    for (uint32_t p : facts_[*rep].premises) refs.push_back(facts_[p].ref);
    for (const auto& [axis, part] : padded) {
      if (part.dim >= b.type.rank() ||
          std::find(kept.begin(), kept.end(), part.dim) != kept.end()) {
        continue;
      }
      ir::Type wide = b.type;
      std::vector<int64_t> dims = wide.dims();
      dims[static_cast<size_t>(part.dim)] = part.full;
      wide.set_dims(dims);
      ir::Instruction ref_instr = b;
      ref_instr.type = wide;
      auto enc = bridge_.encode(dist_, ref_instr, refs, wide, "dist");
      if (!enc) continue;
      Fact f = facts_[*rep];
      f.layout = Layout::on(mesh_, axis, part);
      f.ref = *enc.id;
      f.rule = "broadcast-as-shard";
      add_fact(o, 0, std::move(f));
    }
  }
}

/// A shard next to size-1 dims of the rank's value sits on any of them, in a reshaped reference
/// value: shard(2) of X f32[1,1,256,128] is shard(1) of X as f32[1,2,128,128] when the ranks
/// hold f32[1,1,128,128] (a head dim dropped and re-inserted elsewhere). When an elementwise op
/// meets operands sharded along different dims of one axis, each operand is also offered the
/// other dims it can move its shard to (rule `view`).
void Checker::offer_shard_moves(InstrId user) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[user];
  if (!takes_numbers(instr.opcode) || !instr.type.is_array()) return;
  // Per axis: the dims operands shard in a reference-like value (one of a type the reference
  // has), overall and per operand. Where every operand has such a shard along one dim, the
  // operands line up already; else the others are offered a move there.
  std::vector<std::vector<int32_t>> dims(mesh_.rank());
  std::vector<std::vector<std::vector<int32_t>>> per_operand(instr.operands.size(), dims);
  std::vector<bool> sharded(instr.operands.size(), false);
  for (size_t i = 0; i < instr.operands.size(); ++i) {
    for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[i])][0]) {
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        const AxisLayout& p = facts_[f].layout.axes[a];
        if (!p.is_shard()) continue;
        sharded[i] = true;
        if (likeness(facts_[f].ref) > 1) continue;
        if (std::find(dims[a].begin(), dims[a].end(), p.dim) == dims[a].end())
          dims[a].push_back(p.dim);
        per_operand[i][a].push_back(p.dim);
      }
    }
  }
  for (size_t a = 0; a < mesh_.rank(); ++a) {
    for (int32_t d : dims[a]) {
      bool shared = true;
      for (size_t i = 0; i < per_operand.size(); ++i) {
        const auto& has = per_operand[i][a];
        shared = shared && (!sharded[i] || std::find(has.begin(), has.end(), d) != has.end());
      }
      if (shared) {
        dims[a].clear();
        break;
      }
    }
  }
  for (InstrId o : instr.operands) {
    const std::vector<int64_t> local = comp[o].type.dims();
    const std::vector<uint32_t> known = facts_of_[static_cast<size_t>(o)][0];
    for (uint32_t f : known) {
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        const AxisLayout& p = facts_[f].layout.axes[a];
        if (!p.is_shard() || p.full >= 0 || dims[a].empty() || !facts_[f].anchored) continue;
        for (int32_t to : dims[a]) {
          // Only across dims of size 1 on the rank (a head dim dropped and put back elsewhere),
          // or onto a type the reference has (blocks an all-to-all left in another dim): any
          // move is true, but the others only crowd the facts an op combines.
          const int32_t lo = std::min(p.dim, to), hi = std::max(p.dim, to);
          bool ones = true;
          for (int32_t k = lo; k < hi && k < static_cast<int32_t>(local.size()); ++k) {
            ones = ones && local[static_cast<size_t>(k)] == 1;
          }
          if (!ones && !moves_to_reference_type(f, a, to)) continue;
          if (auto v = moved_shard(f, a, to)) add_fact(o, 0, std::move(*v));
        }
      }
    }
  }
}

/// A dot whose operands shard dims that do not pair (the other operand shards a batch or
/// contracting dim, this one another dim): this operand is offered its shard moved onto the dim
/// that pairs with the other's (rule `view`). An all-to-all that hands each rank its experts
/// leaves the expert block index at the front of the token dim; the expert weights shard the
/// expert (batch) dim.
void Checker::offer_dot_moves(InstrId user) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[user];
  if (instr.opcode != ir::Opcode::kDot || instr.operands.size() != 2) return;
  // Paired dims, (lhs, rhs): batch with batch, contracting with contracting.
  std::vector<std::array<int64_t, 2>> pairs;
  for (const auto& [l, r] : {std::pair{"lhs_batch_dims", "rhs_batch_dims"},
                             std::pair{"lhs_contracting_dims", "rhs_contracting_dims"}}) {
    const ir::DimList& ld = instr.dims_attr(l);
    const ir::DimList& rd = instr.dims_attr(r);
    for (size_t k = 0; k < ld.size() && k < rd.size(); ++k) pairs.push_back({ld[k], rd[k]});
  }
  for (size_t side = 0; side < 2; ++side) {
    const InstrId mine = instr.operands[side], theirs = instr.operands[1 - side];
    const std::vector<uint32_t> known = facts_of_[static_cast<size_t>(mine)][0];
    for (uint32_t g : facts_of_[static_cast<size_t>(theirs)][0]) {
      if (likeness(facts_[g].ref) > 1) continue;
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        const AxisLayout& q = facts_[g].layout.axes[a];
        if (!q.is_shard() || q.full >= 0) continue;
        const auto pair = std::find_if(pairs.begin(), pairs.end(),
                                       [&](const auto& p) { return p[1 - side] == q.dim; });
        if (pair == pairs.end()) continue;
        const auto to = static_cast<int32_t>((*pair)[side]);
        for (uint32_t f : known) {
          const AxisLayout& p = facts_[f].layout.axes[a];
          if (!p.is_shard() || p.full >= 0 || p.dim == to || !facts_[f].anchored) continue;
          if (auto v = moved_shard(f, a, to)) add_fact(mine, 0, std::move(*v));
        }
      }
    }
  }
}

/// A reshape that merges a sharded dim into the dim before it as the inner factor (a rank's
/// heads merged with the batch rows, [1,4,32,96] → [1,128,96]) leaves no dim of the result
/// holding the rank's slab. Where every user is a dot that keeps that merged dim free (a
/// batched matmul over the rows, split back after it), the operand is offered its block moved
/// to the front of the merged dim (rule `view`): the reshape then keeps a shard of a view of
/// the reference value, which the bridge takes out of the dot (ir::dot_through). Elsewhere the
/// reshape stays a divergence: heads flattened as the inner factor and contracted by o_proj
/// are a real bug.
void Checker::offer_reshape_moves(InstrId user) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[user];
  if (instr.opcode != ir::Opcode::kReshape || instr.operands.size() != 1 ||
      !instr.type.is_array()) {
    return;
  }
  const InstrId o = instr.operands[0];
  auto lifts = [&](const Fact& f) {
    const OperandView views[] = {operand_view(f)};
    auto out = lift(dist_, comp, instr, views, mesh_);
    auto* l = std::get_if<std::vector<Lift>>(&out);
    return l ? std::move(*l) : std::vector<Lift>{};
  };
  // Whether every user is a dot that keeps result dim `d` free.
  auto free_in_dots = [&](int32_t d) {
    const std::vector<InstrId>& users = users_of(user);
    return !users.empty() && std::all_of(users.begin(), users.end(), [&](InstrId u) {
      const ir::Instruction& dot = comp[u];
      if (dot.opcode != ir::Opcode::kDot || dot.operands.size() != 2) return false;
      for (size_t side = 0; side < 2; ++side) {
        if (dot.operands[side] == user &&
            !ir::dot_result_dim(dot.dims_attr("lhs_batch_dims"),
                                dot.dims_attr("lhs_contracting_dims"),
                                comp[dot.operands[0]].type.rank(), dot.dims_attr("rhs_batch_dims"),
                                dot.dims_attr("rhs_contracting_dims"), side, d)) {
          return false;
        }
      }
      return true;
    });
  };
  // The first operand dim of the run of dims the reshape merges with dim k into one result
  // dim (k itself when it starts one).
  const std::vector<int64_t> in = comp[o].type.dims(), out = instr.type.dims();
  auto merged_from = [&](int32_t k) {
    int64_t before = 1;  // elements of the operand's dims before k
    for (int32_t i = 0; i < k; ++i) before *= in[static_cast<size_t>(i)];
    int64_t start = 1;  // elements of the result's dims before the one k lands in
    for (int64_t d : out) {
      if (start * d > before) break;
      start *= d;
    }
    int32_t first = k;
    int64_t at = before;
    while (first > 0 && at > start) at /= in[static_cast<size_t>(--first)];
    return at == start ? first : k;
  };
  const std::vector<uint32_t> known = facts_of_[static_cast<size_t>(o)][0];
  for (uint32_t f : known) {
    if (!facts_[f].anchored || !lifts(facts_[f]).empty()) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      const AxisLayout& p = facts_[f].layout.axes[a];
      if (!p.is_shard() || p.full >= 0) continue;
      for (int32_t to = merged_from(p.dim); to < p.dim; ++to) {
        auto v = moved_shard(f, a, to);
        if (!v) continue;
        const std::vector<Lift> ways = lifts(*v);
        const bool kept_free = std::any_of(ways.begin(), ways.end(), [&](const Lift& l) {
          return l.layout.axes[a].is_shard() && free_in_dots(l.layout.axes[a].dim);
        });
        if (kept_free) {
          add_fact(o, 0, std::move(*v));
          break;
        }
      }
    }
  }
}

OperandView Checker::operand_view(const Fact& f) const {
  const auto t = types_.type(g_.type_of(f.ref));
  return OperandView{f.layout, t ? *t : ir::Type(), bridge_.number_value(f.ref)};
}

const std::vector<InstrId>& Checker::users_of(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  if (users_.empty()) {
    users_.resize(comp.size());
    for (size_t i = 0; i < comp.size(); ++i) {
      for (InstrId o : comp[static_cast<InstrId>(i)].operands) {
        if (o >= 0 && static_cast<size_t>(o) < comp.size()) {
          auto& list = users_[static_cast<size_t>(o)];
          if (list.empty() || list.back() != static_cast<InstrId>(i)) {
            list.push_back(static_cast<InstrId>(i));
          }
        }
      }
    }
  }
  return users_[static_cast<size_t>(id)];
}

/// Whether fact f's shard along `axis`, moved to dim `to`, is a shard of a value of a type the
/// reference has.
bool Checker::moves_to_reference_type(uint32_t f, size_t axis, int32_t to) {
  const Fact& from = facts_[f];
  const AxisLayout& p = from.layout.axes[axis];
  const auto t = types_.type(g_.type_of(from.ref));
  if (!t || !p.is_shard()) return false;
  const auto view = ir::DataView::block_moved(t->dims(), p.dim, to, mesh_.size(axis));
  return view && ref_types_.count(types_.intern(ir::Type::array(t->dtype(), view->shape))) > 0;
}

/// A shard of a value moved to another dim: the same blocks on every rank, read as a shard of
/// the reference value with the sharded factor (the block index, the major factor of its dim)
/// moved to the front of dim `to`. nullopt when another axis shards either dim, or the shard is
/// padded.
std::optional<Fact> Checker::moved_shard(uint32_t f, size_t axis, int32_t to) {
  const Fact& from = facts_[f];
  const AxisLayout& p = from.layout.axes[axis];
  const auto t = types_.type(g_.type_of(from.ref));
  if (!p.is_shard() || p.full >= 0 || p.dim == to || !t || to < 0 || to >= t->rank()) {
    return std::nullopt;
  }
  for (size_t b = 0; b < mesh_.rank(); ++b) {
    const AxisLayout& q = from.layout.axes[b];
    if (b != axis && q.is_shard() && (q.dim == p.dim || q.dim == to)) return std::nullopt;
  }
  const auto view = ir::DataView::block_moved(t->dims(), p.dim, to, mesh_.size(axis));
  if (!view) return std::nullopt;
  Fact v = from;
  v.layout.axes[axis] = AxisLayout::shard(to);
  v.ref = bridge_.view(from.ref, *view, t->dtype());
  v.rule = "view";
  v.premises = {f};
  v.apply = false;
  return v;
}

/// An output sharded along another dim than the reference output's shape says is offered the
/// move (an all-to-all leaves the block index where the program's reshapes put it).
void Checker::offer_output_moves() {
  const ir::Computation& d = dist_.entry();
  const auto& ref_out = ref_values_[static_cast<size_t>(ref_.entry().root)];
  auto& out = facts_of_[static_cast<size_t>(d.root)];
  for (size_t i = 0; i < ref_out.size(); ++i) {
    const auto e = dist_element(i);
    if (!ref_out[i] || !e || *e >= out.size()) continue;
    const auto want = types_.type(g_.type_of(*ref_out[i]));
    if (!want) continue;
    const std::vector<uint32_t> known = out[*e];
    for (uint32_t f : known) {
      const auto have = types_.type(g_.type_of(facts_[f].ref));
      if (!have || have->dims() == want->dims() || !facts_[f].anchored) continue;
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        for (int32_t to = 0; to < want->rank(); ++to) {
          auto v = moved_shard(f, a, to);
          if (!v) continue;
          const auto moved = types_.type(g_.type_of(v->ref));
          if (moved && moved->dims() == want->dims()) add_fact(d.root, *e, std::move(*v));
        }
      }
    }
  }
}

void Checker::propagate() {
  const ir::Computation& comp = dist_.entry();
  rank_values_ = rank_values(dist_, comp, mesh_);
  for (InstrId p : comp.parameters()) {
    if (p >= 0 && ir::is_partition_id_parameter(comp[p]) && rank_values_[static_cast<size_t>(p)]) {
      result_.notes.push_back(comp[p].name +
                              " is read as the device's partition id (an integer parameter of "
                              "that name, as torch-xla on Neuron passes it): the runtime must "
                              "pass each device its number");
    }
  }
  if (options_.balanced_partials) find_divisors();
  auto order = comp.topological_order();
  if (!order) return;
  for (size_t k = 0; k < order->size(); ++k) {
    lift_instruction((*order)[k]);
    // A node is refused while it is lifted, so the refusal is at position k or before it.
    if (first_refusal_ && k < options_.give_up_before) {
      gave_up_ = true;
      return;
    }
  }
  offer_output_moves();
}

}  // namespace scalify::verify::detail
