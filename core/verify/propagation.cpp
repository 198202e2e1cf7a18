#include "verify/propagation.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "verify/factor_signature.h"
#include "verify/propagation_internal.h"
#include "verify/term_bridge.h"

namespace scalify::verify {

namespace detail {
std::string quoted(const ir::Instruction& instr) { return "`" + instr.opcode_text() + "`"; }
}  // namespace detail

namespace {

using detail::quoted;
using Kind = Factor::Kind;

std::string operand_says(size_t i, const OperandView& v, const Mesh& mesh) {
  return "operand " + std::to_string(i) + " is " + v.layout.to_string(mesh);
}

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < dims.size(); ++i) p *= dims[i];
  return p;
}

bool is_identity(double v, ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
    case ReduceOp::kMean:
      return v == 0;
    case ReduceOp::kProduct:
      return v == 1;
    case ReduceOp::kMax:
      return std::isinf(v) && v < 0;
    case ReduceOp::kMin:
      return std::isinf(v) && v > 0;
  }
  return false;
}

/// Ops that only move, copy or convert elements: linear for any partial op.
bool moves_data(ir::Opcode op) {
  using ir::Opcode;
  switch (op) {
    case Opcode::kBroadcast:
    case Opcode::kTranspose:
    case Opcode::kSlice:
    case Opcode::kConcatenate:
    case Opcode::kReverse:
    case Opcode::kCopy:
    case Opcode::kConvert:
    case Opcode::kDynamicSlice:
    case Opcode::kCustomCall:
      return true;
    default:
      return false;
  }
}

/// One axis of an op with Partial operands.
std::variant<AxisLayout, NoLift> partial_axis(const ir::Instruction& instr,
                                              const FactorSignature& sig,
                                              std::span<const OperandView> ops, size_t axis,
                                              const Mesh& mesh) {
  size_t first = 0;
  while (!ops[first].layout.axes[axis].is_partial()) ++first;
  const ReduceOp p = ops[first].layout.axes[axis].op;
  const std::string who = operand_says(first, ops[first], mesh);
  const bool sum_like = p == ReduceOp::kSum || p == ReduceOp::kMean;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].layout.axes[axis].is_shard()) {
      return NoLift{who + " but " + operand_says(i, ops[i], mesh) + ": " + quoted(instr) +
                    " cannot combine a partial value with a shard"};
    }
  }
  auto not_linear = [&] {
    return NoLift{who + " and " + quoted(instr) +
                  " is not linear: an all-reduce is missing upstream"};
  };
  // A replicated zero is also a partial sum (every rank adding zero adds nothing).
  auto partial_here = [&](size_t i) {
    const AxisLayout& a = ops[i].layout.axes[axis];
    if (a.is_partial()) return a.op == p;
    return sum_like && ops[i].number && *ops[i].number == 0;
  };
  switch (sig.linearity) {
    case Linearity::kNone:
      return not_linear();
    case Linearity::kAll:
      // Moving data around keeps any partial; adding and summing keep only sums.
      if (!sum_like && !moves_data(instr.opcode)) return not_linear();
      for (size_t i = 0; i < ops.size(); ++i) {
        if (sig.value_operand[i] && !partial_here(i)) {
          if (ops[i].layout.axes[axis].is_partial()) {  // partials of another reduction
            return NoLift{who + " but " + operand_says(i, ops[i], mesh) + ": " + quoted(instr) +
                          " combines parts that make up their values in different ways"};
          }
          return NoLift{who + " but " + operand_says(i, ops[i], mesh) + ": " + quoted(instr) +
                        " adds a replicated value to a partial one on every rank, so it is "
                        "counted " +
                        std::to_string(mesh.size(axis)) + " times"};
        }
        if (!sig.value_operand[i] && !ops[i].layout.axes[axis].is_rep() &&
            !(instr.opcode == ir::Opcode::kReduce && partial_here(i))) {
          return NoLift{operand_says(i, ops[i], mesh) + ": " + quoted(instr) +
                        " needs it replicated"};
        }
      }
      if (instr.opcode == ir::Opcode::kReduce &&
          (!ops[1].number || !is_identity(*ops[1].number, p))) {
        return NoLift{who + " and the reduce's initial value is not the identity of " +
                      std::string(reduce_op_name(p)) + ": it is counted on every rank"};
      }
      break;
    case Linearity::kOne:
    case Linearity::kFirstOnly: {
      if (!sum_like) return not_linear();
      size_t partials = 0;
      for (size_t i = 0; i < ops.size(); ++i) {
        if (ops[i].layout.axes[axis].is_partial()) ++partials;
      }
      if (partials > 1) {
        return NoLift{"operands " + std::to_string(first) +
                      " and another are both partial: " + quoted(instr) +
                      " of two partial sums is not the partial of the product "
                      "(an all-reduce is missing upstream)"};
      }
      if (sig.linearity == Linearity::kFirstOnly && first != 0) {
        return NoLift{who + ": " + quoted(instr) + " is linear only in its first operand"};
      }
      if (instr.opcode == ir::Opcode::kPad && !(ops[1].number && *ops[1].number == 0)) {
        return NoLift{who + " and the pad value is not zero: it would be counted on every rank"};
      }
      break;
    }
    case Linearity::kMonotone:
      if (p != ReduceOp::kMax && p != ReduceOp::kMin) return not_linear();
      {
        const bool is_max =
            instr.opcode == ir::Opcode::kMaximum ||
            std::any_of(sig.factors.begin(), sig.factors.end(), [](const Factor& f) {
              return f.kind == Kind::kReduce && f.op == ReduceOp::kMax;
            });
        if ((p == ReduceOp::kMax) != is_max) return not_linear();
      }
      if (instr.opcode == ir::Opcode::kReduce &&
          (!ops[1].number || !is_identity(*ops[1].number, p))) {
        return NoLift{who + " and the reduce's initial value is not the identity of " +
                      std::string(reduce_op_name(p)) + ": it is counted on every rank"};
      }
      for (size_t i = 0; i < ops.size(); ++i) {
        const AxisLayout& a = ops[i].layout.axes[axis];
        if (!(a.is_rep() || (a.is_partial() && a.op == p))) return not_linear();
      }
      break;
  }
  return AxisLayout::partial(p);
}

