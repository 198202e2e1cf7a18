// The proof checker's layout kernel (layout_steps.h, step_kernel.h): the step's dispatch and the
// value ops. Every op family states, per mesh axis, which operand layouts give which result
// layout; anything else is refused with the reason. Indexing ops: layout_steps_indexing.cpp.
#include "proofcheck/layout_steps.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "ir/neuron_calls.h"
#include "proofcheck/step_kernel.h"

namespace scalify::proofcheck {

using verify::ReduceOp;

namespace {

bool in(std::string_view op, std::initializer_list<std::string_view> ops) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

bool is_elementwise(std::string_view op) {
  return in(op, {"add",
                 "subtract",
                 "multiply",
                 "divide",
                 "maximum",
                 "minimum",
                 "power",
                 "remainder",
                 "atan2",
                 "and",
                 "or",
                 "xor",
                 "compare",
                 "select",
                 "clamp",
                 "negate",
                 "exponential",
                 "exponential-minus-one",
                 "log",
                 "log-plus-one",
                 "tanh",
                 "logistic",
                 "sqrt",
                 "rsqrt",
                 "cbrt",
                 "abs",
                 "sign",
                 "floor",
                 "ceil",
                 "round-nearest-afz",
                 "round-nearest-even",
                 "cosine",
                 "sine",
                 "tan",
                 "not",
                 "convert",
                 "copy",
                 "is-finite",
                 "erf",
                 "reduce-precision",
                 "shift-left",
                 "shift-right-logical",
                 "shift-right-arithmetic",
                 "popcnt",
                 "count-leading-zeros"});
}

}  // namespace

std::optional<ReduceOp> reduction_of(const ir::Module& module, const ir::Instruction& instr) {
  const auto* refs = instr.get<ir::ComputationRefs>("to_apply");
  if (!refs || refs->names.size() != 1) return std::nullopt;
  const auto id = module.find_computation(refs->names[0]);
  if (!id) return std::nullopt;
  const ir::Computation& c = module.computations[static_cast<size_t>(*id)];
  if (c.root < 0) return std::nullopt;
  const ir::Instruction& root = c[c.root];
  if (root.operands.size() != 2) return std::nullopt;
  for (ir::InstrId o : root.operands) {
    if (c[o].opcode != ir::Opcode::kParameter) return std::nullopt;
  }
  if (root.operands[0] == root.operands[1]) return std::nullopt;
  switch (root.opcode) {
    case ir::Opcode::kAdd:
      return ReduceOp::kSum;
    case ir::Opcode::kMaximum:
      return ReduceOp::kMax;
    case ir::Opcode::kMinimum:
      return ReduceOp::kMin;
    case ir::Opcode::kMultiply:
      return ReduceOp::kProduct;
    default:
      return std::nullopt;
  }
}

namespace {

bool is_identity(ReduceOp op, std::optional<double> v) {
  if (!v) return false;
  switch (op) {
    case ReduceOp::kSum:
      return *v == 0;
    case ReduceOp::kProduct:
      return *v == 1;
    case ReduceOp::kMax:
      return *v <= -3.4e38;
    case ReduceOp::kMin:
      return *v >= 3.4e38;
    case ReduceOp::kMean:
      return false;
  }
  return false;
}

}  // namespace

namespace detail {

StepCheck Kernel::run() {
  const std::string op = term_op(s_.dist, s_.instr);
  if (is_elementwise(op)) return elementwise(op);
  if (op == "broadcast" || op == "iota") return broadcast(op);
  if (op == "transpose") return transpose();
  if (op == "reshape") return reshape();
  if (op == "dot") return dot();
  if (op == "convolution") return convolution();
  if (op == "reduce") return reduce();
  if (op == "slice") return slice();
  if (op == "concatenate") return concatenate();
  if (op == "scatter") return scatter();
  if (op == "pad") return pad();
  if (op == "reverse") return reverse();
  if (op == "dynamic-slice") return dynamic_slice();
  if (op == "dynamic-update-slice") return dynamic_update_slice();
  if (op == "gather") return gather();
  if (op == "sort" || op == "map" || op == "reduce-window" || op == "select-and-scatter") {
    return windowed(op);
  }
  if (ir::is_neuron_elementwise_call(s_.instr)) return elementwise("custom-call");
  if (const auto axis = ir::neuron_rms_norm_axis(s_.instr)) return rms_norm(*axis);
  return unsupported("the proof checker has no rule for `" + op +
                     "` on values that are not "
                     "replicated");
}

StepCheck Kernel::elementwise(const std::string& op) {
  const size_t n = s_.instr.operands.size();
  auto splat = [&](size_t i) { return term(i).splat.has_value() && s_.layouts[i].is_rep(); };
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (q.is_rep()) {
      for (size_t i = 0; i < n; ++i) {
        if (!operand(i, a).is_rep()) return refuse(said(i, a) + " but " + claim(a) + " is rep");
      }
    } else if (q.is_shard()) {
      bool all_zero = true;
      for (size_t i = 0; i < n; ++i) {
        if (splat(i) || term(i).type.rank() == 0) {
          all_zero = all_zero && term(i).splat == 0.0;
          continue;
        }
        const AxisLayout& p = operand(i, a);
        if (!p.is_shard() || p.dim != q.dim || p.full != q.full) {
          return refuse(said(i, a) + ": `" + op + "` keeps positions, so " + claim(a) +
                        " needs every operand sharded alike");
        }
        all_zero = all_zero && p.zero_pad;
      }
      const bool keeps_zero =
          in(op, {"add", "subtract", "negate", "convert", "copy", "maximum", "minimum"});
      bool one_zero = false;
      for (size_t i = 0; i < n; ++i) {
        one_zero = one_zero || (!splat(i) && operand(i, a).zero_pad) || term(i).splat == 0.0;
      }
      if (q.zero_pad && !((keeps_zero && all_zero) || (op == "multiply" && one_zero))) {
        return refuse(claim(a) + " says the padding holds zeros, which `" + op +
                      "` of these operands does not keep");
      }
    } else {
      std::vector<size_t> partial;
      for (size_t i = 0; i < n; ++i) {
        const AxisLayout& p = operand(i, a);
        if (p.is_partial()) {
          if (p.op != q.op) return refuse(said(i, a) + ", not " + claim(a));
          partial.push_back(i);
        } else if (!p.is_rep()) {
          return refuse(said(i, a) + ": a shard does not give " + claim(a));
        }
      }
      const bool sum = q.op == ReduceOp::kSum;
      const bool ok = (in(op, {"copy", "convert"}) && partial.size() == 1) ||
                      (sum && op == "negate" && partial.size() == 1) ||
                      (sum && in(op, {"add", "subtract"}) && partial.size() == n) ||
                      (sum && op == "multiply" && partial.size() == 1) ||
                      (sum && op == "divide" && partial == std::vector<size_t>{0}) ||
                      (sum && op == "select" && partial == std::vector<size_t>{1, 2}) ||
                      (q.op == ReduceOp::kMax && op == "maximum" && partial.size() == n) ||
                      (q.op == ReduceOp::kMin && op == "minimum" && partial.size() == n);
      if (!ok) {
        return refuse("`" + op + "` of these operands is not " + claim(a) +
                      ": the partial values do not combine through it");
      }
    }
  }
  std::vector<TermId> args;
  for (size_t i = 0; i < n; ++i) {
    TermId t = s_.terms[i];
    if (term(i).type.rank() != 0 && !term(i).type.same_dims(type_)) {
      if (!splat(i)) {
        return refuse("operand " + std::to_string(i) + " stands for a reference value of shape " +
                      term(i).type.to_string(false) + ", the result for " + type_.to_string(false));
      }
      t = terms_.resized_splat(t, type_.dims());
    }
    args.push_back(t);
  }
  return {make(std::move(args)), ""};
}

StepCheck Kernel::broadcast(const std::string& op) {
  const auto* counting = s_.instr.get<int64_t>("iota_dimension");
  if (op == "iota" && !counting) return refuse("an iota without its dimension");
  const ir::DimList kept = op == "iota" ? ir::DimList{*counting} : s_.instr.dims_attr("dimensions");
  const bool has_operand = !s_.instr.operands.empty();
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout p = has_operand ? operand(0, a) : AxisLayout::rep();
    if (q.is_rep() || q.is_partial()) {
      if (!(p == q)) {
        return refuse((has_operand ? said(0, a) : "an iota is the same on every rank") + ", not " +
                      claim(a));
      }
      continue;
    }
    const auto at = std::find(kept.begin(), kept.end(), q.dim);
    if (at == kept.end()) {
      // A new dim: every position along it holds the same value, any block of it too.
      const bool zeros = has_operand && term(0).splat == 0.0;
      if (!p.is_rep() || (q.zero_pad && !zeros)) {
        return refuse("`" + op + "` makes dimension " + std::to_string(q.dim) +
                      " by repeating its operand; " + claim(a) + " needs it replicated");
      }
      continue;
    }
    if (op == "iota") return refuse("an iota counts along dimension " + std::to_string(q.dim));
    const auto j = static_cast<int32_t>(at - kept.begin());
    if (!p.is_shard() || p.dim != j || p.full != q.full || (q.zero_pad && !p.zero_pad)) {
      return refuse(said(0, a) + " but " + claim(a) + " needs dimension " + std::to_string(j) +
                    " of it sharded");
    }
  }
  std::vector<TermId> args(s_.terms.begin(), s_.terms.end());
  return {make(std::move(args)), ""};
}

