#include "verify/factor_signature.h"

#include <algorithm>

#include "ir/neuron_calls.h"
#include "verify/term_bridge.h"

namespace scalify::verify {

namespace {

using ir::Opcode;
using Kind = Factor::Kind;

struct Builder {
  FactorSignature sig;
  int32_t add(Kind kind, int64_t size, int32_t result_dim = -1, ReduceOp op = ReduceOp::kSum) {
    sig.factors.push_back({kind, result_dim, op, size});
    return static_cast<int32_t>(sig.factors.size() - 1);
  }
};

const ir::Type& operand_type(const ir::Computation& comp, const ir::Instruction& instr, size_t i) {
  return comp[instr.operands[i]].type;
}

/// Elementwise over the result's dims; rank-0 operands of a ranked result are broadcast.
FactorSignature elementwise(const ir::Computation& comp, const ir::Instruction& instr) {
  Builder b;
  const int64_t rank = instr.type.rank();
  for (int64_t d = 0; d < rank; ++d) b.add(Kind::kPass, instr.type.dim(d), static_cast<int32_t>(d));
  for (size_t i = 0; i < instr.operands.size(); ++i) {
    const ir::Type& t = operand_type(comp, instr, i);
    std::vector<int32_t> dims;
    if (t.is_array() && t.rank() == rank) {
      for (int64_t d = 0; d < rank; ++d) dims.push_back(static_cast<int32_t>(d));
    }
    b.sig.operand_factors.push_back(std::move(dims));
    b.sig.value_operand.push_back(true);
  }
  b.sig.linearity = Linearity::kAll;
  return b.sig;
}

}  // namespace

std::optional<FactorSignature> factor_signature(const ir::Module& module,
                                                const ir::Computation& comp,
                                                const ir::Instruction& instr, std::string* why) {
  auto refuse = [&](std::string reason) -> std::optional<FactorSignature> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  if (!instr.type.is_array()) return refuse("its result is not an array");
  for (ir::InstrId o : instr.operands) {
    if (!comp[o].type.is_array()) return refuse("an operand is not an array");
  }
  const Opcode op = instr.opcode;
  const std::string name(instr.opcode_text());

  if (ir::is_elementwise(op) || op == Opcode::kCompare || op == Opcode::kConvert ||
      op == Opcode::kSelect || op == Opcode::kClamp || op == Opcode::kReducePrecision) {
    FactorSignature sig = elementwise(comp, instr);
    switch (op) {
      case Opcode::kAdd:
      case Opcode::kSubtract:
      case Opcode::kNegate:
      case Opcode::kCopy:
        break;
      case Opcode::kConvert:
        // Linear over the reals; a conversion to an integer type rounds.
        if (!ir::is_float(instr.type.dtype())) sig.linearity = Linearity::kNone;
        break;
      case Opcode::kMultiply:
        sig.linearity = Linearity::kOne;
        break;
      case Opcode::kDivide:
        sig.linearity = Linearity::kFirstOnly;
        break;
      case Opcode::kMaximum:
      case Opcode::kMinimum:
        sig.linearity = Linearity::kMonotone;
        sig.sum_like = false;
        break;
      case Opcode::kSelect:
        sig.value_operand[0] = false;  // the predicate
        break;
      default:
        sig.linearity = Linearity::kNone;
        break;
    }
    return sig;
  }

  Builder b;
  switch (op) {
    case Opcode::kCustomCall: {
      const auto* target = instr.get<std::string>("custom_call_target");
      if (is_identity_call(instr) && instr.operands.size() == 1) {
        return elementwise(comp, instr);
      }
      if (ir::is_neuron_elementwise_call(instr) &&
          operand_type(comp, instr, 0).same_dims(instr.type)) {
        FactorSignature sig = elementwise(comp, instr);  // GELU: elementwise, not linear
        sig.linearity = Linearity::kNone;
        return sig;
      }
      if (target && *target == "AwsNeuronRmsNorm" && instr.operands.size() == 3) {
        // Normalises along its axis: that axis cannot be sharded; others pass.
        const std::optional<int64_t> found = ir::neuron_rms_norm_axis(instr);
        if (!found) return refuse("an RmsNorm without an axis");
        const int64_t axis = *found;
        std::vector<int32_t> x;
        for (int64_t d = 0; d < instr.type.rank(); ++d) {
          x.push_back(b.add(d == axis ? Kind::kBlocked : Kind::kPass, instr.type.dim(d),
                            static_cast<int32_t>(d)));
        }
        b.sig.operand_factors = {x, {x[static_cast<size_t>(axis)]}, {}};
        b.sig.value_operand = {true, true, true};
        return b.sig;
      }
      return refuse("custom call target '" + (target ? *target : std::string()) +
                    "' has no known semantics");
    }
    case Opcode::kBroadcast: {
      const ir::DimList& dims = instr.dims_attr("dimensions");
      std::vector<int32_t> factor_of_result(static_cast<size_t>(instr.type.rank()), -1);
      for (int64_t d = 0; d < instr.type.rank(); ++d) {
        factor_of_result[static_cast<size_t>(d)] =
            b.add(Kind::kPass, instr.type.dim(d), static_cast<int32_t>(d));
      }
      std::vector<int32_t> x;
      for (int64_t d : dims) x.push_back(factor_of_result[static_cast<size_t>(d)]);
      b.sig.operand_factors = {x};
      b.sig.value_operand = {true};
      b.sig.linearity = Linearity::kAll;
      return b.sig;
    }
    case Opcode::kTranspose: {
      const ir::DimList& perm = instr.dims_attr("dimensions");
      std::vector<int32_t> x(perm.size(), -1);
      for (size_t j = 0; j < perm.size(); ++j) {
        x[static_cast<size_t>(perm[j])] =
            b.add(Kind::kPass, instr.type.dim(static_cast<int64_t>(j)), static_cast<int32_t>(j));
      }
      b.sig.operand_factors = {x};
      b.sig.value_operand = {true};
      b.sig.linearity = Linearity::kAll;
      return b.sig;
    }
    case Opcode::kReverse:
    case Opcode::kSlice:
    case Opcode::kPad:
    case Opcode::kDynamicSlice: {
      // Dims whose extent changes (or is reversed) are blocked; the rest pass.
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::DimList& reversed = instr.dims_attr("dimensions");
      const auto* window = instr.get<std::vector<ir::SliceRange>>("slice");
      std::vector<int32_t> xs;
      for (int64_t d = 0; d < x.rank(); ++d) {
        bool moves = x.dim(d) != instr.type.dim(d);
        if (op == Opcode::kReverse) {
          moves = std::find(reversed.begin(), reversed.end(), d) != reversed.end();
        }
        if (op == Opcode::kSlice && window && static_cast<size_t>(d) < window->size()) {
          const ir::SliceRange& r = (*window)[static_cast<size_t>(d)];
          moves = moves || r.start != 0 || r.stride != 1;
        }
        if (op == Opcode::kPad) moves = true;  // checked per dim below
        xs.push_back(
            b.add(moves ? Kind::kBlocked : Kind::kPass, x.dim(d), static_cast<int32_t>(d)));
      }
      if (op == Opcode::kPad) {
        if (const auto* pad = instr.get<ir::PaddingConfig>("padding")) {
          for (size_t d = 0; d < pad->size() && d < xs.size(); ++d) {
            const ir::PadDim& p = (*pad)[d];
            if (p.low == 0 && p.high == 0 && p.interior == 0) {
              b.sig.factors[static_cast<size_t>(xs[d])].kind = Kind::kPass;
            }
          }
        }
      }
      b.sig.operand_factors.push_back(xs);
      b.sig.value_operand.push_back(true);
      for (size_t i = 1; i < instr.operands.size(); ++i) {
        b.sig.operand_factors.emplace_back();
        b.sig.value_operand.push_back(false);  // pad value, start indices
      }
      b.sig.linearity = op == Opcode::kPad ? Linearity::kFirstOnly : Linearity::kAll;
      return b.sig;
    }
    case Opcode::kConcatenate: {
      const ir::DimList& dims = instr.dims_attr("dimensions");
      const int64_t cat = dims.empty() ? -1 : dims[0];
      std::vector<int32_t> shared;
      for (int64_t d = 0; d < instr.type.rank(); ++d) {
        shared.push_back(d == cat ? -1
                                  : b.add(Kind::kPass, instr.type.dim(d), static_cast<int32_t>(d)));
      }
      for (size_t i = 0; i < instr.operands.size(); ++i) {
        std::vector<int32_t> xs = shared;
        xs[static_cast<size_t>(cat)] =
            b.add(Kind::kBlocked, operand_type(comp, instr, i).dim(cat), static_cast<int32_t>(cat));
        b.sig.operand_factors.push_back(xs);
        b.sig.value_operand.push_back(true);
      }
      b.sig.linearity = Linearity::kAll;
      return b.sig;
    }
    case Opcode::kReduce: {
      const auto rop = reducer_op(module, instr);
      const ir::Type& x = operand_type(comp, instr, 0);
      if (!rop || instr.operands.size() != 2) {
        // Another reducer (an argmax's pair of selects, a variadic reduce): kept dims pass, the
        // reduced ones are blocked (no partial value of such a reducer is modelled).
        const ir::DimList& reduced = instr.dims_attr("dimensions");
        std::vector<int32_t> xs;
        int32_t out = 0;
        for (int64_t d = 0; d < x.rank(); ++d) {
          const bool gone = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
          xs.push_back(b.add(gone ? Kind::kBlocked : Kind::kPass, x.dim(d), gone ? -1 : out++));
        }
        const size_t values = instr.operands.size() / 2;
        for (size_t i = 0; i < instr.operands.size(); ++i) {
          const bool value = i < values && operand_type(comp, instr, i).same_dims(x);
          b.sig.operand_factors.push_back(value ? xs : std::vector<int32_t>{});
          b.sig.value_operand.push_back(i < values);
        }
        return b.sig;
      }
      const ir::DimList& reduced = instr.dims_attr("dimensions");
      std::vector<int32_t> xs;
      int32_t out = 0;
      for (int64_t d = 0; d < x.rank(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) != reduced.end()) {
          xs.push_back(b.add(Kind::kReduce, x.dim(d), -1, *rop));
        } else {
          xs.push_back(b.add(Kind::kPass, x.dim(d), out++));
        }
      }
      b.sig.operand_factors = {xs, {}};
      b.sig.value_operand = {true, false};
      b.sig.linearity = *rop == ReduceOp::kSum                               ? Linearity::kAll
                        : (*rop == ReduceOp::kMax || *rop == ReduceOp::kMin) ? Linearity::kMonotone
                                                                             : Linearity::kNone;
      b.sig.sum_like = *rop == ReduceOp::kSum;
      return b.sig;
    }
    case Opcode::kDot: {
      const ir::Type& l = operand_type(comp, instr, 0);
      const ir::Type& r = operand_type(comp, instr, 1);
      const ir::DimList& lb = instr.dims_attr("lhs_batch_dims");
      const ir::DimList& rb = instr.dims_attr("rhs_batch_dims");
      const ir::DimList& lc = instr.dims_attr("lhs_contracting_dims");
      const ir::DimList& rc = instr.dims_attr("rhs_contracting_dims");
      std::vector<int32_t> ls(static_cast<size_t>(l.rank()), -1),
          rs(static_cast<size_t>(r.rank()), -1);
      int32_t out = 0;
      for (size_t i = 0; i < lb.size() && i < rb.size(); ++i) {
        const int32_t f = b.add(Kind::kPass, l.dim(lb[i]), out++);
        ls[static_cast<size_t>(lb[i])] = f;
        rs[static_cast<size_t>(rb[i])] = f;
      }
      for (int64_t d = 0; d < l.rank(); ++d) {
        const bool contracted = std::find(lc.begin(), lc.end(), d) != lc.end();
        if (ls[static_cast<size_t>(d)] < 0 && !contracted)
          ls[static_cast<size_t>(d)] = b.add(Kind::kPass, l.dim(d), out++);
      }
      for (int64_t d = 0; d < r.rank(); ++d) {
        const bool contracted = std::find(rc.begin(), rc.end(), d) != rc.end();
        if (rs[static_cast<size_t>(d)] < 0 && !contracted)
          rs[static_cast<size_t>(d)] = b.add(Kind::kPass, r.dim(d), out++);
      }
      for (size_t i = 0; i < lc.size() && i < rc.size(); ++i) {
        const int32_t f = b.add(Kind::kReduce, l.dim(lc[i]));
        ls[static_cast<size_t>(lc[i])] = f;
        rs[static_cast<size_t>(rc[i])] = f;
      }
      b.sig.operand_factors = {ls, rs};
      b.sig.value_operand = {true, true};
      b.sig.linearity = Linearity::kOne;
      return b.sig;
    }
    case Opcode::kConvolution: {
      // By the dim labels: the batch passes; the output features pass from the kernel's `o`;
      // the input features (`f` of the input, `i` of the kernel) are summed; a spatial dim
      // passes only under a window of one element (stride one, no padding or dilation), else
      // it is blocked (a shard would need its neighbours' halo). Grouped convolutions keep
      // their features whole.
      const auto* labels = instr.get<ir::ConvDimLabels>("dim_labels");
      if (!labels || instr.operands.size() != 2) break;
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::Type& k = operand_type(comp, instr, 1);
      if (labels->input.size() != static_cast<size_t>(x.rank()) ||
          labels->kernel.size() != static_cast<size_t>(k.rank())) {
        break;
      }
      const auto* window = instr.get<ir::Window>("window");
      const auto* fgc = instr.get<int64_t>("feature_group_count");
      const auto* bgc = instr.get<int64_t>("batch_group_count");
      const bool grouped = (fgc && *fgc != 1) || (bgc && *bgc != 1);
      auto out_pos = [&](char c) {
        const auto at = labels->output.find(c);
        return at == std::string::npos ? -1 : static_cast<int32_t>(at);
      };
      auto trivial = [&](char digit) {
        return window && window->unit(static_cast<size_t>(digit - '0'));
      };
      std::vector<int32_t> xs, ks(static_cast<size_t>(k.rank()), -1);
      int32_t features = -1;
      for (int64_t d = 0; d < x.rank(); ++d) {
        const char c = labels->input[static_cast<size_t>(d)];
        if (c == 'b') {
          xs.push_back(
              b.add(bgc && *bgc != 1 ? Kind::kBlocked : Kind::kPass, x.dim(d), out_pos('b')));
        } else if (c == 'f') {
          features = b.add(grouped ? Kind::kBlocked : Kind::kReduce, x.dim(d));
          xs.push_back(features);
        } else {
          xs.push_back(b.add(trivial(c) ? Kind::kPass : Kind::kBlocked, x.dim(d), out_pos(c)));
        }
      }
      for (int64_t d = 0; d < k.rank(); ++d) {
        const char c = labels->kernel[static_cast<size_t>(d)];
        int32_t& f = ks[static_cast<size_t>(d)];
        if (c == 'i' && features >= 0) {
          f = features;
        } else if (c == 'o') {
          f = b.add(grouped ? Kind::kBlocked : Kind::kPass, k.dim(d), out_pos('f'));
        } else {
          f = b.add(Kind::kBlocked, k.dim(d));
        }
      }
      b.sig.operand_factors = {xs, ks};
      b.sig.value_operand = {true, true};
      b.sig.linearity = Linearity::kOne;
      return b.sig;
    }
    case Opcode::kScatter: {
      // Operand dims the update covers whole (window dims of full extent) pass; the scattered
      // ones are blocked; indices must be replicated.
      if (instr.operands.size() != 3) break;
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::Type& u = operand_type(comp, instr, 2);
      const ir::DimList& window = instr.dims_attr("update_window_dims");
      const ir::DimList& inserted = instr.dims_attr("inserted_window_dims");
      const ir::DimList& batching = instr.dims_attr("input_batching_dims");
      const ir::DimList& to_operand = instr.dims_attr("scatter_dims_to_operand_dims");
      std::vector<int32_t> xs, us(static_cast<size_t>(u.rank()), -1);
      size_t k = 0;
      for (int64_t d = 0; d < x.rank(); ++d) {
        // Inserted and batching dims have no window dim in the update: blocked.
        const bool is_inserted = std::find(inserted.begin(), inserted.end(), d) != inserted.end() ||
                                 std::find(batching.begin(), batching.end(), d) != batching.end();
        const bool indexed = std::find(to_operand.begin(), to_operand.end(), d) != to_operand.end();
        if (is_inserted) {
          xs.push_back(b.add(Kind::kBlocked, x.dim(d)));
          continue;
        }
        const int64_t ud = k < window.size() ? window[k] : -1;
        ++k;
        const bool whole = ud >= 0 && ud < u.rank() && u.dim(ud) == x.dim(d) && !indexed;
        const int32_t f =
            b.add(whole ? Kind::kPass : Kind::kBlocked, x.dim(d), static_cast<int32_t>(d));
        xs.push_back(f);
        if (ud >= 0 && ud < u.rank()) us[static_cast<size_t>(ud)] = f;
      }
      for (int32_t& f : us) {
        if (f < 0) f = b.add(Kind::kBlocked, 0);
      }
      b.sig.operand_factors = {xs, {}, us};
      b.sig.value_operand = {true, false, true};
      return b.sig;
    }
    case Opcode::kDynamicUpdateSlice: {
      // Dims the update covers whole pass (their start is clamped to 0: the same on every
      // rank's shard); the others are blocked; start indices must be replicated.
      if (instr.operands.size() < 2) break;
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::Type& u = operand_type(comp, instr, 1);
      if (u.rank() != x.rank()) break;
      std::vector<int32_t> xs;
      for (int64_t d = 0; d < x.rank(); ++d) {
        const bool whole = u.dim(d) == x.dim(d);
        xs.push_back(
            b.add(whole ? Kind::kPass : Kind::kBlocked, x.dim(d), static_cast<int32_t>(d)));
      }
      b.sig.operand_factors = {xs, xs};
      b.sig.value_operand = {true, true};
      for (size_t i = 2; i < instr.operands.size(); ++i) {
        b.sig.operand_factors.emplace_back();
        b.sig.value_operand.push_back(false);
      }
      b.sig.linearity = Linearity::kAll;  // a sum of updated copies is the updated sum
      return b.sig;
    }
    case Opcode::kGather: {
      // Operand dims gathered whole (not collapsed, not indexed, full slice) pass to their
      // offset dim; the others are blocked; indices must be replicated.
      if (instr.operands.size() != 2) break;
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::DimList& offset = instr.dims_attr("offset_dims");
      const ir::DimList& collapsed = instr.dims_attr("collapsed_slice_dims");
      const ir::DimList& batching = instr.dims_attr("operand_batching_dims");
      const ir::DimList& index_map = instr.dims_attr("start_index_map");
      const ir::DimList& sizes = instr.dims_attr("slice_sizes");
      std::vector<int32_t> xs;
      size_t k = 0;
      for (int64_t d = 0; d < x.rank(); ++d) {
        // Collapsed and batching dims have no offset dim (a batching dim is indexed by the
        // indices' batch position): blocked.
        if (std::find(collapsed.begin(), collapsed.end(), d) != collapsed.end() ||
            std::find(batching.begin(), batching.end(), d) != batching.end()) {
          xs.push_back(b.add(Kind::kBlocked, x.dim(d)));
          continue;
        }
        const int64_t out = k < offset.size() ? offset[k] : -1;
        ++k;
        const bool indexed = std::find(index_map.begin(), index_map.end(), d) != index_map.end();
        const bool whole =
            static_cast<size_t>(d) < sizes.size() && sizes[static_cast<size_t>(d)] == x.dim(d);
        xs.push_back(b.add(whole && !indexed && out >= 0 ? Kind::kPass : Kind::kBlocked, x.dim(d),
                           static_cast<int32_t>(out)));
      }
      b.sig.operand_factors = {xs, {}};
      b.sig.value_operand = {true, false};
      return b.sig;
    }
    case Opcode::kSort:
    case Opcode::kMap:
    case Opcode::kReduceWindow:
    case Opcode::kSelectAndScatter: {
      // Functions of a called computation over windows: a dim no window crosses (a sort's
      // other dims, a map's every dim, a window of one element with stride one and no padding)
      // passes; the others are blocked. Init values must be replicated.
      const ir::Type& x = operand_type(comp, instr, 0);
      const ir::DimList& sorted = instr.dims_attr("dimensions");
      const auto* window = instr.get<ir::Window>("window");
      auto crossed = [&](int64_t d) {
        if (op == Opcode::kMap) return false;
        if (op == Opcode::kSort) return std::find(sorted.begin(), sorted.end(), d) != sorted.end();
        return !window || !window->unit(static_cast<size_t>(d));
      };
      if (x.rank() != instr.type.rank()) return refuse("its result has another rank");
      std::vector<int32_t> xs;
      for (int64_t d = 0; d < x.rank(); ++d) {
        xs.push_back(
            b.add(crossed(d) ? Kind::kBlocked : Kind::kPass, x.dim(d), static_cast<int32_t>(d)));
      }
      // Values: a map's and a sort's operands, a reduce-window's first half, a
      // select-and-scatter's operand and source (same dims when the window is one element).
      const size_t values = op == Opcode::kMap || op == Opcode::kSort ? instr.operands.size()
                            : op == Opcode::kReduceWindow             ? instr.operands.size() / 2
                                                                      : 2;
      for (size_t i = 0; i < instr.operands.size(); ++i) {
        const bool value = i < values;
        const ir::Type& t = operand_type(comp, instr, i);
        std::vector<int32_t> ts;
        for (int64_t d = 0; value && d < t.rank(); ++d) {
          // (A select-and-scatter's source has one entry per window.)
          const bool same = d < x.rank() && t.dim(d) == x.dim(d);
          ts.push_back(same ? xs[static_cast<size_t>(d)] : b.add(Kind::kBlocked, t.dim(d)));
        }
        b.sig.operand_factors.push_back(std::move(ts));
        b.sig.value_operand.push_back(value);
      }
      return b.sig;
    }
    case Opcode::kIota:
    case Opcode::kConstant:
      for (int64_t d = 0; d < instr.type.rank(); ++d)
        b.add(Kind::kPass, instr.type.dim(d), static_cast<int32_t>(d));
      return b.sig;
    default:
      break;
  }
  // Any other op: every operand dim blocked (only replicated operands propagate).
  for (size_t i = 0; i < instr.operands.size(); ++i) {
    std::vector<int32_t> xs;
    const ir::Type& t = operand_type(comp, instr, i);
    for (int64_t d = 0; d < t.rank(); ++d) xs.push_back(b.add(Kind::kBlocked, t.dim(d)));
    b.sig.operand_factors.push_back(xs);
    b.sig.value_operand.push_back(true);
  }
  return b.sig;
}

}  // namespace scalify::verify