/// Whether padding that holds zeros in `zero` of the `carriers` operands still holds zeros after
/// `instr`: a product needs one zero factor, a sum or a data move all of them.
bool keeps_zero_padding(const ir::Instruction& instr, size_t carriers, size_t zero) {
  using ir::Opcode;
  switch (instr.opcode) {
    case Opcode::kMultiply:
    case Opcode::kDot:
      return zero > 0;
    case Opcode::kAdd:
    case Opcode::kSubtract:
    case Opcode::kNegate:
    case Opcode::kMaximum:
    case Opcode::kMinimum:
    case Opcode::kSelect:
    case Opcode::kConcatenate:
    case Opcode::kConvert:
    case Opcode::kCopy:
    case Opcode::kTranspose:
    case Opcode::kBroadcast:
    case Opcode::kSlice:
    case Opcode::kReverse:
    case Opcode::kDynamicSlice:
    case Opcode::kCustomCall:
    case Opcode::kScatter:
    case Opcode::kGather:
      return zero == carriers;
    default:
      return false;
  }
}

/// One axis of an op whose operands are sharded or replicated along it.
std::variant<AxisLayout, NoLift> shard_axis(const ir::Instruction& instr,
                                            const FactorSignature& sig,
                                            std::span<const OperandView> ops, size_t axis,
                                            const Mesh& mesh) {
  int32_t factor = -1;
  int64_t full = -1;
  size_t by = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const AxisLayout& a = ops[i].layout.axes[axis];
    if (!a.is_shard()) continue;
    const auto& dims = sig.operand_factors[i];
    const int32_t f = a.dim >= 0 && static_cast<size_t>(a.dim) < dims.size()
                          ? dims[static_cast<size_t>(a.dim)]
                          : -1;
    if (f < 0) {
      return NoLift{operand_says(i, ops[i], mesh) + ", which " + quoted(instr) + " cannot shard"};
    }
    if (factor >= 0 && f != factor) {
      return NoLift{operand_says(by, ops[by], mesh) + " but " + operand_says(i, ops[i], mesh) +
                    ": their shards do not line up in " + quoted(instr)};
    }
    if (factor >= 0 && a.full != full) {
      return NoLift{operand_says(by, ops[by], mesh) + " but " + operand_says(i, ops[i], mesh) +
                    ": their paddings differ"};
    }
    factor = f;
    full = a.full;
    by = i;
  }
  if (factor < 0) return AxisLayout::rep();
  // Every operand that has the factor must be sharded along it, except a broadcast number,
  // which an elementwise op takes as the scalar it is (the same on every rank and position).
  const bool numbers = takes_numbers(instr.opcode);
  for (size_t i = 0; i < ops.size(); ++i) {
    if (numbers && ops[i].number && ops[i].layout.is_rep()) continue;
    const auto& dims = sig.operand_factors[i];
    const auto at = std::find(dims.begin(), dims.end(), factor);
    if (at == dims.end()) continue;
    const AxisLayout& a = ops[i].layout.axes[axis];
    if (!a.is_shard() || a.dim != static_cast<int32_t>(at - dims.begin())) {
      return NoLift{operand_says(by, ops[by], mesh) + " but " + operand_says(i, ops[i], mesh) +
                    ": " + quoted(instr) + " would combine a shard with the whole value"};
    }
  }
  const Factor& f = sig.factors[static_cast<size_t>(factor)];
  const std::string who = operand_says(by, ops[by], mesh);
  // Which operands carry the sharded factor, and whether their padding holds zeros.
  size_t carriers = 0, zero_carriers = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& dims = sig.operand_factors[i];
    if (std::find(dims.begin(), dims.end(), factor) == dims.end()) continue;
    ++carriers;
    if (ops[i].layout.axes[axis].zero_pad) ++zero_carriers;
  }
  switch (f.kind) {
    case Kind::kPass:
      if (f.result_dim < 0)
        return NoLift{who + ": the sharded dimension has no place in the result"};
      return AxisLayout::shard(f.result_dim, full,
                               full >= 0 && keeps_zero_padding(instr, carriers, zero_carriers));
    case Kind::kReduce: {
      // Summing over padding is right only when the padding adds nothing: some operand of the
      // product (or the summed operand itself) holds zeros there.
      const bool zeros = f.op == ReduceOp::kSum && zero_carriers > 0 &&
                         (instr.opcode == ir::Opcode::kDot || zero_carriers == carriers);
      if (full >= 0 && !zeros) {
        return NoLift{who + ": " + quoted(instr) +
                      " reduces over the padding of uneven shards, which is right only if the "
                      "padding holds zeros"};
      }
      if (instr.opcode == ir::Opcode::kReduce) {
        if (!ops[1].number || !is_identity(*ops[1].number, f.op)) {
          return NoLift{who + " and the reduce's initial value is not the identity of " +
                        std::string(reduce_op_name(f.op)) + ": it is counted on every rank"};
        }
      }
      return AxisLayout::partial(f.op);
    }
    case Kind::kBlocked:
      break;
  }
  return NoLift{who + " but " + quoted(instr) + " moves elements along that dimension (" +
                std::to_string(f.size) + " per rank): the shards no longer line up"};
}