StepCheck Kernel::transpose() {
  const ir::DimList& perm = s_.instr.dims_attr("dimensions");
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    AxisLayout want = operand(0, a);
    if (want.is_shard()) {
      const auto at = std::find(perm.begin(), perm.end(), want.dim);
      if (at == perm.end()) return refuse("bad transpose");
      want.dim = static_cast<int32_t>(at - perm.begin());
    }
    if (!(want == q)) {
      return refuse(said(0, a) + ": the transpose makes it " + text(want, a, s_.mesh) + ", not " +
                    text(q, a, s_.mesh));
    }
  }
  return {make({s_.terms[0]}), ""};
}

StepCheck Kernel::reshape() {
  const std::vector<int64_t>& from = term(0).type.dims();
  const std::vector<int64_t>& to = type_.dims();
  if (term(0).type.element_count() != type_.element_count()) {
    return refuse("the reshape of a reference value of shape " + term(0).type.to_string(false) +
                  " cannot give shape " + type_.to_string(false));
  }
  auto product = [](const std::vector<int64_t>& d, size_t from_dim, size_t to_dim) {
    return std::accumulate(d.begin() + static_cast<long>(from_dim),
                           d.begin() + static_cast<long>(to_dim), int64_t{1}, std::multiplies<>());
  };
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout& p = operand(0, a);
    if (!p.is_shard() || !q.is_shard()) {
      if (!(p == q)) return refuse(said(0, a) + " but " + claim(a));
      continue;
    }
    const auto d = static_cast<size_t>(p.dim), e = static_cast<size_t>(q.dim);
    // Rank r's block is the same run of the flattened value on both sides when the dims
    // before the sharded one hold as many elements. Padded shards: the same holds of the
    // padded values, and the reference is their first elements on both sides (the element
    // counts being equal, the unpadded parts end at the same place).
    const bool same = product(from, 0, d) == product(to, 0, e) && (p.full < 0) == (q.full < 0) &&
                      (!q.zero_pad || p.zero_pad);
    if (!same) {
      return refuse(said(0, a) + ": the reshape to " + type_.to_string(false) +
                    " does not keep each rank's block in one piece as " + claim(a));
    }
  }
  return {make({s_.terms[0]}), ""};
}

