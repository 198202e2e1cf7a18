// The collectives as layout changes: all-reduce (Partial→Rep), all-gather (Shard→Rep),
// reduce-scatter (Partial→Shard), collective-permute (a permutation of replicated values), and
// their asynchronous start/done forms.
#include <algorithm>

#include "verify/propagation_internal.h"
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

  if (permute) {
    // Every rank receives some rank's value: a replicated value stays replicated. A rank that
    // receives nothing gets zeros, so the pairs must cover every device.
    const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
    std::vector<bool> receives(static_cast<size_t>(mesh.device_count()), false);
    if (pairs) {
      for (const auto& [from, to] : *pairs) {
        if (to >= 0 && to < mesh.device_count()) receives[static_cast<size_t>(to)] = true;
      }
    }
    if (!x.layout.is_rep()) {
      return NoLift{says(x, mesh) + ": " + name + " moves shards between ranks (not supported yet)",
                    true};
    }
    if (std::find(receives.begin(), receives.end(), false) != receives.end()) {
      return NoLift{name + " leaves some ranks without a value (they receive zeros)"};
    }
    return keep(x.layout, x.ref_type, "collective-permute");
  }

  const ir::ReplicaGroups empty;
  const ir::ReplicaGroups* groups = instr.replica_groups();
  auto axes = mesh.axes_of(groups ? *groups : empty);
  if (!axes) {
    return NoLift{name + "'s replica groups " +
                  ir::attr_value_to_string(groups ? ir::AttrValue(*groups) : ir::AttrValue(empty)) +
                  " are not the groups of any mesh axes of " + mesh.to_string()};
  }
  Layout out = x.layout;

  if (reduce) {
    const auto rop = reducer_op(module, instr);
    if (!rop) return NoLift{name + " with a reducer that is not one sum, max, min or product"};
    if (axes->empty()) {
      if (x.layout.has_partial()) {
        return NoLift{says(x, mesh) + " but " + name +
                      " runs over groups of one device and does "
                      "nothing: the partial values are never combined"};
      }
      return keep(out, x.ref_type, "all-reduce (no communication)");
    }
    for (size_t a : *axes) {
      const AxisLayout& p = x.layout.axes[a];
      if (p.is_partial() && p.op == *rop) {
        out.axes[a] = AxisLayout::rep();
      } else if (p.is_rep() && (*rop == ReduceOp::kMax || *rop == ReduceOp::kMin)) {
        // max over equal values is that value
      } else if (p.is_rep()) {
        return NoLift{says(x, mesh) + " on " + mesh.name(a) + ": " + name + " " +
                      std::string(reduce_op_name(*rop)) + "s " + std::to_string(mesh.size(a)) +
                      " equal copies (the reference value would be counted " +
                      std::to_string(mesh.size(a)) + " times)"};
      } else {
        return NoLift{says(x, mesh) + ": " + name + " " + std::string(reduce_op_name(*rop)) +
                      "s over " + mesh.name(a) +
                      ", which does not combine it into the whole value"};
      }
    }
    return keep(out, x.ref_type, "all-reduce");
  }

  const ir::DimList& dims = instr.dims_attr("dimensions");
  const int32_t d = dims.size() == 1 ? static_cast<int32_t>(dims[0]) : -1;
  if (d < 0) return NoLift{name + " without one dimension"};
  if (axes->size() != 1) {
    return NoLift{
        name + " over " + std::to_string(axes->size()) + " mesh axes at once is not supported yet",
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
    for (size_t b = 0; b < mesh.rank(); ++b) {
      if (b != a && out.axes[b].is_shard() && out.axes[b].dim == d) {
        return NoLift{name + ": dimension " + std::to_string(d) + " is also sharded over " +
                      mesh.name(b)};
      }
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
  for (size_t b = 0; b < mesh.rank(); ++b) {
    if (x.layout.axes[b].is_shard() && x.layout.axes[b].dim == d) {
      return NoLift{name + ": dimension " + std::to_string(d) + " is already sharded"};
    }
  }
  out.axes[a] = AxisLayout::shard(d);
  return keep(out, x.ref_type, "reduce-scatter");
}

}  // namespace scalify::verify::detail