/// The reference form of an instruction whose sharded dims are now whole.
ir::Instruction reference_instruction(const ir::Instruction& instr, const ir::Type& ref_type,
                                      std::span<const OperandView> ops, const ir::Type* operand0) {
  ir::Instruction out = instr;
  out.type = ref_type;
  for (ir::Attribute& a : out.attrs) {
    if (auto* window = std::get_if<std::vector<ir::SliceRange>>(&a.value)) {
      for (size_t d = 0; d < window->size() && d < static_cast<size_t>(ref_type.rank()); ++d) {
        const int64_t local = instr.type.dim(static_cast<int64_t>(d));
        if ((*window)[d].start == 0 && (*window)[d].stride == 1 &&
            ref_type.dim(static_cast<int64_t>(d)) != local) {
          (*window)[d].limit = ref_type.dim(static_cast<int64_t>(d));
        }
      }
    } else if (a.key == "slice_sizes" && !ops.empty() && operand0) {
      // gather: a dim taken whole is taken whole in the reference too.
      if (auto* sizes = std::get_if<ir::DimList>(&a.value)) {
        for (size_t d = 0; d < sizes->size() && d < static_cast<size_t>(operand0->rank()); ++d) {
          if ((*sizes)[d] == operand0->dim(static_cast<int64_t>(d))) {
            (*sizes)[d] = ops[0].ref_type.dim(static_cast<int64_t>(d));
          }
        }
      }
    } else if (a.key == "dynamic_slice_sizes") {
      if (auto* sizes = std::get_if<ir::DimList>(&a.value)) {
        for (size_t d = 0; d < sizes->size() && d < static_cast<size_t>(ref_type.rank()); ++d) {
          (*sizes)[d] = ref_type.dim(static_cast<int64_t>(d));
        }
      }
    }
  }
  return out;
}