StepCheck Kernel::dot() {
  if (auto blocks = blockwise_dot()) return *blocks;
  const ir::DimList& lb = s_.instr.dims_attr("lhs_batch_dims");
  const ir::DimList& rb = s_.instr.dims_attr("rhs_batch_dims");
  const ir::DimList& lc = s_.instr.dims_attr("lhs_contracting_dims");
  const ir::DimList& rc = s_.instr.dims_attr("rhs_contracting_dims");
  const int64_t lrank = term(0).type.rank(), rrank = term(1).type.rank();
  // Result position of each operand dim, -1 when contracted.
  auto positions = [&](int64_t rank, const ir::DimList& batch, const ir::DimList& contract,
                       int64_t first_free) {
    std::vector<int64_t> pos(static_cast<size_t>(rank), -1);
    for (size_t j = 0; j < batch.size(); ++j) pos[static_cast<size_t>(batch[j])] = int64_t(j);
    int64_t next = first_free;
    for (int64_t k = 0; k < rank; ++k) {
      const bool bound = std::find(batch.begin(), batch.end(), k) != batch.end() ||
                         std::find(contract.begin(), contract.end(), k) != contract.end();
      if (!bound) pos[static_cast<size_t>(k)] = next++;
    }
    return pos;
  };
  const auto lpos = positions(lrank, lb, lc, static_cast<int64_t>(lb.size()));
  const int64_t lfree = lrank - static_cast<int64_t>(lb.size() + lc.size());
  const auto rpos = positions(rrank, rb, rc, static_cast<int64_t>(lb.size()) + lfree);
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout& l = operand(0, a);
    const AxisLayout& r = operand(1, a);
    bool ok = false;
    if (l.is_rep() && r.is_rep()) {
      ok = q.is_rep();
    } else if (l.is_partial() || r.is_partial()) {
      const AxisLayout& other = l.is_partial() ? r : l;
      const AxisLayout& part = l.is_partial() ? l : r;
      ok = other.is_rep() && part.op == ReduceOp::kSum && q.is_partial() && q.op == ReduceOp::kSum;
    } else if (l.is_shard() && r.is_shard()) {
      const auto li = std::find(lc.begin(), lc.end(), l.dim) - lc.begin();
      const auto ri = std::find(rc.begin(), rc.end(), r.dim) - rc.begin();
      const auto lbi = std::find(lb.begin(), lb.end(), l.dim) - lb.begin();
      const auto rbi = std::find(rb.begin(), rb.end(), r.dim) - rb.begin();
      if (li < static_cast<long>(lc.size()) && li == ri && l.full == r.full) {
        // Both halves of one contraction: each rank sums its part of it.
        ok = q.is_partial() && q.op == ReduceOp::kSum && (l.full < 0 || l.zero_pad || r.zero_pad);
      } else if (lbi < static_cast<long>(lb.size()) && lbi == rbi && l.full == r.full) {
        ok = shard_is(q, static_cast<int32_t>(lbi), l.full, false);
      }
    } else {
      // One operand sharded along a free dim, the other replicated.
      const bool left = l.is_shard();
      const AxisLayout& p = left ? l : r;
      const int64_t pos = (left ? lpos : rpos)[static_cast<size_t>(p.dim)];
      const bool batch = (left ? std::find(lb.begin(), lb.end(), p.dim) != lb.end()
                               : std::find(rb.begin(), rb.end(), p.dim) != rb.end());
      ok = pos >= 0 && !batch && shard_is(q, static_cast<int32_t>(pos), p.full, p.zero_pad);
    }
    if (!ok) {
      return refuse("operands " + text(l, a, s_.mesh) + " and " + text(r, a, s_.mesh) +
                    " of the dot do not give " + claim(a));
    }
  }
  return {make({s_.terms[0], s_.terms[1]}), ""};
}

