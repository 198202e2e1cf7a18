// Data movement and dots in one normal form, for the proof checker's terms (reference_terms.h):
// two programs that lay a value out differently (a head dimension split, transposed and squeezed
// in another order; a dot whose batch dimension sits elsewhere) build the same term.
#include <algorithm>
#include <numeric>

#include "ir/neuron_calls.h"
#include "ir/swapped_dot.h"
#include "proofcheck/reference_terms.h"

namespace scalify::proofcheck {

namespace {

/// Ops applied element by element: data movement commutes with them.
bool takes_elements(ir::Opcode op) {
  return ir::is_elementwise(op) || op == ir::Opcode::kCompare || op == ir::Opcode::kSelect ||
         op == ir::Opcode::kClamp;
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string out = "{";
  for (size_t i = 0; i < dims.size(); ++i) out += (i ? "," : "") + std::to_string(dims[i]);
  return out + "}";
}

/// `attrs` split at its top-level commas (values hold commas inside braces).
std::vector<std::string> attr_parts(const std::string& attrs) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string cur;
  for (char c : attrs) {
    if (c == '{') ++depth;
    if (c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

/// `attrs` (canonical text: sorted `key=value` parts) with the parts that start with one of
/// `replaced` swapped for `added`.
std::string with_attrs(const std::string& attrs, std::initializer_list<std::string_view> replaced,
                       std::vector<std::string> added) {
  for (const std::string& p : attr_parts(attrs)) {
    const bool gone = std::any_of(replaced.begin(), replaced.end(),
                                  [&](std::string_view key) { return p.starts_with(key); });
    if (!gone) added.push_back(p);
  }
  std::sort(added.begin(), added.end());
  std::string text;
  for (const std::string& p : added) text += (text.empty() ? "" : ",") + p;
  return text;
}

/// The permutation of a transpose written `dimensions={…}` (nothing else).
std::optional<std::vector<int64_t>> permutation_of(const std::string& attrs) {
  const std::string head = "dimensions={";
  if (!attrs.starts_with(head) || !attrs.ends_with("}")) return std::nullopt;
  std::vector<int64_t> out;
  const std::string body = attrs.substr(head.size(), attrs.size() - head.size() - 1);
  size_t at = 0;
  while (at < body.size()) {
    size_t end = body.find(',', at);
    if (end == std::string::npos) end = body.size();
    const std::string n = body.substr(at, end - at);
    if (n.empty() || !std::all_of(n.begin(), n.end(), ::isdigit) || n.size() > 6) {
      return std::nullopt;
    }
    out.push_back(std::stoll(n));
    at = end + 1;
  }
  return out;
}

}  // namespace

bool TermTable::same_elements(TermId a, TermId b) const {
  struct Chain {
    TermId base = 0;
    std::vector<int64_t> dims, index;  ///< the value's dims; per element, its base element
  };
  auto chain = [&](TermId t) -> std::optional<Chain> {
    std::vector<TermId> steps;
    while (terms_[t].args.size() == 1 && ((terms_[t].op == "reshape" && terms_[t].attrs.empty()) ||
                                          terms_[t].op == "transpose")) {
      steps.push_back(t);
      t = terms_[t].args[0];
    }
    const ir::Type& type = terms_[t].type;
    if (!type.is_array() || type.element_count() > (int64_t{1} << 22)) return std::nullopt;
    Chain c{t, type.dims(), {}};
    c.index.resize(static_cast<size_t>(type.element_count()));
    for (size_t i = 0; i < c.index.size(); ++i) c.index[i] = static_cast<int64_t>(i);
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      const Term& s = terms_[*it];
      if (s.op == "transpose") {
        const auto perm = permutation_of(s.attrs);
        if (!perm || perm->size() != c.dims.size()) return std::nullopt;
        std::vector<int64_t> stride(c.dims.size(), 1), out(c.dims.size());
        for (size_t k = c.dims.size(); k-- > 1;) stride[k - 1] = stride[k] * c.dims[k];
        for (size_t k = 0; k < out.size(); ++k) out[k] = c.dims[static_cast<size_t>((*perm)[k])];
        std::vector<int64_t> index(c.index.size()), at(out.size(), 0);
        for (size_t e = 0; e < index.size(); ++e) {
          int64_t from = 0;
          for (size_t k = 0; k < out.size(); ++k) {
            from += at[k] * stride[static_cast<size_t>((*perm)[k])];
          }
          index[e] = c.index[static_cast<size_t>(from)];
          for (size_t k = out.size(); k-- > 0;) {  // the next result index, row-major
            if (++at[k] < out[k]) break;
            at[k] = 0;
          }
        }
        c.index = std::move(index);
      }
      c.dims = s.type.dims();  // a reshape keeps the row-major order
    }
    return c;
  };
  if (a == b) return true;
  const auto x = chain(a), y = chain(b);
  return x && y && x->base == y->base && x->dims == y->dims && x->index == y->index;
}

std::pair<TermId, ir::DataView> TermTable::view_of(TermId x) const {
  if (auto it = views_.find(x); it != views_.end()) return it->second;
  return {x, ir::DataView::identity(terms_[x].type.dims())};
}

TermId TermTable::view_term(TermId base, const ir::DataView& view, ir::DType dtype) {
  // A view of a view is one view of the first one's base (as the checker's bridge writes it):
  // the base's chain, then this one's.
  if (const auto [root, first] = view_of(base); root != base) {
    auto both = first.reshaped(view.factors);
    if (both) both = both->transposed(view.order);
    if (both) both = both->reshaped(view.shape);
    if (both) return view_term(root, *both, dtype);
  }
  const ir::DataView c = view.canonical();
  const std::optional<double> splat = terms_[base].splat;
  auto step = [&](const std::string& op, const std::string& attrs, const std::vector<int64_t>& dims,
                  TermId arg) {
    return raw(op, attrs, ir::Type::array(dtype, dims), {arg}, splat);
  };
  TermId out = base;
  if (c.is_reshape()) {
    if (c.shape != c.base) out = step("reshape", "", c.shape, base);
  } else {
    if (c.factors != c.base) out = step("reshape", "", c.factors, out);
    const std::vector<int64_t> permuted = c.permuted_factors();
    out = step("transpose", "dimensions=" + dims_text(c.order), permuted, out);
    if (c.shape != permuted) out = step("reshape", "", c.shape, out);
  }
  if (out != base) views_.emplace(out, std::pair{base, c});
  return out;
}

TermId TermTable::rotated(TermId x, int64_t dim, int64_t shift) {
  const ir::Type type = terms_[x].type;  // a copy: making terms may move the table
  if (!type.is_array() || dim < 0 || dim >= type.rank()) return x;
  if (const auto r = rotation_of(x); r && r->dim == dim) {
    x = r->base;
    shift += r->shift;
  }
  const int64_t n = type.dim(dim);
  shift = n > 0 ? ((shift % n) + n) % n : 0;
  if (shift == 0) return x;
  const TermId out = raw("rotate", "dim=" + std::to_string(dim) + ",shift=" + std::to_string(shift),
                         type, {x}, terms_[x].splat);
  rotations_.emplace(out, Rotation{x, dim, shift});
  return out;
}

std::optional<TermTable::Rotation> TermTable::rotation_of(TermId x) const {
  if (auto it = rotations_.find(x); it != rotations_.end()) return it->second;
  return std::nullopt;
}

std::optional<TermId> TermTable::normal_form(const std::string& op, const std::string& attrs,
                                             const ir::Type& type, const std::vector<TermId>& args,
                                             const ir::Instruction* instr) {
  // A dot of a value rotated along a free dim is the dot of the value, rotated along the dim
  // that one becomes (batch dims, then the lhs's free dims, then the rhs's, each in order).
  if (op == "dot" && args.size() == 2 && instr) {
    for (size_t side = 0; side < 2; ++side) {
      const auto r = rotation_of(args[side]);
      const auto at =
          r ? ir::dot_result_dim(instr->dims_attr("lhs_batch_dims"),
                                 instr->dims_attr("lhs_contracting_dims"),
                                 terms_[args[0]].type.rank(), instr->dims_attr("rhs_batch_dims"),
                                 instr->dims_attr("rhs_contracting_dims"), side, r->dim)
            : std::nullopt;
      if (!at) continue;
      std::vector<TermId> inner = args;
      inner[side] = r->base;
      return rotated(intern(op, attrs, type, std::move(inner), instr), *at, r->shift);
    }
  }
  if (instr && takes_elements(instr->opcode) && type.is_array()) {
    if (auto rotation = rotation_outside(op, attrs, type, args, instr)) return rotation;
    if (auto outside = view_outside(op, attrs, type, args)) return outside;
  }
  if (op == "reduce" && args.size() == 2 && instr && type.is_array()) {
    return reduce_form(attrs, type, args, instr->dims_attr("dimensions"));
  }
  if (op == "custom-call" && args.size() == 3 && instr && type.is_array()) {
    if (const auto axis = ir::neuron_rms_norm_axis(*instr)) {
      return rms_norm_form(attrs, type, args, *axis);
    }
  }
  if (op == "reshape" && args.size() == 1 && attrs.empty() && terms_[args[0]].op == "broadcast" &&
      terms_[args[0]].args.size() == 1 && type.is_array()) {
    if (auto pushed = reshaped_broadcast(args[0], type)) return pushed;
  }
  if (args.size() == 1 && type.is_array() && terms_[args[0]].type.is_array() &&
      terms_[args[0]].type.dtype() == type.dtype()) {
    const auto [base, view] = view_of(args[0]);
    std::optional<ir::DataView> moved;
    if (op == "reshape" && attrs.empty()) moved = view.reshaped(type.dims());
    if (op == "transpose") {
      std::optional<std::vector<int64_t>> perm;
      if (instr) {
        const ir::DimList& d = instr->dims_attr("dimensions");
        perm = std::vector<int64_t>(d.begin(), d.end());
      } else {
        perm = permutation_of(attrs);
      }
      if (perm) moved = view.transposed(*perm);
    }
    if (moved && moved->shape == type.dims()) return view_term(base, *moved, type.dtype());
    return std::nullopt;
  }
  if (op != "dot" || args.size() != 2 || !instr) return std::nullopt;
  // Copies: making terms may move the table.
  const ir::Type lt = terms_[args[0]].type, rt = terms_[args[1]].type;
  if (!lt.is_array() || !rt.is_array()) return std::nullopt;
  // The operand with more free elements goes first: x·W and the transpose of W^T·x^T are one
  // term.
  if (type.is_array()) {
    ir::Instruction typed = *instr;
    typed.type = type;
    if (const auto s = ir::to_normal_order(typed, lt, rt)) {
      const TermId swapped = intern(op, attrs, s->dot.type, {args[1], args[0]}, &s->dot);
      return intern("transpose", "dimensions=" + dims_text(s->back), type, {swapped});
    }
  }
  const auto n = ir::dot_normal_form(
      instr->dims_attr("lhs_batch_dims"), instr->dims_attr("lhs_contracting_dims"), lt.rank(),
      instr->dims_attr("rhs_batch_dims"), instr->dims_attr("rhs_contracting_dims"), rt.rank());
  if (!n) return std::nullopt;
  auto transposed = [&](TermId x, const std::vector<int64_t>& perm) -> std::optional<TermId> {
    const auto [base, view] = view_of(x);
    const auto moved = view.transposed(perm);
    if (!moved) return std::nullopt;
    return view_term(base, *moved, terms_[x].type.dtype());
  };
  auto l = transposed(args[0], n->lhs_order), r = transposed(args[1], n->rhs_order);
  if (!l || !r) return std::nullopt;
  // Free factors a view laid out in another order than its value are read in the value's
  // order, the result moved after (ir::dot_through).
  const auto [lhs_base, lhs_view] = view_of(*l);
  const auto [rhs_base, rhs_view] = view_of(*r);
  const auto nc = static_cast<int64_t>(n->lhs_contracting.size());
  const auto through =
      ir::dot_through(lhs_view, rhs_view, static_cast<int64_t>(n->lhs_batch.size()), nc);
  std::vector<int64_t> lhs_contracting = n->lhs_contracting;
  if (through) {
    l = view_term(lhs_base, through->lhs, lt.dtype());
    r = view_term(rhs_base, through->rhs, rt.dtype());
    const auto rank = static_cast<int64_t>(through->lhs.shape.size());
    std::iota(lhs_contracting.begin(), lhs_contracting.end(), rank - nc);
  }
  std::vector<std::string> dims = {"lhs_contracting_dims=" + dims_text(lhs_contracting),
                                   "rhs_contracting_dims=" + dims_text(n->rhs_contracting)};
  if (!n->lhs_batch.empty()) {
    dims.push_back("lhs_batch_dims=" + dims_text(n->lhs_batch));
    dims.push_back("rhs_batch_dims=" + dims_text(n->rhs_batch));
  }
  const std::string text = with_attrs(
      attrs,
      {"lhs_batch_dims=", "rhs_batch_dims=", "lhs_contracting_dims=", "rhs_contracting_dims="},
      std::move(dims));
  if (!through) return raw("dot", text, type, {*l, *r}, std::nullopt);
  const TermId dot =
      raw("dot", text, ir::Type::array(type.dtype(), through->after.base), {*l, *r}, std::nullopt);
  return view_term(dot, through->after, type.dtype());
}

std::optional<TermId> TermTable::rotation_outside(const std::string& op, const std::string& attrs,
                                                  const ir::Type& type,
                                                  const std::vector<TermId>& args,
                                                  const ir::Instruction* instr) {
  std::optional<Rotation> rotation;
  for (TermId a : args) {
    if ((rotation = rotation_of(a))) break;
  }
  if (!rotation) return std::nullopt;
  std::vector<TermId> inner;
  for (TermId a : args) {
    if (const auto r = rotation_of(a)) {
      if (r->dim != rotation->dim || r->shift != rotation->shift) return std::nullopt;
      inner.push_back(r->base);
      continue;
    }
    // Splats, and broadcasts that repeat along the rotated dim, are their own rotation.
    const Term& t = terms_[a];
    const auto kept = t.op == "broadcast" ? permutation_of(t.attrs) : std::nullopt;
    const bool repeated =
        kept && std::find(kept->begin(), kept->end(), rotation->dim) == kept->end();
    if (!t.splat && !repeated) return std::nullopt;
    inner.push_back(a);
  }
  const Rotation r = *rotation;  // a copy: making terms may move the table
  return rotated(intern(op, attrs, type, std::move(inner), instr), r.dim, r.shift);
}

std::optional<TermId> TermTable::view_outside(const std::string& op, const std::string& attrs,
                                              const ir::Type& type,
                                              const std::vector<TermId>& args) {
  // Scalars broadcast (or splat numbers) fit any shape; every other operand must be the same
  // view of a value of one shape.
  auto scalar = [&](TermId a) -> std::optional<TermId> {
    const Term& t = terms_[a];
    if (t.op == "broadcast" && t.args.size() == 1 && terms_[t.args[0]].type.rank() == 0) {
      return t.args[0];
    }
    if (t.splat && t.type.rank() == 0) return a;
    return std::nullopt;
  };
  // The op is taken outside the view of the operand whose value is the oldest term, when that
  // view reorders elements.
  std::vector<std::optional<ir::DataView>> views;
  std::vector<TermId> values;
  std::optional<size_t> target;
  for (size_t j = 0; j < args.size(); ++j) {
    if (scalar(args[j])) {
      views.emplace_back();
      values.push_back(args[j]);
      continue;
    }
    if (!terms_[args[j]].type.is_array()) return std::nullopt;
    const auto [base, view] = view_of(args[j]);
    views.push_back(view);
    values.push_back(base);
    if (!target || base < values[*target]) target = j;
  }
  if (!target) return std::nullopt;
  // One view of every operand's value (a reshape too) goes outside as it is; otherwise a view
  // that reorders, the oldest value's.
  const bool one_view = std::all_of(views.begin(), views.end(), [&](const auto& v) {
    return !v || v->canonical() == views[*target]->canonical();
  });
  const bool moved =
      std::any_of(args.begin(), args.end(), [&](TermId a) { return views_.count(a) > 0; });
  if (!moved || (!one_view && views[*target]->canonical().is_reshape())) return std::nullopt;
  const ir::DataView outside = views[*target]->canonical();
  const auto inner_views = ir::elementwise_through(views, outside);
  if (!inner_views) return std::nullopt;
  std::vector<TermId> inner;
  for (size_t j = 0; j < args.size(); ++j) {
    if (auto s = scalar(args[j])) {
      const ir::Type st = terms_[*s].type;  // a copy: making terms may move the table
      inner.push_back(
          intern("broadcast", "dimensions={}", ir::Type::array(st.dtype(), outside.base), {*s}));
      continue;
    }
    inner.push_back(view_term(values[j], *(*inner_views)[j], terms_[values[j]].type.dtype()));
  }
  const TermId applied =
      intern(op, attrs, ir::Type::array(type.dtype(), outside.base), std::move(inner));
  return view_term(applied, outside, type.dtype());
}

std::optional<TermId> TermTable::reduce_form(const std::string& attrs, const ir::Type& type,
                                             const std::vector<TermId>& args,
                                             const ir::DimList& dims) {
  const auto [base, view] = view_of(args[0]);
  const auto r = ir::reduce_through(view, dims);
  if (!r) return std::nullopt;
  const ir::DType dtype = type.dtype();
  const TermId grouped =
      view_term(base, *ir::DataView::identity(view.base).reshaped(r->groups), dtype);
  const std::string text =
      with_attrs(attrs, {"dimensions="}, {"dimensions=" + dims_text(r->reduced)});
  const TermId reduced =
      raw("reduce", text, ir::Type::array(dtype, r->after.base), {grouped, args[1]}, std::nullopt);
  return view_term(reduced, r->after, dtype);
}

std::optional<TermId> TermTable::rms_norm_form(const std::string& attrs, const ir::Type& type,
                                               const std::vector<TermId>& args, int64_t axis) {
  const auto [base, view] = view_of(args[0]);
  const auto n = ir::norm_through(view, axis);
  if (!n) return std::nullopt;
  const ir::DType dtype = type.dtype();
  const TermId grouped =
      view_term(base, *ir::DataView::identity(view.base).reshaped(n->groups), dtype);
  const std::string text = with_attrs(
      attrs, {"backend_config="},
      {"backend_config=" + ir::attr_value_to_string(ir::AttrValue(std::to_string(n->axis)))});
  const TermId normed = raw("custom-call", text, ir::Type::array(dtype, n->groups),
                            {grouped, args[1], args[2]}, std::nullopt);
  return view_term(normed, n->after, dtype);
}

std::optional<TermId> TermTable::reshaped_broadcast(TermId broadcast, const ir::Type& type) {
  const Term b = terms_[broadcast];           // a copy: making terms may move the table
  const auto kept = permutation_of(b.attrs);  // `dimensions={…}`: the kept dims
  if (!kept || b.type.dtype() != type.dtype()) return std::nullopt;
  const auto pushed = ir::broadcast_reshaped(b.type.dims(), *kept, type.dims());
  if (!pushed) return std::nullopt;
  const TermId inner =
      intern("reshape", "", ir::Type::array(type.dtype(), pushed->operand), {b.args[0]});
  return raw("broadcast", "dimensions=" + dims_text(pushed->dimensions), type, {inner}, b.splat);
}

}  // namespace scalify::proofcheck