/// A reshape of a sharded value: each shard must land whole on one result dim (a rank's slab
/// must be a slab of the result). A local reshape can fit several reference reshapes (a size-1
/// dim of the rank's result may be the one that holds the shard globally); every one that fits
/// is a true fact, and the reference's own terms decide which is useful.
std::variant<std::vector<Lift>, NoLift> lift_reshape(const ir::Instruction& instr,
                                                     const std::vector<int64_t>& instr_operand_dims,
                                                     std::span<const OperandView> ops,
                                                     const Mesh& mesh) {
  constexpr size_t kMaxWays = 4;
  const OperandView& x = ops[0];
  const std::vector<int64_t> in = x.ref_type.dims();  // the reference operand's dims
  std::vector<int64_t> in_partial = in;
  // Undo every shard first (padded extents split evenly), then re-apply them axis by axis.
  for (size_t a = 0; a < mesh.rank(); ++a) {
    const AxisLayout& p = x.layout.axes[a];
    if (p.is_shard()) {
      const size_t k = static_cast<size_t>(p.dim);
      in_partial[k] = instr_operand_dims[k];
    }
  }
  struct Way {
    std::vector<int64_t> out;
    Layout layout;
  };
  std::vector<Way> ways{{instr.type.dims(), Layout::replicated(mesh.rank())}};
  for (size_t a = 0; a < mesh.rank(); ++a) {
    const AxisLayout& p = x.layout.axes[a];
    if (p.is_partial()) {
      for (Way& w : ways) w.layout.axes[a] = p;
      continue;
    }
    if (!p.is_shard()) continue;
    const size_t k = static_cast<size_t>(p.dim);
    in_partial[k] *= mesh.size(a);
    const int64_t outer = product(in_partial, 0, k);
    std::vector<Way> next;
    std::string why;
    for (const Way& w : ways) {
      for (size_t o = 0; o < w.out.size() && next.size() < kMaxWays; ++o) {
        if (product(w.out, 0, o) != outer) continue;
        Way v = w;
        v.out[o] *= mesh.size(a);
        int64_t full = -1;
        if (p.full >= 0) {
          // The padding sits at the end of the sharded dim; after the reshape it must still
          // be a whole number of entries at the end of the new sharded dim.
          const int64_t inner_in = product(in_partial, k + 1, in_partial.size());
          const int64_t inner_out = product(v.out, o + 1, v.out.size());
          if (inner_out == 0 || (p.full * inner_in) % inner_out != 0) {
            why = " but the reshape splits its padding across dimensions";
            continue;
          }
          full = p.full * inner_in / inner_out;
          v.out[o] = full;
        }
        v.layout.axes[a] = AxisLayout::shard(static_cast<int32_t>(o), full, p.zero_pad);
        next.push_back(std::move(v));
      }
    }
    if (next.empty()) {
      return NoLift{operand_says(0, x, mesh) +
                    (why.empty() ? " but the reshape to " + instr.type.to_string(false) +
                                       " moves the sharded factor: no dimension of the result "
                                       "holds exactly the rank's slab"
                                 : why)};
    }
    ways = std::move(next);
  }
  std::vector<Lift> lifts;
  for (const Way& w : ways) {
    if (product(w.out, 0, w.out.size()) != product(in, 0, in.size())) continue;
    Lift l;
    l.layout = w.layout;
    l.ref_type = instr.type;
    l.ref_type.set_dims(w.out);
    l.ref_instr = instr;
    l.ref_instr.type = l.ref_type;
    l.rule = "factor:reshape";
    lifts.push_back(std::move(l));
  }
  if (lifts.empty()) {
    return NoLift{operand_says(0, x, mesh) +
                  " but the reshape changes the element count of the "
                  "reference value"};
  }
  return lifts;
}

}  // namespace