StepCheck Kernel::convolution() {
  // XLA's convolution by its dim labels (`b01f_01io->b01f`): each output element sums input
  // features (`f`, with the kernel's `i`) over a window of spatial positions, per batch entry
  // (`b`) and output feature (the kernel's `o`).
  const auto* labels = s_.instr.get<ir::ConvDimLabels>("dim_labels");
  if (!labels) return refuse("a convolution without dim labels");
  const auto* window = s_.instr.get<ir::Window>("window");
  const auto* fgc = s_.instr.get<int64_t>("feature_group_count");
  const auto* bgc = s_.instr.get<int64_t>("batch_group_count");
  const bool grouped = (fgc && *fgc != 1) || (bgc && *bgc != 1);
  auto label = [](const std::string& l, int32_t d) {
    return d >= 0 && static_cast<size_t>(d) < l.size() ? l[static_cast<size_t>(d)] : '?';
  };
  auto position = [](const std::string& l, char c) {
    const auto at = l.find(c);
    return at == std::string::npos ? -1 : static_cast<int32_t>(at);
  };
  // A spatial dim (a digit) whose window is one element, stride one, no padding or dilation.
  auto pointwise = [&](char c) {
    return c >= '0' && c <= '9' && window && window->unit(static_cast<size_t>(c - '0'));
  };
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout &x = operand(0, a), &k = operand(1, a);
    bool ok = false;
    if (x.is_rep() && k.is_rep()) {
      ok = q.is_rep();
    } else if (x.is_partial() || k.is_partial()) {
      // Linear in each operand.
      const AxisLayout& other = x.is_partial() ? k : x;
      const AxisLayout& part = x.is_partial() ? x : k;
      ok = other.is_rep() && part.op == ReduceOp::kSum && q.is_partial() && q.op == ReduceOp::kSum;
    } else if (x.is_shard() && k.is_shard()) {
      // Both halves of the feature sum: each rank sums its features.
      ok = !grouped && label(labels->input, x.dim) == 'f' && label(labels->kernel, k.dim) == 'i' &&
           x.full < 0 && k.full < 0 && q.is_partial() && q.op == ReduceOp::kSum;
    } else if (x.is_shard()) {
      const char c = label(labels->input, x.dim);
      const bool passes = (c == 'b' && !(bgc && *bgc != 1)) || pointwise(c);
      ok = passes && shard_is(q, position(labels->output, c), x.full, false);
    } else {
      ok = !grouped && label(labels->kernel, k.dim) == 'o' &&
           shard_is(q, position(labels->output, 'f'), k.full, false);
    }
    if (!ok) {
      return refuse("operands " + text(x, a, s_.mesh) + " and " + text(k, a, s_.mesh) +
                    " of the convolution do not give " + claim(a));
    }
  }
  return {make({s_.terms[0], s_.terms[1]}), ""};
}

