#include "verify/term_bridge.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

#include "ir/neuron_calls.h"
#include "verify/fingerprint.h"

namespace scalify::verify {

using egraph::Attrs;
using egraph::AttrValue;
using egraph::ClassId;

namespace {

std::vector<int64_t> list(const ir::DimList& l) { return {l.begin(), l.end()}; }

}  // namespace

bool value_neutral(std::string_view key) {
  return key == "sharding" || key == "frontend_attributes" || key == "channel_id" ||
         key == "api_version" || key == "metadata" || key == "statistics_viz" ||
         key == "schedule" || key == "output_to_operand_aliasing" || key == "backend_config" ||
         key == "operand_layout_constraints" || key == "custom_call_has_side_effect" ||
         key == "origin";
}

bool takes_numbers(ir::Opcode op) {
  return ir::is_elementwise(op) || op == ir::Opcode::kCompare || op == ir::Opcode::kSelect ||
         op == ir::Opcode::kClamp;
}

bool is_identity_call(const ir::Instruction& instr) {
  const auto* target = instr.get<std::string>("custom_call_target");
  return instr.opcode == ir::Opcode::kCustomCall && target &&
         (*target == "AwsNeuronTransferWithStaticRing" || *target == "Sharding");
}

std::optional<ReduceOp> reducer_op(const ir::Module& module, const ir::Instruction& instr) {
  if (instr.called.empty()) return std::nullopt;
  const auto name = reducer_name(module, instr.called[0]);
  if (!name) return std::nullopt;
  if (*name == "add") return ReduceOp::kSum;
  if (*name == "maximum") return ReduceOp::kMax;
  if (*name == "minimum") return ReduceOp::kMin;
  if (*name == "multiply") return ReduceOp::kProduct;
  return std::nullopt;
}

std::optional<std::string> reducer_name(const ir::Module& module, ir::CompId comp) {
  if (comp < 0 || static_cast<size_t>(comp) >= module.computations.size()) return std::nullopt;
  const ir::Computation& c = module.computations[static_cast<size_t>(comp)];
  if (c.root < 0) return std::nullopt;
  const ir::Instruction& root = c[c.root];
  const std::vector<ir::InstrId> params = c.parameters();
  if (params.size() != 2) return std::nullopt;
  if (root.opcode == ir::Opcode::kParameter) {
    if (root.parameter_number == 1) return "assign";
    return std::nullopt;
  }
  if (root.operands.size() != 2) return std::nullopt;
  const bool on_params = (root.operands[0] == params[0] && root.operands[1] == params[1]) ||
                         (root.operands[0] == params[1] && root.operands[1] == params[0]);
  if (!on_params) return std::nullopt;
  switch (root.opcode) {
    case ir::Opcode::kAdd:
    case ir::Opcode::kMultiply:
    case ir::Opcode::kMaximum:
    case ir::Opcode::kMinimum:
    case ir::Opcode::kAnd:
    case ir::Opcode::kOr:
      return std::string(ir::opcode_name(root.opcode));
    default:
      return std::nullopt;
  }
}

ClassId TermBridge::add(std::string_view op, Attrs attrs, std::span<const ClassId> children,
                        egraph::TypeId type) {
  egraph::ENode n{vocab_.symbol(op), vocab_.payload(std::move(attrs)), {}};
  bool rotated = false;
  for (ClassId c : children) {
    n.children.push_back(c);
    rotated = rotated || (!written_.on_rotation.empty() && written_.on_rotation.count(c) > 0);
  }
  const ClassId out = g_.add_node(std::move(n), type);
  if (rotated) written_.on_rotation.insert(out);
  return out;
}

ClassId TermBridge::number_view(ClassId c) const {
  auto it = written_.broadcast_numbers.find(c);
  return it == written_.broadcast_numbers.end() ? c : it->second;
}

std::optional<double> TermBridge::number_value(ClassId c) const {
  auto it = written_.numbers.find(number_view(c));
  if (it == written_.numbers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> impure_reason(const ir::Module& module, ir::CompId comp, int depth) {
  if (comp < 0 || static_cast<size_t>(comp) >= module.computations.size() || depth > 64) {
    return "cannot be read";
  }
  for (const ir::Instruction& instr : module.computations[static_cast<size_t>(comp)].instructions) {
    switch (instr.opcode) {
      case ir::Opcode::kPartitionId:
      case ir::Opcode::kReplicaId:
        return "depends on the rank (`" + std::string(instr.opcode_text()) + "`)";
      case ir::Opcode::kRng:
      case ir::Opcode::kRngBitGenerator:
      case ir::Opcode::kRngGetAndUpdateState:
        return "draws random numbers (`" + std::string(instr.opcode_text()) + "`)";
      case ir::Opcode::kInfeed:
      case ir::Opcode::kOutfeed:
      case ir::Opcode::kSend:
      case ir::Opcode::kSendDone:
      case ir::Opcode::kRecv:
      case ir::Opcode::kRecvDone:
        return "does input or output (`" + std::string(instr.opcode_text()) + "`)";
      default:
        if (ir::is_collective(instr.opcode)) {
          return "communicates (`" + std::string(instr.opcode_text()) + "`)";
        }
    }
    for (ir::CompId callee : instr.called) {
      if (auto why = impure_reason(module, callee, depth + 1)) return why;
    }
  }
  return std::nullopt;
}

bool calls_opaque_computation(const ir::Module& module, const ir::Instruction& instr) {
  for (const ir::Attribute& attr : instr.attrs) {
    const auto* refs = std::get_if<ir::ComputationRefs>(&attr.value);
    if (!refs || value_neutral(attr.key)) continue;
    for (const std::string& callee : refs->names) {
      const auto id = module.find_computation(callee);
      if (attr.key != "to_apply" || !id || !reducer_name(module, *id)) return true;
    }
  }
  return false;
}

std::optional<std::string> TermBridge::control_flow_left(const ir::Instruction& instr) {
  const std::string name = instr.opcode_text();
  if (instr.opcode == ir::Opcode::kWhile) {
    return "`" + name +
           "` whose trip count is not a constant (a counter made of constants, at most 4096 "
           "iterations) is not supported yet";
  }
  if (instr.opcode == ir::Opcode::kConditional) {
    return "`" + name + "` whose branch depends on the data is not supported yet";
  }
  return std::nullopt;
}

ClassId TermBridge::unknown(std::string_view site, const ir::Type& type) {
  return add("unknown", {{"site", std::string(site)}}, {}, types_.intern(type));
}

ClassId TermBridge::get_tuple_element(ClassId t, int64_t i, const ir::Type& type) {
  const ClassId kids[] = {t};
  return add("get-tuple-element", {{"index", i}}, kids, types_.intern(type));
}

std::optional<double> scalar_value(const ir::Instruction& instr) {
  if (instr.opcode != ir::Opcode::kConstant || !instr.type.is_array() || instr.type.rank() != 0 ||
      instr.type.dtype() == ir::DType::kPred || ir::is_complex(instr.type.dtype())) {
    return std::nullopt;
  }
  std::string_view t = instr.literal;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t == "inf") return std::numeric_limits<double>::infinity();
  if (t == "-inf") return -std::numeric_limits<double>::infinity();
  if (t == "nan" || t == "-nan") return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return v;
}

ClassId TermBridge::number(double v) {
  const ClassId c =
      g_.add_node({vocab_.constant_symbol(), vocab_.constant_payload(v), {}}, TypeTable::kNumber);
  written_.numbers.emplace(c, v);
  return c;
}

ClassId TermBridge::scale(ClassId x, double v) {
  const ClassId kids[] = {x, number(v)};
  return add("multiply", {}, kids, g_.type_of(x));
}

std::optional<std::pair<ClassId, ir::DataView>> TermBridge::view_of(ClassId x) const {
  if (auto it = written_.views.find(x); it != written_.views.end()) return it->second;
  const auto t = types_.type(g_.type_of(x));
  if (!t || !t->is_array()) return std::nullopt;
  return std::pair{x, ir::DataView::identity(t->dims())};
}

ClassId TermBridge::view(ClassId x, const ir::DataView& view, ir::DType dtype) {
  // A reshape (of a broadcast, say) is written as reshape() writes it.
  if (view.canonical().is_reshape()) return reshape(x, ir::Type::array(dtype, view.shape));
  const auto known = view_of(x);
  if (!known) return emit_view(x, view, dtype);
  const auto& [base, mine] = *known;
  // x's own view, then the new one's steps.
  auto composed = mine.reshaped(view.factors);
  if (composed) composed = composed->transposed(view.order);
  if (composed) composed = composed->reshaped(view.shape);
  if (composed) return emit_view(base, *composed, dtype);
  return emit_view(x, view, dtype);
}

std::optional<ClassId> TermBridge::moved_from(ClassId x) const {
  if (auto it = written_.views.find(x); it != written_.views.end()) return it->second.first;
  return std::nullopt;
}

bool TermBridge::reorders(ClassId x) const {
  const auto it = written_.views.find(x);
  return it != written_.views.end() && !it->second.second.canonical().is_reshape();
}

std::optional<ClassId> TermBridge::broadcast_of(ClassId x) const {
  if (auto it = written_.broadcasts.find(x); it != written_.broadcasts.end())
    return it->second.operand;
  return std::nullopt;
}

ClassId TermBridge::emit_view(ClassId base, const ir::DataView& view, ir::DType dtype) {
  const ir::DataView c = view.canonical();
  auto typed = [&](const std::vector<int64_t>& dims) {
    return types_.intern(ir::Type::array(dtype, dims));
  };
  ClassId out = base;
  if (c.is_reshape()) {
    if (c.shape != c.base) {
      const ClassId kids[] = {base};
      out = add("reshape", {{"shape", c.shape}}, kids, typed(c.shape));
    }
  } else {
    if (c.factors != c.base) {
      const ClassId kids[] = {out};
      out = add("reshape", {{"shape", c.factors}}, kids, typed(c.factors));
    }
    const std::vector<int64_t> permuted = c.permuted_factors();
    const ClassId mid[] = {out};
    out = add("transpose", {{"dimensions", c.order}}, mid, typed(permuted));
    if (c.shape != permuted) {
      const ClassId kids[] = {out};
      out = add("reshape", {{"shape", c.shape}}, kids, typed(c.shape));
    }
  }
  if (out != base) written_.views.emplace(out, std::pair{base, c});
  return out;
}

std::optional<ClassId> TermBridge::moved(ClassId x, const std::optional<ir::DataView>& view) {
  const auto t = types_.type(g_.type_of(x));
  if (!view || !t) return std::nullopt;
  return emit_view(view_of(x)->first, *view, t->dtype());
}

ClassId TermBridge::reshape(ClassId x, const ir::Type& type) {
  const auto xt = types_.type(g_.type_of(x));
  // A reshape of a broadcast that keeps repeated and kept elements apart is a broadcast of the
  // reshaped operand (a head dim dropped from a broadcast softmax denominator).
  if (auto b = written_.broadcasts.find(x);
      b != written_.broadcasts.end() && xt && xt->dtype() == type.dtype()) {
    const Written::Broadcast bc = b->second;
    if (auto pushed = ir::broadcast_reshaped(bc.shape, bc.kept, type.dims())) {
      const ClassId inner[] = {reshape(bc.operand, ir::Type::array(type.dtype(), pushed->operand))};
      const ClassId out =
          add("broadcast", {{"shape", type.dims()}, {"dimensions", pushed->dimensions}}, inner,
              types_.intern(type));
      written_.broadcasts.emplace(out,
                                  Written::Broadcast{inner[0], pushed->dimensions, type.dims()});
      return out;
    }
  }
  if (const auto v = view_of(x); v && xt && xt->dtype() == type.dtype()) {
    if (auto out = moved(x, v->second.reshaped(type.dims()))) return *out;
  }
  const ClassId kids[] = {x};
  return add("reshape", {{"shape", type.dims()}}, kids, types_.intern(type));
}

ClassId TermBridge::transpose(ClassId x, std::span<const int64_t> permutation,
                              const ir::Type& type) {
  if (const auto v = view_of(x)) {
    if (auto out = moved(x, v->second.transposed(permutation))) return *out;
  }
  const ClassId kids[] = {x};
  return add("transpose",
             {{"dimensions", std::vector<int64_t>(permutation.begin(), permutation.end())}}, kids,
             types_.intern(type));
}

std::optional<ClassId> TermBridge::normal_reduce(std::span<const ClassId> operands,
                                                 const std::vector<int64_t>& dims,
                                                 const std::string& reducer, const ir::Type& type) {
  const auto v = view_of(operands[0]);
  if (!v || !type.is_array()) return std::nullopt;
  const auto r = ir::reduce_through(v->second, dims);
  if (!r) return std::nullopt;
  const ClassId grouped = emit_view(
      v->first, ir::DataView::identity(v->second.base).reshaped(r->groups).value(), type.dtype());
  const ClassId kids[] = {grouped, operands[1]};
  const ClassId reduced = add("reduce", {{"dimensions", r->reduced}, {"to_apply", reducer}}, kids,
                              types_.intern(ir::Type::array(type.dtype(), r->after.base)));
  return emit_view(reduced, r->after, type.dtype());
}

std::optional<ClassId> TermBridge::normal_rms_norm(std::span<const ClassId> operands, int64_t axis,
                                                   const ir::Type& type) {
  const auto v = view_of(operands[0]);
  if (!v || !type.is_array()) return std::nullopt;
  const auto n = ir::norm_through(v->second, axis);
  if (!n) return std::nullopt;
  const ir::DType dtype = type.dtype();
  const ClassId grouped = emit_view(
      v->first, ir::DataView::identity(v->second.base).reshaped(n->groups).value(), dtype);
  const ClassId kids[] = {grouped, operands[1], operands[2]};
  const ClassId normed = add("custom-call",
                             {{"custom_call_target", std::string("AwsNeuronRmsNorm")},
                              {"backend_config", std::to_string(n->axis)}},
                             kids, types_.intern(ir::Type::array(dtype, n->groups)));
  return emit_view(normed, n->after, dtype);
}

std::optional<ClassId> TermBridge::normal_dot(const ir::Instruction& instr,
                                              std::span<const ClassId> operands,
                                              egraph::TypeId type) {
  const auto lt = types_.type(g_.type_of(operands[0]));
  const auto rt = types_.type(g_.type_of(operands[1]));
  if (!lt || !rt) return std::nullopt;
  // A rotation along a free dim is the rotation of the dot along the dim that one becomes.
  for (size_t side = 0; side < 2; ++side) {
    const auto r = rotation_of(operands[side]);
    const auto at = r ? ir::dot_result_dim(instr.dims_attr("lhs_batch_dims"),
                                           instr.dims_attr("lhs_contracting_dims"), lt->rank(),
                                           instr.dims_attr("rhs_batch_dims"),
                                           instr.dims_attr("rhs_contracting_dims"), side, r->dim)
                      : std::nullopt;
    if (!at) continue;
    ClassId kids[] = {operands[0], operands[1]};
    kids[side] = r->base;
    const auto inner = normal_dot(instr, kids, type);
    if (!inner) return std::nullopt;
    return rotate(*inner, *at, r->shift);
  }
  const auto n = ir::dot_normal_form(
      instr.dims_attr("lhs_batch_dims"), instr.dims_attr("lhs_contracting_dims"), lt->rank(),
      instr.dims_attr("rhs_batch_dims"), instr.dims_attr("rhs_contracting_dims"), rt->rank());
  if (!n) return std::nullopt;
  auto permuted = [](const ir::Type& t, const std::vector<int64_t>& perm) {
    std::vector<int64_t> dims;
    for (int64_t p : perm) dims.push_back(t.dim(p));
    return ir::Type::array(t.dtype(), dims);
  };
  ClassId kids[] = {transpose(operands[0], n->lhs_order, permuted(*lt, n->lhs_order)),
                    transpose(operands[1], n->rhs_order, permuted(*rt, n->rhs_order))};
  const auto nb = static_cast<int64_t>(n->lhs_batch.size());
  const auto nc = static_cast<int64_t>(n->lhs_contracting.size());
  // Operands whose free factors a view laid out in another order (rows merged with heads the
  // other way round) are read in their values' order, and the result moved after.
  const auto lv = view_of(kids[0]), rv = view_of(kids[1]);
  const auto result = types_.type(type);
  std::optional<ir::DotThroughViews> through;
  if (lv && rv && result) through = ir::dot_through(lv->second, rv->second, nb, nc);
  std::vector<int64_t> lhs_contracting = n->lhs_contracting;
  if (through) {
    kids[0] = emit_view(lv->first, through->lhs, lt->dtype());
    kids[1] = emit_view(rv->first, through->rhs, rt->dtype());
    const auto rank = static_cast<int64_t>(through->lhs.shape.size());
    std::iota(lhs_contracting.begin(), lhs_contracting.end(), rank - nc);
  }
  Attrs a{{"lhs_contracting_dims", lhs_contracting}, {"rhs_contracting_dims", n->rhs_contracting}};
  if (nb > 0) {
    a.emplace_back("lhs_batch_dims", n->lhs_batch);
    a.emplace_back("rhs_batch_dims", n->rhs_batch);
  }
  if (!through) return add("dot", std::move(a), kids, type);
  const ir::DType dtype = result->dtype();
  const ClassId dot =
      add("dot", std::move(a), kids, types_.intern(ir::Type::array(dtype, through->after.base)));
  return emit_view(dot, through->after, dtype);
}

ClassId TermBridge::slice(ClassId x, std::vector<int64_t> start, std::vector<int64_t> limit,
                          std::vector<int64_t> stride, egraph::TypeId type) {
  const ClassId kids[] = {x};
  return add("slice",
             {{"start_indices", std::move(start)},
              {"limit_indices", std::move(limit)},
              {"strides", std::move(stride)}},
             kids, type);
}

ClassId TermBridge::rotate(ClassId x, int64_t dim, int64_t shift) {
  const auto t = types_.type(g_.type_of(x));
  if (!t || !t->is_array() || dim < 0 || dim >= t->rank()) return x;
  const int64_t n = t->dim(dim);
  if (const auto r = rotation_of(x); r && r->dim == dim) {
    x = r->base;
    shift += r->shift;
  }
  shift = n > 0 ? ((shift % n) + n) % n : 0;
  if (shift == 0) return x;
  auto part = [&](int64_t from, int64_t to) {
    std::vector<int64_t> start(static_cast<size_t>(t->rank()), 0), limit = t->dims(), dims = limit;
    start[static_cast<size_t>(dim)] = from;
    limit[static_cast<size_t>(dim)] = to;
    dims[static_cast<size_t>(dim)] = to - from;
    return slice(x, std::move(start), std::move(limit),
                 std::vector<int64_t>(static_cast<size_t>(t->rank()), 1),
                 types_.intern(ir::Type::array(t->dtype(), dims)));
  };
  const ClassId parts[] = {part(shift, n), part(0, shift)};
  const ClassId out = concatenate(parts, dim, *t);
  written_.rotations.emplace(out, Rotation{x, dim, shift});
  written_.on_rotation.insert(out);
  return out;
}

std::optional<ClassId> TermBridge::elementwise_rotation(const std::string& name,
                                                        std::span<const ClassId> operands,
                                                        egraph::TypeId type) {
  std::optional<Rotation> rotation;
  for (ClassId k : operands) {
    if ((rotation = rotation_of(k))) break;
  }
  if (!rotation) return std::nullopt;
  std::vector<ClassId> inner;
  for (ClassId k : operands) {
    if (const auto r = rotation_of(k)) {
      if (r->dim != rotation->dim || r->shift != rotation->shift) return std::nullopt;
      inner.push_back(r->base);
      continue;
    }
    // Numbers, and broadcasts that repeat along the rotated dim, are their own rotation.
    const auto b = written_.broadcasts.find(k);
    const bool repeated = b != written_.broadcasts.end() &&
                          std::find(b->second.kept.begin(), b->second.kept.end(), rotation->dim) ==
                              b->second.kept.end();
    if (g_.type_of(k) != TypeTable::kNumber && !repeated) return std::nullopt;
    inner.push_back(k);
  }
  return rotate(add(name, {}, inner, type), rotation->dim, rotation->shift);
}

std::optional<TermBridge::Rotation> TermBridge::rotation_of(ClassId x) const {
  if (auto it = written_.rotations.find(x); it != written_.rotations.end()) return it->second;
  return std::nullopt;
}

ClassId TermBridge::concatenate(std::span<const ClassId> parts, int64_t dim, const ir::Type& type) {
  return add("concatenate", {{"dimensions", std::vector<int64_t>{dim}}}, parts,
             types_.intern(type));
}

namespace {

/// The type of a bitcast's operand in `module`'s ENTRY (with its layout), if it is there.
std::optional<ir::Type> bitcast_source(const ir::Module& module, const ir::Instruction& instr) {
  const ir::Computation& entry = module.entry();
  if (instr.operands.size() != 1 || instr.operands[0] < 0 ||
      static_cast<size_t>(instr.operands[0]) >= entry.size()) {
    return std::nullopt;
  }
  return entry[instr.operands[0]].type;
}

}  // namespace

TermBridge::Encoded TermBridge::encode(const ir::Module& module, const ir::Instruction& instr,
                                       std::span<const ClassId> operands, const ir::Type& type,
                                       std::string_view leaf_tag) {
  using ir::Opcode;
  const egraph::TypeId tid = types_.intern(type);
  const Opcode op = instr.opcode;
  std::vector<ClassId> kids(operands.begin(), operands.end());
  if (takes_numbers(op)) {
    for (ClassId& k : kids) k = number_view(k);
  }
  const std::string name(instr.opcode_text());
  auto done = [](ClassId id) { return Encoded{id, {}}; };

  if (auto v = scalar_value(instr)) return done(number(*v));
  // Elementwise ops (and select, clamp) are written without attributes: their type follows
  // from the operands (rules/README.md, "Tensor rules").
  if (ir::is_elementwise(op) || op == Opcode::kSelect || op == Opcode::kClamp) {
    if (op != Opcode::kCopy) {
      if (auto rotated = elementwise_rotation(name, kids, tid)) return done(*rotated);
      return done(add(name, {}, kids, tid));
    }
  }
  switch (op) {
    case Opcode::kParameter:
      return done(add("parameter",
                      {{"number", instr.parameter_number}, {"side", std::string(leaf_tag)}}, {},
                      tid));
    case Opcode::kConstant:
      return done(add("literal", {{"value", instr.literal}, {"type", instr.type.to_string(false)}},
                      {}, tid));
    case Opcode::kRng:
    case Opcode::kRngBitGenerator: {
      // Random values are opaque; the same generator on the same state in both programs is one
      // node, which the checker relates only under an assumption it states.
      Attrs a{{"random", type.to_string(false)}};
      for (const ir::Attribute& attr : instr.attrs) {
        if (!value_neutral(attr.key))
          a.emplace_back(attr.key, ir::attr_value_to_string(attr.value));
      }
      return done(add(name, std::move(a), kids, tid));
    }
    case Opcode::kRngGetAndUpdateState:
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
    case Opcode::kInfeed:
    case Opcode::kRecv:
    case Opcode::kRecvDone:
      return done(add(name, {{"site", std::string(leaf_tag) + ":" + instr.name}}, kids, tid));
    case Opcode::kCompare:
      if (const auto* w = instr.get<ir::Word>("direction")) {
        return done(add(name, {{"direction", w->text}}, kids, tid));
      }
      break;
    case Opcode::kConvert:
      // A conversion to the operand's own type is the operand (rule convert-identity).
      if (g_.type_of(kids[0]) == tid) return done(kids[0]);
      return done(add(name, {{"type", std::string(ir::dtype_name(type.dtype()))}}, kids, tid));
    case Opcode::kCopy:
      return done(kids[0]);  // a copy is its operand (layouts are not values)
    case Opcode::kTranspose:
      return done(transpose(kids[0], list(instr.dims_attr("dimensions")), type));
    case Opcode::kBitcast: {
      // A reinterpretation of the buffer: a reshape when both layouts are row-major, else the
      // data movement the two layouts make of it (bitcast_steps); opaque when tiled.
      const auto from = bitcast_source(module, instr);
      if (from && ir::bitcast_is_reshape(*from, instr.type)) {
        if (type.is_array() && kids.size() == 1) return done(reshape(kids[0], type));
        break;
      }
      const auto steps = from && type.dims() == instr.type.dims()
                             ? ir::bitcast_steps(*from, instr.type)
                             : std::nullopt;
      if (!steps || kids.size() != 1) {
        return done(add(name,
                        {{"type", type.to_string(true)},
                         {"from", from ? from->to_string(true) : std::string("?")}},
                        kids, tid));
      }
      std::vector<int64_t> memory_in;
      for (int64_t d : steps->to_memory) memory_in.push_back(from->dim(d));
      ClassId c =
          transpose(kids[0], steps->to_memory, ir::Type::array(type.dtype(), std::move(memory_in)));
      c = reshape(c, ir::Type::array(type.dtype(), steps->memory_dims));
      return done(transpose(c, steps->from_memory, ir::Type::array(type.dtype(), type.dims())));
    }
    case Opcode::kReshape:
      if (type.is_array() && kids.size() == 1) return done(reshape(kids[0], type));
      break;
    case Opcode::kBroadcast: {
      egraph::Attrs attrs{{"shape", type.dims()},
                          {"dimensions", list(instr.dims_attr("dimensions"))}};
      const bool splat = instr.dims_attr("dimensions").empty() && kids.size() == 1 &&
                         g_.type_of(kids[0]) == TypeTable::kNumber;
      // A splat of a number has its element type from the program, which the number has not:
      // without it, f32 and s64 splats of 2 would be one node, and one of them mistyped. (A
      // rule's splat of a number is a number again; see TypeTable::type_of.)
      if (splat) attrs.emplace_back("element", std::string(ir::dtype_name(type.dtype())));
      const ClassId c = add(name, std::move(attrs), kids, tid);
      if (splat) {
        written_.broadcast_numbers.emplace(c, kids[0]);
      } else if (kids.size() == 1) {
        written_.broadcasts.emplace(
            c, Written::Broadcast{kids[0], list(instr.dims_attr("dimensions")), type.dims()});
      }
      return done(c);
    }
    case Opcode::kSlice:
      if (const auto* s = instr.get<std::vector<ir::SliceRange>>("slice"); s && kids.size() == 1) {
        std::vector<int64_t> start, limit, stride;
        for (const ir::SliceRange& r : *s) {
          start.push_back(r.start);
          limit.push_back(r.limit);
          stride.push_back(r.stride);
        }
        return done(slice(kids[0], std::move(start), std::move(limit), std::move(stride), tid));
      }
      break;
    case Opcode::kConcatenate:
    case Opcode::kReverse:
      return done(add(name, {{"dimensions", list(instr.dims_attr("dimensions"))}}, kids, tid));
    case Opcode::kDot: {
      if (kids.size() == 2) {
        if (auto normal = normal_dot(instr, kids, tid)) return done(*normal);
      }
      Attrs a{{"lhs_contracting_dims", list(instr.dims_attr("lhs_contracting_dims"))},
              {"rhs_contracting_dims", list(instr.dims_attr("rhs_contracting_dims"))}};
      if (!instr.dims_attr("lhs_batch_dims").empty() ||
          !instr.dims_attr("rhs_batch_dims").empty()) {
        a.emplace_back("lhs_batch_dims", list(instr.dims_attr("lhs_batch_dims")));
        a.emplace_back("rhs_batch_dims", list(instr.dims_attr("rhs_batch_dims")));
      }
      return done(add(name, std::move(a), kids, tid));
    }
    case Opcode::kReduce: {
      auto reducer = instr.called.empty() ? std::nullopt : reducer_name(module, instr.called[0]);
      // Others (variadic, an argmax's pair of selects) are functions of their computation.
      if (!reducer || kids.size() != 2) break;
      if (auto normal = normal_reduce(kids, list(instr.dims_attr("dimensions")), *reducer, type)) {
        return done(*normal);
      }
      return done(add(name,
                      {{"dimensions", list(instr.dims_attr("dimensions"))}, {"to_apply", *reducer}},
                      kids, tid));
    }
    case Opcode::kCustomCall: {
      const auto* target = instr.get<std::string>("custom_call_target");
      if (!target) break;
      // The identity custom calls are their operand (rules neuron-transfer-identity and
      // sharding-identity), so that both programs' terms meet without a rewrite.
      if (is_identity_call(instr) && kids.size() == 1 && g_.type_of(kids[0]) == tid) {
        return done(kids[0]);
      }
      // An RMS norm is written over its operand's base value, normalised along the axis's
      // group, so that the norm of a transposed or squeezed value meets the norm of the value.
      if (const auto axis = ir::neuron_rms_norm_axis(instr); axis && kids.size() == 3) {
        if (auto normal = normal_rms_norm(kids, *axis, type)) return done(*normal);
      }
      Attrs a{{"custom_call_target", *target}};
      const auto* config = instr.get<std::string>("backend_config");
      if (config && !config->empty() && *target != "AwsNeuronTransferWithStaticRing") {
        a.emplace_back("backend_config", *config);
      }
      return done(add(name, std::move(a), kids, tid));
    }
    case Opcode::kGetTupleElement:
      if (const auto* index = instr.get<int64_t>("index")) {
        return done(add(name, {{"index", *index}}, kids, tid));
      }
      break;
    case Opcode::kWhile:
    case Opcode::kConditional:
      // A loop or branch left after unrolling: a function of its computations over the
      // elements of its tuple operands (the checker passes them flattened).
      break;
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return {std::nullopt, "`" + name + "` (a called computation) is not supported yet"};
    default:
      break;
  }
  // Any other op: every attribute that can change the value, as text, plus the result type. A
  // called computation is named by its one binary op (`to_apply=add`) or else by what it
  // computes (its fingerprint), so that the same sort comparator or reduce-window body in both
  // programs gives one node: the same function of the same operands.
  Attrs a{{"type", type.to_string(false)}};
  for (size_t i = 0; i < instr.attrs.size(); ++i) {
    const ir::Attribute& attr = instr.attrs[i];
    if (value_neutral(attr.key)) continue;
    const auto* refs = std::get_if<ir::ComputationRefs>(&attr.value);
    if (!refs) {
      a.emplace_back(attr.key, ir::attr_value_to_string(attr.value));
      continue;
    }
    std::string called;
    for (const std::string& callee : refs->names) {
      const auto id = module.find_computation(callee);
      if (!id) return {std::nullopt, "`" + name + "` calls an unknown computation " + callee};
      auto reducer = attr.key == "to_apply" ? reducer_name(module, *id) : std::nullopt;
      if (reducer) {
        called += *reducer;
      } else if (auto why = impure_reason(module, *id)) {
        return {std::nullopt, "`" + name + "` calls a computation that " + *why};
      } else {
        called += "fn:" + computation_fingerprint(module, *id);
      }
      called += ';';
    }
    if (!called.empty()) called.pop_back();
    a.emplace_back(attr.key, called);
  }
  return done(add(name, std::move(a), kids, tid));
}

}  // namespace scalify::verify