std::variant<std::vector<Lift>, NoLift> lift(const ir::Module& module, const ir::Computation& comp,
                                             const ir::Instruction& instr,
                                             std::span<const OperandView> ops, const Mesh& mesh) {
  if (auto collective = detail::lift_collective(module, instr, ops, mesh)) {
    if (auto* no = std::get_if<NoLift>(&*collective)) return *no;
    return std::vector<Lift>{std::get<Lift>(*collective)};
  }
  // Tokens (I/O ordering) and tuples of anything but the cases above carry nothing the layouts
  // describe: not modelled, so never a divergence.
  if (!instr.type.is_array()) {
    return NoLift{quoted(instr) + " returns a " + instr.type.to_string(false) + " (not modelled)",
                  true};
  }
  if (instr.opcode == ir::Opcode::kPartitionId || instr.opcode == ir::Opcode::kReplicaId) {
    return NoLift{quoted(instr) +
                      " differs on every rank; only its use as a dynamic-slice offset "
                      "is understood (not supported yet)",
                  true};
  }
  if (instr.opcode == ir::Opcode::kReshape ||
      (instr.opcode == ir::Opcode::kBitcast &&
       ir::bitcast_is_reshape(comp[instr.operands[0]].type, instr.type))) {
    return lift_reshape(instr, comp[instr.operands[0]].type.dims(), ops, mesh);
  }
  std::string why;
  auto sig = factor_signature(module, comp, instr, &why);
  const bool all_rep =
      std::all_of(ops.begin(), ops.end(), [](const OperandView& v) { return v.layout.is_rep(); });
  if (!sig) {
    if (!all_rep) {
      for (size_t i = 0; i < ops.size(); ++i) {
        if (!ops[i].layout.is_rep()) {
          return NoLift{operand_says(i, ops[i], mesh) + " and " + quoted(instr) + " (" + why +
                            ") only propagates replicated values",
                        true};
        }
      }
    }
    sig = FactorSignature{};
  }
  std::vector<Lift> lifts = detail::lift_blockwise_dot(instr, ops, mesh);
  Layout result = Layout::replicated(mesh.rank());
  for (size_t a = 0; a < mesh.rank() && !all_rep; ++a) {
    const bool any_partial = std::any_of(ops.begin(), ops.end(), [&](const OperandView& v) {
      return v.layout.axes[a].is_partial();
    });
    auto part = any_partial ? partial_axis(instr, *sig, ops, a, mesh)
                            : shard_axis(instr, *sig, ops, a, mesh);
    if (auto* no = std::get_if<NoLift>(&part)) {
      if (!lifts.empty()) return lifts;
      return *no;
    }
    result.axes[a] = std::get<AxisLayout>(part);
  }
  auto dims = result.reference_dims(instr.type.dims(), mesh);
  if (!dims) return NoLift{"internal: the result layout does not fit the result"};
  Lift l;
  l.layout = result;
  l.ref_type = instr.type;
  l.ref_type.set_dims(*dims);
  l.ref_instr = reference_instruction(
      instr, l.ref_type, ops, instr.operands.empty() ? nullptr : &comp[instr.operands[0]].type);
  l.rule = "factor:" + instr.opcode_text();
  // Identities keep the operand's term.
  if (instr.opcode == ir::Opcode::kCopy || is_identity_call(instr)) {
    l.term = Lift::Term::kOperand;
    l.operand = 0;
  }
  lifts.insert(lifts.begin(), std::move(l));
  return lifts;
}

}  // namespace scalify::verify