std::optional<StepCheck> Kernel::blockwise_dot() {
  // One axis: both operands hold blocks (unpadded) along a non-batch dim, the claim a shard.
  std::optional<size_t> axis;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout &l = operand(0, a), &r = operand(1, a);
    if (l.is_rep() && r.is_rep() && claimed(a).is_rep()) continue;
    if (axis || !l.is_shard() || !r.is_shard() || l.full >= 0 || r.full >= 0 ||
        !claimed(a).is_shard() || claimed(a).full >= 0) {
      return std::nullopt;
    }
    axis = a;
  }
  if (!axis) return std::nullopt;
  const ir::DimList& lb = s_.instr.dims_attr("lhs_batch_dims");
  const ir::DimList& rb = s_.instr.dims_attr("rhs_batch_dims");
  const ir::DimList& lc = s_.instr.dims_attr("lhs_contracting_dims");
  const ir::DimList& rc = s_.instr.dims_attr("rhs_contracting_dims");
  const int64_t ld = operand(0, *axis).dim, rd = operand(1, *axis).dim;
  auto at = [](const ir::DimList& l, int64_t d) {
    return static_cast<size_t>(std::find(l.begin(), l.end(), d) - l.begin());
  };
  if (at(lb, ld) < lb.size() || at(rb, rd) < rb.size()) return std::nullopt;
  const bool lcon = at(lc, ld) < lc.size(), rcon = at(rc, rd) < rc.size();
  if (lcon && rcon && at(lc, ld) != at(rc, rd)) return std::nullopt;
  // Rank r multiplies block r of each: XLA's dot batched over the blocks, at batch index r.
  // The operands with their block dim cut in (blocks, block); the blocks the last batch dim.
  const int64_t n = s_.mesh.size(*axis);
  auto cut = [&](size_t i, int64_t d) {
    std::vector<int64_t> dims = term(i).type.dims();
    const int64_t block = dims[static_cast<size_t>(d)] / n;
    dims[static_cast<size_t>(d)] = n;
    dims.insert(dims.begin() + d + 1, block);
    return terms_.intern("reshape", "", ir::Type::array(term(i).type.dtype(), dims), {s_.terms[i]});
  };
  auto renumber = [](const ir::DimList& dims, int64_t d, bool minor) {
    ir::DimList out;
    for (int64_t k : dims) out.push_back(k > d || (k == d && minor) ? k + 1 : k);
    return out;
  };
  ir::Instruction batched = s_.instr;
  ir::DimList lbatch = renumber(lb, ld, false), rbatch = renumber(rb, rd, false);
  lbatch.push_back(ld);
  rbatch.push_back(rd);
  const std::pair<const char*, ir::DimList> lists[] = {
      {"lhs_batch_dims", lbatch},
      {"rhs_batch_dims", rbatch},
      {"lhs_contracting_dims", renumber(lc, ld, true)},
      {"rhs_contracting_dims", renumber(rc, rd, true)}};
  for (const auto& list : lists) {
    auto it = std::find_if(batched.attrs.begin(), batched.attrs.end(),
                           [&](const ir::Attribute& a) { return a.key == list.first; });
    if (it == batched.attrs.end()) {
      batched.attrs.push_back(ir::Attribute{list.first, list.second, {}});
    } else {
      it->value = list.second;
    }
  }
  const auto nb = static_cast<int64_t>(lb.size());
  const int64_t lfree = term(0).type.rank() - nb - static_cast<int64_t>(lc.size());
  std::vector<int64_t> dims = s_.instr.type.dims();  // the rank's result: others replicated
  dims.insert(dims.begin() + nb, n);
  batched.type = ir::Type::array(type_.dtype(), dims);
  // Where a block's free dim lands in the result (its free dims keep their order).
  auto landing = [&](const ir::DimList& b, const ir::DimList& c, int64_t d, int64_t first) {
    int64_t pos = first;
    for (int64_t k = 0; k < d; ++k) {
      if (at(b, k) == b.size() && at(c, k) == c.size()) ++pos;
    }
    return pos;
  };
  const int64_t t = claimed(*axis).dim;
  const bool fits = (!lcon && t == landing(lb, lc, ld, nb)) ||
                    (!rcon && t == landing(rb, rc, rd, nb + lfree)) || (lcon && rcon && t == nb);
  if (!fits || t >= s_.instr.type.rank()) {
    return refuse("operands " + text(operand(0, *axis), *axis, s_.mesh) + " and " +
                  text(operand(1, *axis), *axis, s_.mesh) + " of the dot hold blocks whose " +
                  "products do not land on dimension " + std::to_string(t));
  }
  const TermId product = terms_.intern("dot", canonical_attrs(s_.dist, batched), batched.type,
                                       {cut(0, ld), cut(1, rd)}, &batched);
  // The blocks moved next to dim t, then merged into it: rank r holds block r of it.
  std::vector<int64_t> order;
  for (int64_t k = 0; k <= s_.instr.type.rank(); ++k) {
    if (k == nb) continue;
    if (k == t + 1) order.push_back(nb);
    order.push_back(k);
  }
  std::vector<int64_t> moved;
  std::string perm;
  for (int64_t k : order) {
    moved.push_back(dims[static_cast<size_t>(k)]);
    perm += (perm.empty() ? "" : ",") + std::to_string(k);
  }
  const TermId next = terms_.intern("transpose", "dimensions={" + perm + "}",
                                    ir::Type::array(type_.dtype(), moved), {product});
  return StepCheck{terms_.intern("reshape", "", type_, {next}), ""};
}

