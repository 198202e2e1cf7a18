// The collectives as layout changes: all-reduce (Partial→Rep), all-gather (Shard→Rep),
// reduce-scatter (Partial→Shard), collective-permute (values moved along one axis), and
// all-to-all (a shard moved to another dim), and their asynchronous start/done forms.
#include <algorithm>

#include "verify/propagation_internal.h"
#include "verify/reduce_words.h"
#include "verify/term_bridge.h"

namespace scalify::verify::detail {

namespace {

using ir::Opcode;

std::string says(const OperandView& v, const Mesh& mesh) {
  return "its operand is " + v.layout.to_string(mesh);
}

/// The operand's reference term itself, under a new layout.
Lift keep(Layout layout, const ir::Type& ref_type, std::string rule) {
  Lift l;
  l.layout = std::move(layout);
  l.term = Lift::Term::kOperand;
  l.ref_type = ref_type;
  l.rule = std::move(rule);
  return l;
}

/// all-to-all(x), dimensions={d}: each rank cuts x into n chunks along d, sends chunk j to
/// rank j and joins what it receives along d, in rank order. When x is a shard of X along
/// another dim e, rank r then holds, for every j, block j of e's chunk r of d: a shard along d
/// of X with e's block index moved into d, after d's chunk index and before the chunk.
std::variant<Lift, NoLift> all_to_all(const ir::Instruction& instr, const OperandView& x,
                                      const Mesh& mesh) {
  const std::string name = quoted(instr);
  const ir::DimList& dims = instr.dims_attr("dimensions");
  const auto axes = mesh.axes_of(instr.replica_groups_or_all());
  if (dims.size() != 1 || !axes || axes->size() != 1) {
    return NoLift{name + " over other than one dimension and one mesh axis is not supported yet",
                  true};
  }
  const size_t a = axes->front();
  const auto d = static_cast<int32_t>(dims[0]);
  const int64_t n = mesh.size(a);
  const AxisLayout& p = x.layout.axes[a];
  if (!p.is_shard() || p.dim == d || p.full >= 0) {
    // Real programs do this too (chunks of a replicated value, of the sharded dim itself): what
    // ranks then hold is no layout the checker models, which makes the check inconclusive.
    return NoLift{says(x, mesh) + " and " + name + " over " + mesh.name(a) +
                      " exchanges chunks of dimension " + std::to_string(d) +
                      ": only the exchange of a value sharded evenly along another dimension is "
                      "modelled",
                  true};
  }
  for (size_t b = 0; b < mesh.rank(); ++b) {
    const AxisLayout& q = x.layout.axes[b];
    if (b != a && q.is_shard() && (q.dim == d || q.dim == p.dim)) {
      return NoLift{name + ": those dimensions are also sharded over " + mesh.name(b), true};
    }
  }
  const std::vector<int64_t> ref = x.ref_type.dims();
  const auto e = static_cast<size_t>(p.dim), c = static_cast<size_t>(d);
  if (c >= ref.size() || ref[c] % n != 0) {
    return NoLift{name + ": dimension " + std::to_string(d) + " does not split into " +
                  std::to_string(n) + " chunks"};
  }
  // X with e cut into (n, block) and d into (n, chunk); then d gathers (d's n, e's n, chunk).
  std::vector<int64_t> cut, order, out;
  std::vector<std::vector<int64_t>> at(ref.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    if (k == e || k == c) {
      at[k] = {static_cast<int64_t>(cut.size()), static_cast<int64_t>(cut.size()) + 1};
      cut.push_back(n);
      cut.push_back(ref[k] / n);
    } else {
      at[k] = {static_cast<int64_t>(cut.size())};
      cut.push_back(ref[k]);
    }
  }
  for (size_t k = 0; k < ref.size(); ++k) {
    if (k == e) {
      order.push_back(at[k][1]);
    } else if (k == c) {
      order.insert(order.end(), {at[k][0], at[e][0], at[k][1]});
    } else {
      order.push_back(at[k][0]);
    }
    out.push_back(k == e ? ref[k] / n : k == c ? ref[k] * n : ref[k]);
  }
  auto view = ir::DataView::identity(ref).reshaped(cut);
  if (view) view = view->transposed(order);
  if (view) view = view->reshaped(out);
  if (!view) return NoLift{"internal: the all-to-all view"};
  Lift l = keep(x.layout, x.ref_type, "all-to-all");
  l.layout.axes[a] = AxisLayout::shard(d);
  l.term = Lift::Term::kView;
  l.view = *view;
  l.ref_type = ir::Type::array(x.ref_type.dtype(), out);
  return l;
}

/// The steps along `axis` by which every pair of a collective-permute moves a value: the k
/// with each target at position (its source's position − k) mod n along the axis, so that rank
/// r receives what rank r + k held. nullopt when the pairs are no such rotation.
std::optional<int64_t> ring_shift(const ir::SourceTargetPairs& pairs, const Mesh& mesh,
                                  size_t axis) {
  const int64_t n = mesh.size(axis);
  std::optional<int64_t> shift;
  for (const auto& [from, to] : pairs) {
    const int64_t k = ((mesh.coordinate(from, axis) - mesh.coordinate(to, axis)) % n + n) % n;
    if (shift && *shift != k) return std::nullopt;
    shift = k;
  }
  return shift;
}

/// collective-permute(x): rank t receives rank s's value for each pair (s, t); a rank that
/// receives nothing gets zeros, so every device must receive once. When the pairs move values
/// along one mesh axis only, what x is on the other axes is kept (each rank receives from one
/// with the same coordinates there), and on that axis a replicated value stays replicated and
/// a partial one partial (the ranks of each group still hold the same parts, permuted) — unless
/// another axis is partial too, whose groups the move would mix. A shard passed along a ring
/// (every rank receives from the rank k positions on) is a shard of the value rotated by k
/// blocks (rule `ring-step`).
std::variant<Lift, NoLift> permuted(const ir::Instruction& instr, const OperandView& x,
                                    const Mesh& mesh) {
  const std::string name = quoted(instr);
  const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
  std::vector<int> received(static_cast<size_t>(mesh.device_count()), 0);
  std::vector<int> sent(received.size(), 0);
  std::vector<bool> moves(mesh.rank(), false);
  for (const auto& [from, to] : pairs ? *pairs : ir::SourceTargetPairs{}) {
    if (from < 0 || to < 0 || from >= mesh.device_count() || to >= mesh.device_count()) {
      return NoLift{name + " names a device outside the mesh " + mesh.to_string()};
    }
    ++received[static_cast<size_t>(to)];
    ++sent[static_cast<size_t>(from)];
    for (size_t a = 0; a < mesh.rank(); ++a) {
      moves[a] = moves[a] || mesh.coordinate(from, a) != mesh.coordinate(to, a);
    }
  }
  if (std::any_of(received.begin(), received.end(), [](int n) { return n != 1; })) {
    return NoLift{name + " leaves some ranks without a value (they receive zeros)"};
  }
  // Moves only along axes where x is replicated: every rank receives what it holds.
  bool only_replicated = true;
  for (size_t a = 0; a < mesh.rank(); ++a) {
    only_replicated = only_replicated && (!moves[a] || x.layout.axes[a].is_rep());
  }
  if (only_replicated) return keep(x.layout, x.ref_type, "collective-permute");
  const auto moved = std::count(moves.begin(), moves.end(), true);
  const auto axis =
      static_cast<size_t>(std::find(moves.begin(), moves.end(), true) - moves.begin());
  const AxisLayout& p = x.layout.axes[axis];
  bool other_partial = false;
  for (size_t a = 0; a < mesh.rank(); ++a) {
    other_partial = other_partial || (a != axis && x.layout.axes[a].is_partial());
  }
  // (Each part sent once, or the group's sum would count one twice and drop another.)
  const bool bijective = std::all_of(sent.begin(), sent.end(), [](int n) { return n == 1; });
  if (moved == 1 && p.is_partial() && !other_partial && bijective) {
    return keep(x.layout, x.ref_type, "collective-permute");
  }
  bool dim_shared = false;  // another axis sharding the same dim: blocks within blocks
  for (size_t a = 0; a < mesh.rank(); ++a) {
    dim_shared =
        dim_shared || (a != axis && x.layout.axes[a].is_shard() && x.layout.axes[a].dim == p.dim);
  }
  if (moved == 1 && p.is_shard() && p.full < 0 && !dim_shared && bijective) {
    if (auto shift = ring_shift(*pairs, mesh, axis)) {
      // Rank r now holds block r + shift of the value: block r of it rotated by that many
      // blocks.
      Lift l = keep(x.layout, x.ref_type, "ring-step");
      l.term = Lift::Term::kRotated;
      l.rotation_dim = p.dim;
      l.rotation = *shift * (x.ref_type.dim(p.dim) / mesh.size(axis));
      return l;
    }
  }
  return NoLift{says(x, mesh) + ": " + name + " moves " +
                    (p.is_shard() ? "shards" : "partial values") + " between the ranks of " +
                    mesh.name(axis) + " (not supported yet)",
                true};
}

}  // namespace

std::optional<std::variant<Lift, NoLift>> lift_collective(const ir::Module& module,
                                                          const ir::Instruction& instr,
                                                          std::span<const OperandView> ops,
                                                          const Mesh& mesh) {
  const Opcode op = instr.opcode;
  const std::string name = quoted(instr);
  // The done halves return what their start computed.
  if (op == Opcode::kAllReduceDone || op == Opcode::kAllGatherDone ||
      op == Opcode::kCollectivePermuteDone) {
    if (ops.size() != 1) return NoLift{name + " without its start"};
    return keep(ops[0].layout, ops[0].ref_type, "async-done");
  }
  const bool reduce = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart;
  const bool gather = op == Opcode::kAllGather || op == Opcode::kAllGatherStart;
  const bool scatter = op == Opcode::kReduceScatter;
  const bool permute = op == Opcode::kCollectivePermute || op == Opcode::kCollectivePermuteStart;
  if (op == Opcode::kAllToAll && ops.size() == 1 && instr.type.is_array()) {
    return all_to_all(instr, ops[0], mesh);
  }
  if (op == Opcode::kAllToAll || op == Opcode::kRaggedAllToAll ||
      op == Opcode::kCollectiveBroadcast) {
    return NoLift{name + " is not supported yet", true};
  }
  if (!reduce && !gather && !scatter && !permute) return std::nullopt;
  if (ops.size() != 1) return NoLift{name + " with several operands is checked element by element"};
  if (!instr.type.is_array())
    return NoLift{name + " returning a " + instr.type.to_string(false) + " is not supported yet",
                  true};
  const OperandView& x = ops[0];

  if (permute) return permuted(instr, x, mesh);

  const ir::ReplicaGroups& groups = instr.replica_groups_or_all();
  // A reduction's groups are sets; a gather or scatter's order is the order of the blocks.
  auto axes = mesh.axes_of(groups, !reduce);
  if (!axes) {
    const std::string text = ir::attr_value_to_string(ir::AttrValue(groups));
    if (mesh.axes_of(groups, false)) {
      return NoLift{name + "'s replica groups " + text + " list the devices of mesh axes of " +
                    mesh.to_string() + " out of the order of their positions: its blocks " +
                    "come out permuted"};
    }
    return NoLift{name + "'s replica groups " + text + " are not the groups of any mesh axes of " +
                  mesh.to_string()};
  }
  Layout out = x.layout;
  // Over groups of one device each rank gets back what it gave: the layout is kept, and a
  // partial value that a reduction was to combine stays uncombined.
  auto over_groups_of_one = [&](bool combines, const char* rule) -> std::variant<Lift, NoLift> {
    if (combines && x.layout.has_partial()) {
      return NoLift{says(x, mesh) + " but " + name +
                    " runs over groups of one device and does nothing: the partial values are "
                    "never combined"};
    }
    return keep(out, x.ref_type, rule);
  };

  if (reduce) {
    const auto rop = reducer_op(module, instr);
    if (!rop) return NoLift{name + " with a reducer that is not one sum, max, min or product"};
    if (axes->empty()) return over_groups_of_one(true, "all-reduce (no communication)");
    double copies = 1;  // the sum of equal copies is their number times the value
    for (size_t a : *axes) {
      const AxisLayout& p = x.layout.axes[a];
      if (p.is_partial() && p.op == *rop) {
        out.axes[a] = AxisLayout::rep();
      } else if (p.is_rep() && (*rop == ReduceOp::kMax || *rop == ReduceOp::kMin)) {
        // max over equal values is that value
      } else if (p.is_rep() && *rop == ReduceOp::kSum && ir::is_float(instr.type.dtype())) {
        // Data-parallel training that scales the sum by 1 / N afterwards (torch-xla's
        // `all_reduce(..., scale=1/world_size)` on ranks given the same batch); whether the
        // scale follows is for the values downstream to show.
        copies *= static_cast<double>(mesh.size(a));
      } else if (p.is_rep()) {
        return NoLift{says(x, mesh) + " on " + mesh.name(a) + ": " + name + " " +
                      std::string(reduce_op_verb(*rop)) + " " + std::to_string(mesh.size(a)) +
                      " equal copies (the reference value would be counted " +
                      std::to_string(mesh.size(a)) + " times)"};
      } else {
        return NoLift{says(x, mesh) + ": " + name + " " + std::string(reduce_op_verb(*rop)) +
                      " the ranks' values over " + mesh.name(a) +
                      ", which does not combine it into the whole value"};
      }
    }
    Lift l = keep(out, x.ref_type, copies == 1 ? "all-reduce" : std::string(kSumOfCopies));
    if (copies != 1) {
      l.term = Lift::Term::kScaled;
      l.factor = copies;
    }
    return l;
  }

  const ir::DimList& dims = instr.dims_attr("dimensions");
  const int32_t d = dims.size() == 1 ? static_cast<int32_t>(dims[0]) : -1;
  if (d < 0) return NoLift{name + " without one dimension"};
  if (axes->empty()) {
    return over_groups_of_one(
        scatter, gather ? "all-gather (no communication)" : "reduce-scatter (no communication)");
  }
  if (axes->size() != 1) {
    return NoLift{
        name + " over " + std::to_string(axes->size()) + " mesh axes at once is not supported yet",
        true};
  }
  if (instr.type.rank() == 0) {
    return NoLift{name +
                      " passes a scalar through (torch-xla's ordering token): its value is "
                      "not modelled",
                  true};
  }
  const size_t a = axes->front();
  const AxisLayout& p = x.layout.axes[a];
  if (gather) {
    if (!p.is_shard() || p.dim != d) {
      return NoLift{says(x, mesh) + " but " + name + " gathers dimension " + std::to_string(d) +
                    " over " + mesh.name(a) +
                    (p.is_shard() ? ": the shards are stacked along the wrong dimension" : "")};
    }
    out.axes[a] = AxisLayout::rep();
    ir::Type ref_type = x.ref_type;
    std::vector<int64_t> full = ref_type.dims();
    full[static_cast<size_t>(d)] = instr.type.dim(d);
    if (const auto b = x.layout.minor_shard(a, d)) {
      return NoLift{name + ": dimension " + std::to_string(d) + " is also sharded over " +
                    mesh.name(*b) + ", a minor axis, which must be gathered first"};
    }
    auto ref_dims = out.reference_dims(instr.type.dims(), mesh);
    if (!ref_dims) return NoLift{"internal: all-gather result"};
    ref_type.set_dims(*ref_dims);
    Lift l = keep(out, ref_type, "all-gather");
    if (p.full >= 0 && p.full != instr.type.dim(d)) {
      l.term = Lift::Term::kPadded;
      l.pad_dim = d;
    }
    return l;
  }
  // reduce-scatter
  const auto rop = reducer_op(module, instr);
  if (!p.is_partial() || !rop || p.op != *rop) {
    return NoLift{says(x, mesh) + ": " + name + " over " + mesh.name(a) +
                  " needs a partial value it can reduce"};
  }
  if (const auto b = x.layout.minor_shard(a, d)) {
    return NoLift{name + ": dimension " + std::to_string(d) + " is already sharded over " +
                  mesh.name(*b) + ", a minor axis, whose blocks would end up outside " +
                  mesh.name(a) + "'s"};
  }
  out.axes[a] = AxisLayout::shard(d);
  return keep(out, x.ref_type, "reduce-scatter");
}

}  // namespace scalify::verify::detail