StepCheck Kernel::reduce() {
  if (s_.instr.operands.size() != 2) return unsupported("a variadic reduce of sharded values");
  const auto kind = reduction_of(s_.dist, s_.instr);
  const ir::DimList& dims = s_.instr.dims_attr("dimensions");
  const bool identity_init = kind && is_identity(*kind, term(1).splat);
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout& p = operand(0, a);
    if (!operand(1, a).is_rep()) return refuse(said(1, a) + ": the initial value must be rep");
    if (p.is_rep()) {
      if (!q.is_rep()) return refuse(said(0, a) + " but " + claim(a));
      continue;
    }
    if (!kind || !identity_init) {
      return refuse(said(0, a) +
                    ": a reduction of a sharded or partial value needs one sum, "
                    "max, min or product from its identity");
    }
    if (p.is_partial()) {
      if (!(q.is_partial() && q.op == p.op && p.op == *kind)) {
        return refuse(said(0, a) + " but the reduction is not its combination: not " + claim(a));
      }
      continue;
    }
    const bool reduced = std::find(dims.begin(), dims.end(), p.dim) != dims.end();
    if (reduced) {
      const bool padding_ok = p.full < 0 || (p.zero_pad && *kind == ReduceOp::kSum);
      if (!(q.is_partial() && q.op == *kind && padding_ok)) {
        return refuse(said(0, a) + " and the reduction runs over dimension " +
                      std::to_string(p.dim) + ": not " + claim(a));
      }
      continue;
    }
    int32_t pos = 0;
    for (int32_t k = 0; k < p.dim; ++k) {
      if (std::find(dims.begin(), dims.end(), k) == dims.end()) ++pos;
    }
    if (!shard_is(q, pos, p.full, p.zero_pad && *kind == ReduceOp::kSum)) {
      return refuse(said(0, a) + ": the reduction keeps it as dimension " + std::to_string(pos) +
                    ", not " + claim(a));
    }
  }
  return {make({s_.terms[0], s_.terms[1]}), ""};
}

StepCheck Kernel::rms_norm(int64_t axis) {
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!operand(1, a).is_rep() || !operand(2, a).is_rep()) {
      return refuse("the weight and epsilon of an RMS norm must be rep");
    }
    if (!(operand(0, a) == q) || q.is_partial() || (q.is_shard() && q.dim == axis)) {
      return refuse(said(0, a) + ": an RMS norm along dimension " + std::to_string(axis) +
                    " keeps only shards of other dims, not " + claim(a));
    }
  }
  return {make({s_.terms[0], s_.terms[1], s_.terms[2]}), ""};
}

}  // namespace detail

bool rank_dependent(const ir::Module& module, const ir::Instruction& instr) {
  using ir::Opcode;
  const Opcode op = instr.opcode;
  if (op == Opcode::kPartitionId || op == Opcode::kReplicaId || op == Opcode::kRng ||
      op == Opcode::kRngBitGenerator || op == Opcode::kRngGetAndUpdateState ||
      ir::is_collective(op) || op == Opcode::kSend || op == Opcode::kRecv ||
      op == Opcode::kInfeed || op == Opcode::kOutfeed) {
    return true;
  }
  for (ir::CompId c : instr.called) {
    for (const ir::Instruction& inner : module.computations[static_cast<size_t>(c)].instructions) {
      if (rank_dependent(module, inner)) return true;
    }
  }
  return false;
}

namespace {

/// Element `s.element` of a variadic reduce or a sort of several arrays, whose results all
/// have the same dims: a dim ranks hold blocks of must be one the op keeps (not reduced, not
/// sorted), in every value operand alike; the initial values are replicated.
StepCheck rows_of_tuple(TermTable& terms, const Step& s) {
  const std::string op = s.instr.opcode_text();
  const ir::Type& whole = s.instr.type;
  const ir::Type& first = whole.elements()[0];
  for (const ir::Type& e : whole.elements()) {
    if (!e.is_array() || !e.same_dims(first)) {
      return {std::nullopt, "a tuple-valued op of values that are not replicated", true};
    }
  }
  if (op != "reduce" && op != "sort") {
    return {std::nullopt, "a tuple-valued `" + op + "` of values that are not replicated", true};
  }
  const size_t n = s.instr.operands.size(), values = op == "reduce" ? n / 2 : n;
  const ir::DimList& dims = s.instr.dims_attr("dimensions");
  auto along = [&](int64_t d) { return std::find(dims.begin(), dims.end(), d) != dims.end(); };
  for (size_t i = values; i < n; ++i) {
    if (!s.layouts[i].is_rep()) return {std::nullopt, "an initial value must be rep"};
  }
  for (size_t a = 0; a < s.mesh.rank(); ++a) {
    const verify::AxisLayout& q = s.claimed.axes[a];
    if (q.is_partial() || q.zero_pad) {
      return {std::nullopt, "`" + op + "` of several arrays keeps no partial values or zeros"};
    }
    // The operand dim that becomes result dim q.dim (a reduce drops its reduced dims).
    int32_t source = -1;
    if (q.is_shard()) {
      const auto rank = static_cast<int32_t>(s.dist.entry()[s.instr.operands[0]].type.rank());
      for (int32_t d = 0, kept = 0; d < rank && source < 0; ++d) {
        if (op == "reduce" && along(d)) continue;
        if (kept++ == q.dim) source = d;
      }
      if (source < 0 || (op == "sort" && along(source))) {
        return {std::nullopt, "`" + op + "` moves values along the dimension ranks hold blocks of"};
      }
    }
    for (size_t i = 0; i < values; ++i) {
      const verify::AxisLayout& p = s.layouts[i].axes[a];
      const bool ok = q.is_rep() ? p.is_rep() : p.is_shard() && p.dim == source && p.full == q.full;
      if (!ok) {
        return {std::nullopt, "operand " + std::to_string(i) + " is " +
                                  s.layouts[i].to_string(s.mesh) + ", which does not give " +
                                  s.claimed.to_string(s.mesh)};
      }
    }
  }
  std::vector<ir::Type> elements;
  for (const ir::Type& e : whole.elements()) {
    auto dims_of = s.claimed.reference_dims(e.dims(), s.mesh);
    if (!dims_of) return {std::nullopt, "the layout does not fit the value's shape"};
    ir::Type r = e;
    r.set_dims(*dims_of);
    elements.push_back(r);
  }
  const ir::Type ref_whole = ir::Type::tuple(elements);
  const TermId t = terms.intern(op, canonical_attrs(s.dist, s.instr), ref_whole,
                                std::vector<TermId>(s.terms.begin(), s.terms.end()), &s.instr);
  const ir::Type& local = elements[static_cast<size_t>(s.element)];
  return {terms.intern("get-tuple-element", "index=" + std::to_string(s.element), local, {t}), ""};
}

}  // namespace

StepCheck check_step(TermTable& terms, const Step& s) {
  const ir::Type whole = s.instr.type;
  const ir::Type& local =
      s.element >= 0 && whole.is_tuple() ? whole.elements()[static_cast<size_t>(s.element)] : whole;
  if (!local.is_array()) return {std::nullopt, "the value is not an array"};
  auto dims = s.claimed.reference_dims(local.dims(), s.mesh);
  if (!dims) return {std::nullopt, "the layout does not fit the value's shape"};
  ir::Type ref_type = local;
  ref_type.set_dims(*dims);
  if (s.layouts.size() != s.instr.operands.size() || s.terms.size() != s.layouts.size()) {
    return {std::nullopt, "the step does not name one fact per operand"};
  }
  if (rank_dependent(s.dist, s.instr)) {
    return {std::nullopt, "`" + s.instr.opcode_text() + "` computes something else on each rank"};
  }
  // Replicated operands give the op's own value on every rank, whatever the op.
  const bool all_rep =
      s.claimed.is_rep() && std::all_of(s.layouts.begin(), s.layouts.end(),
                                        [](const verify::Layout& l) { return l.is_rep(); });
  if (all_rep) {
    std::vector<TermId> args(s.terms.begin(), s.terms.end());
    if (s.instr.opcode == ir::Opcode::kBitcast && args.size() == 1) {
      const ir::Type& from = s.dist.entry()[s.instr.operands[0]].type;
      if (auto moved = terms.bitcast(args[0], from, whole)) return {*moved, ""};
    }
    TermId t = terms.intern(term_op(s.dist, s.instr), canonical_attrs(s.dist, s.instr), whole,
                            std::move(args), &s.instr);
    if (s.element >= 0 && whole.is_tuple()) {
      t = terms.intern("get-tuple-element", "index=" + std::to_string(s.element), local, {t});
    }
    return {t, ""};
  }
  // Replicated operands, but not a replicated result: only a broadcast (or iota) repeats its
  // value along a dim, which ranks may then hold blocks of.
  const bool operands_rep = std::all_of(s.layouts.begin(), s.layouts.end(),
                                        [](const verify::Layout& l) { return l.is_rep(); });
  const std::string op = s.instr.opcode_text();
  if (operands_rep && op != "broadcast" && op != "iota") {
    return {std::nullopt,
            "every rank computes the same value, which is not " + s.claimed.to_string(s.mesh)};
  }
  if (s.element >= 0 && whole.is_tuple()) return rows_of_tuple(terms, s);
  // An identity of the rule files (a transfer, a sharding annotation) keeps its operand's layout
  // and value; so do XLA's own (a convert to the same type…), which show in the types.
  if (s.instr.operands.size() == 1) {
    const bool by_rule = terms.identity_for(s.instr) != nullptr;
    const TermId same = terms.intern(term_op(s.dist, s.instr), canonical_attrs(s.dist, s.instr),
                                     ref_type, {s.terms[0]}, &s.instr);
    if (by_rule || same == s.terms[0]) {
      if (s.layouts[0] == s.claimed && same == s.terms[0]) return {same, ""};
      return {std::nullopt, "an identity keeps its operand's layout " +
                                s.layouts[0].to_string(s.mesh) + ", not " +
                                s.claimed.to_string(s.mesh)};
    }
  }
  return detail::Kernel(terms, s, ref_type).run();
}

}  // namespace scalify::proofcheck
