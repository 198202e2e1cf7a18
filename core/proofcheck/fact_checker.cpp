// The independent proof checker's facts (fact_checker.h): one rule at a time, from the
// programs and the stated contract alone.
#include "proofcheck/fact_checker.h"

#include <algorithm>

#include "eval/literal.h"
#include "ir/data_view.h"
#include "proofcheck/layout_steps.h"
#include "proofcheck/rank_offsets.h"

namespace scalify::proofcheck::detail {

using verify::AxisLayout;
using verify::DerivedFact;
using verify::Layout;

std::optional<Failure> FactChecker::add(const DerivedFact& f) {
  const auto failed = [&](const std::string& why, bool unsupported = false) {
    return Failure("fact [" + std::to_string(f.index) + "] " + verify::value_name(f) + " (" +
                       f.rule + "): " + why,
                   unsupported);
  };
  auto t = check_fact(f);
  if (auto* no = std::get_if<Failure>(&t)) return failed(no->why, no->unsupported);
  const TermId term = std::get<TermId>(t);
  // The value's shape must be the reference value's, split as the layout says.
  const ir::Type& whole = dist_.entry()[*dist_.entry().find(f.dist)].type;
  const ir::Type& local =
      f.element >= 0 && whole.is_tuple() && static_cast<size_t>(f.element) < whole.elements().size()
          ? whole.elements()[static_cast<size_t>(f.element)]
          : whole;
  const ir::Type& ref_type = terms_[term].type;
  const auto dims = local.is_array() ? f.layout.reference_dims(local.dims(), mesh_)
                                     : std::optional<std::vector<int64_t>>();
  if (!dims || !ref_type.is_array() || *dims != ref_type.dims() ||
      local.dtype() != ref_type.dtype()) {
    return failed("a " + local.to_string(false) + " in layout " + f.layout.to_string(mesh_) +
                  " cannot hold the reference value " + ref_type.to_string(false));
  }
  TermId value = term;
  if (!f.ref.empty()) {
    const auto named = reference_term(f.ref, f.element);
    const bool same_number = named && terms_[*named].splat && terms_[term].splat &&
                             *terms_[*named].splat == *terms_[term].splat;
    // One number at two shapes (the checker's numbers stand for splats of any shape): the
    // fact's own term is its value.
    if (!same_number && (!named || !terms_.same_elements(*named, term))) {
      const bool two_numbers = named && terms_[*named].splat && terms_[term].splat;
      if (named && !two_numbers && terms_[*named].type.compatible(terms_[term].type)) {
        // Of the same type, the two may be equal by a rewrite of the rule files (x·1, a
        // constant folded, a sum reassociated), which this checker does not replay: neither
        // accepted nor rejected.
        std::string by;
        for (const std::string& w : f.rewrites) by += (by.empty() ? " (" : ", ") + w;
        return failed("its value is " + terms_.describe(term) + ", which the checker equates " +
                          "with reference node '" + f.ref + "' by rewriting" +
                          (by.empty() ? "" : by + ")") + ", not replayed here",
                      true);
      }
      return failed("its value is " + terms_.describe(term) + ", not reference node '" + f.ref +
                    "'");
    }
    if (!same_number) value = *named;  // the same elements: later facts build on its term
  }
  known_[f.index] = value;
  if (f.rule == "bijection") ++parameters_;
  return std::nullopt;
}

std::optional<TermId> FactChecker::reference_term(const std::string& name, int64_t element) {
  const auto id = ref_.entry().find(name);
  if (!id) return std::nullopt;
  TermId t = terms_.of_node(ref_, *id);
  const ir::Type& type = ref_.entry()[*id].type;
  if (element >= 0 && type.is_tuple() && static_cast<size_t>(element) < type.elements().size()) {
    const ir::Instruction& node = ref_.entry()[*id];
    if (node.opcode == ir::Opcode::kTuple) {
      return terms_.of_node(ref_, node.operands[static_cast<size_t>(element)]);
    }
    t = terms_.intern("get-tuple-element", "index=" + std::to_string(element),
                      type.elements()[static_cast<size_t>(element)], {t});
  }
  return t;
}

FactCheck FactChecker::parameter_term(const verify::BijectionEntry& b) {
  const auto id = ref_.entry().find(b.ref);
  if (!id || ref_.entry()[*id].opcode != ir::Opcode::kParameter) {
    return "the bijection binds '" + b.ref + "', not a parameter of the reference program";
  }
  TermId t = terms_.of_node(ref_, *id);
  ir::Type type = ref_.entry()[*id].type;
  if (!b.reshape.empty()) {
    type.set_dims(b.reshape);
    if (type.element_count() != ref_.entry()[*id].type.element_count()) {
      return std::string("the bijection reshapes the parameter to another size");
    }
    t = terms_.intern("reshape", "", type, {t});
  }
  if (!b.permutation.empty()) {
    std::vector<int64_t> dims;
    std::string perm;
    for (int64_t p : b.permutation) {
      if (p < 0 || p >= type.rank()) return std::string("the bijection's permutation is bad");
      dims.push_back(type.dim(p));
      perm += (perm.empty() ? "" : ",") + std::to_string(p);
    }
    type.set_dims(dims);
    t = terms_.intern("transpose", "dimensions={" + perm + "}", type, {t});
  }
  return t;
}

/// The balanced-partials assumption (verify/checker_balanced.cpp): a partial sum S over an axis
/// of n ranks, stated to be the same on every rank, is S/n on each, replicated.
FactCheck FactChecker::balanced_share(const DerivedFact& f) {
  const auto axis = mesh_.find(f.rule.substr(kShare.size()));
  if (!axis || f.premises.size() != 1) return Failure("names no mesh axis, or no one premise");
  const DerivedFact& p = premise(f, 0);
  Layout partial = Layout::on(mesh_, *axis, AxisLayout::partial(verify::ReduceOp::kSum));
  if (p.dist != f.dist || p.element != f.element || !(p.layout == partial) || !f.layout.is_rep()) {
    return Failure("the premise is not this value's partial sum over " + mesh_.name(*axis));
  }
  const bool stated = std::any_of(r_.assumptions.begin(), r_.assumptions.end(), [&](auto& a) {
    return a.dist == f.dist && a.layout == f.layout;
  });
  if (!stated) return Failure("not a stated assumption");
  for (const auto& a : r_.assumptions) {
    if (a.dist == f.dist && a.layout == f.layout) {
      assumptions_.insert(f.dist + " " + f.layout.to_string(mesh_) + ": " + a.why);
    }
  }
  return terms_.scaled(1.0 / static_cast<double>(mesh_.size(*axis)), *known_[p.index]);
}

/// A part whose mean over some axes is x is a part whose sum over them is n x (n the product of
/// their sizes): the premise's layout with those partial means turned into partial sums.
FactCheck FactChecker::mean_as_sum(const DerivedFact& f) {
  if (f.premises.size() != 1) return Failure("a sum of means has one premise");
  const DerivedFact& p = premise(f, 0);
  if (p.dist != f.dist || p.element != f.element || p.layout.axes.size() != f.layout.axes.size()) {
    return Failure("the premise is not a fact of this value");
  }
  double n = 1;
  for (size_t a = 0; a < f.layout.axes.size() && a < mesh_.rank(); ++a) {
    const verify::AxisLayout& from = p.layout.axes[a];
    const verify::AxisLayout& to = f.layout.axes[a];
    if (from.is_partial() && from.op == verify::ReduceOp::kMean) {
      if (!to.is_partial() || to.op != verify::ReduceOp::kSum) {
        return Failure("a partial mean over " + mesh_.name(a) + " becomes a partial sum");
      }
      n *= static_cast<double>(mesh_.size(a));
    } else if (!(from == to)) {
      return Failure("only partial means change");
    }
  }
  if (n == 1) return Failure("the premise holds no partial mean");
  return terms_.scaled(n, *known_[p.index]);
}

/// select(x != 0, x, c) is x when x is assumed not 0: a stated assumption about the reference
/// value x's share stands for.
FactCheck FactChecker::nonzero_guard(const DerivedFact& f, const ir::Instruction& instr) {
  const ir::Computation& d = dist_.entry();
  if (instr.opcode != ir::Opcode::kSelect || instr.operands.size() != 3 || f.premises.size() != 1 ||
      !f.layout.is_rep() || !premise(f, 0).layout.is_rep() ||
      premise(f, 0).dist != d[instr.operands[1]].name) {
    return Failure("not select(x != 0, x, c) of its replicated premise x");
  }
  const ir::Instruction& test = d[instr.operands[0]];
  const auto* direction = test.get<ir::Word>("direction");
  auto zero = [&](ir::InstrId z) {
    const ir::Instruction& c = d[z].opcode == ir::Opcode::kBroadcast ? d[d[z].operands[0]] : d[z];
    return c.opcode == ir::Opcode::kConstant && c.type.rank() == 0 &&
           (c.literal == "0" || c.literal == "0.0" || c.literal == "-0");
  };
  const ir::InstrId x = instr.operands[1];
  const bool guard = test.opcode == ir::Opcode::kCompare && direction && direction->text == "NE" &&
                     test.operands.size() == 2 &&
                     ((test.operands[0] == x && zero(test.operands[1])) ||
                      (test.operands[1] == x && zero(test.operands[0])));
  if (!guard) return Failure("not select(x != 0, x, c)");
  // The assumption names the reference value; x holds it, perhaps scaled by a share.
  const TermId held = *known_[f.premises[0]];
  const TermId value = terms_[held].op == "scale" ? terms_[held].args[0] : held;
  for (const auto& a : r_.assumptions) {
    const auto named = reference_term(a.dist, -1);
    if (named && *named == value && a.layout.is_rep()) {
      terms_.assume_nonzero(value);
      assumptions_.insert(a.dist + " " + a.layout.to_string(mesh_) + ": " + a.why);
      return held;
    }
  }
  return Failure("no stated assumption says the value is not 0");
}

/// dynamic-slice(x, offsets) with x replicated and the offset along one dim the device's
/// coordinate on one mesh axis times the slice size (whole dims elsewhere): each rank's shard.
FactCheck FactChecker::slice_by_rank(const DerivedFact& f, const ir::Instruction& instr) {
  const ir::Computation& d = dist_.entry();
  if (instr.opcode != ir::Opcode::kDynamicSlice || f.premises.size() != 1 ||
      instr.operands.size() < 2 || premise(f, 0).dist != d[instr.operands[0]].name ||
      !premise(f, 0).layout.is_rep()) {
    return Failure("not a dynamic-slice of its replicated premise");
  }
  const ir::Type& x = d[instr.operands[0]].type;
  const int64_t devices = mesh_.device_count();
  std::optional<std::pair<int32_t, size_t>> shard;  // dim, axis
  int64_t shift = 0;  // rank r takes the block r + shift / size: a ring's step
  for (size_t k = 1; k < instr.operands.size(); ++k) {
    const auto dim = static_cast<int64_t>(k - 1);
    auto offsets = device_values(dist_, instr.operands[k], devices);
    if (!offsets)
      return Failure("offset " + std::to_string(dim) +
                     " is not computed from the "
                     "device number by arithmetic the proof checker evaluates");
    const int64_t size = instr.type.dim(dim);
    if (size == x.dim(dim) &&
        std::all_of(offsets->begin(), offsets->end(), [](int64_t o) { return o == 0; })) {
      continue;
    }
    bool found = false;
    for (size_t a = 0; a < mesh_.rank() && !found; ++a) {
      if (mesh_.size(a) * size != x.dim(dim)) continue;
      const auto blocks = ring_blocks(*offsets, a, size);
      found = blocks.has_value();
      if (found) {
        if (shard) return Failure("two dims move with the rank");
        shard = std::pair{static_cast<int32_t>(dim), a};
        shift = *blocks * size;
      }
    }
    if (!found) {
      return Failure("its offsets along dimension " + std::to_string(dim) +
                     " are not each rank's shard in the order of a mesh axis");
    }
  }
  if (!shard) return Failure("no offset moves with the rank");
  if (!(f.layout == Layout::on(mesh_, shard->second, AxisLayout::shard(shard->first)))) {
    return "each rank takes shard(" + std::to_string(shard->first) + "," +
           mesh_.name(shard->second) + "), not " + f.layout.to_string(mesh_);
  }
  return terms_.rotated(*known_[f.premises[0]], shard->first, shift);
}

std::optional<int64_t> FactChecker::ring_blocks(const std::vector<int64_t>& offsets, size_t axis,
                                                int64_t size) const {
  const int64_t n = mesh_.size(axis);
  for (int64_t k = 0; k < n; ++k) {
    bool all = static_cast<int64_t>(offsets.size()) == mesh_.device_count();
    for (int64_t dev = 0; dev < mesh_.device_count() && all; ++dev) {
      all = offsets[static_cast<size_t>(dev)] == (mesh_.coordinate(dev, axis) + k) % n * size;
    }
    if (all) return k;
  }
  return std::nullopt;
}

std::optional<std::string> FactChecker::pairs_problem(const ir::SourceTargetPairs* pairs) const {
  const int64_t devices = mesh_.device_count();
  std::vector<int> received(static_cast<size_t>(devices), 0);
  for (const auto& [from, to] : pairs ? *pairs : ir::SourceTargetPairs{}) {
    if (from < 0 || to < 0 || from >= devices || to >= devices) {
      return std::string("a pair names a device outside the mesh");
    }
    ++received[static_cast<size_t>(to)];
  }
  if (std::any_of(received.begin(), received.end(), [](int r) { return r != 1; })) {
    return std::string("some device does not receive exactly one value");
  }
  return std::nullopt;
}

/// collective-permute of a shard along a ring: every device receives from the one k places on
/// along one mesh axis (its other coordinates the same), so it holds block r + k of the value:
/// block r of the value rotated by k blocks.
FactCheck FactChecker::ring_step(const DerivedFact& f, const ir::Instruction& instr,
                                 const DerivedFact& p) {
  if (!(p.layout == f.layout)) return std::string("a ring step keeps its operand's layout");
  const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
  if (auto problem = pairs_problem(pairs)) return *problem;
  std::optional<size_t> axis;
  std::optional<int64_t> k;
  for (const auto& [from, to] : *pairs) {
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      if (mesh_.coordinate(from, a) == mesh_.coordinate(to, a)) continue;
      if (axis && *axis != a) return std::string("the pairs move along two mesh axes");
      axis = a;
    }
  }
  if (!axis) return std::string("the pairs move nothing");
  const int64_t n = mesh_.size(*axis);
  for (const auto& [from, to] : *pairs) {
    const int64_t step =
        ((mesh_.coordinate(from, *axis) - mesh_.coordinate(to, *axis)) % n + n) % n;
    if (k && *k != step) return std::string("the pairs are no rotation of one ring");
    k = step;
  }
  const AxisLayout& q = p.layout.axes[*axis];
  if (!q.is_shard() || q.full >= 0) {
    return "its operand is " + p.layout.to_string(mesh_) + ", not an unpadded shard along " +
           mesh_.name(*axis);
  }
  for (size_t a = 0; a < mesh_.rank(); ++a) {
    if (a != *axis && p.layout.axes[a].is_shard() && p.layout.axes[a].dim == q.dim) {
      return "dimension " + std::to_string(q.dim) + " is also sharded over " + mesh_.name(a);
    }
  }
  const TermId x = *known_[p.index];
  const int64_t block = terms_[x].type.dim(q.dim) / n;
  return terms_.rotated(x, q.dim, *k * block);
}

/// The last of a chain of dynamic-update-slices (each writing into the one before), one per
/// premise: premise k is a fact of step k's update, a shard along one mesh axis of a value
/// rotated by some blocks (rank r holds block r + s), written by every rank at that block's
/// own place. When the steps write every block on every rank, each holds the whole value.
FactCheck FactChecker::ring_assembly(const DerivedFact& f, const ir::Instruction& instr) {
  const ir::Computation& d = dist_.entry();
  if (!f.layout.is_rep()) return std::string("a ring's assembly is replicated");
  std::vector<const ir::Instruction*> steps;
  const ir::Instruction* at = &instr;
  for (size_t k = 0; k < f.premises.size(); ++k) {
    if (at->opcode != ir::Opcode::kDynamicUpdateSlice || at->operands.size() < 3 ||
        !at->type.is_array()) {
      return Failure("step " + std::to_string(k) + " is no dynamic-update-slice");
    }
    steps.insert(steps.begin(), at);
    at = &d[at->operands[0]];
  }
  std::optional<TermId> value;
  std::optional<size_t> axis;
  int32_t dim = -1;
  std::vector<bool> written;
  for (size_t k = 0; k < steps.size(); ++k) {
    const ir::Instruction& step = *steps[k];
    const DerivedFact& p = premise(f, k);
    if (p.dist != d[step.operands[1]].name || p.element != -1) {
      return "premise [" + std::to_string(f.premises[k]) + "] is not step " + std::to_string(k) +
             "'s update";
    }
    // A shard along one axis, replicated on the others.
    std::optional<size_t> a;
    for (size_t b = 0; b < mesh_.rank(); ++b) {
      if (p.layout.axes[b].is_rep()) continue;
      if (a || !p.layout.axes[b].is_shard() || p.layout.axes[b].full >= 0) {
        return "update " + std::to_string(k) + " is " + p.layout.to_string(mesh_) +
               ", not an unpadded shard along one axis";
      }
      a = b;
    }
    if (!a || (axis && (*axis != *a || p.layout.axes[*a].dim != dim))) {
      return std::string("the updates are no shards of one dim along one axis");
    }
    axis = a;
    dim = p.layout.axes[*a].dim;
    TermId base = *known_[f.premises[k]];
    int64_t shift = 0;
    if (const auto r = terms_.rotation_of(base); r && r->dim == dim) {
      base = r->base;
      shift = r->shift;
    }
    if (value && *value != base) return std::string("the updates are blocks of different values");
    value = base;
    const ir::Type& u = d[step.operands[1]].type;
    const int64_t n = mesh_.size(*axis), block = u.rank() > dim ? u.dim(dim) : 0;
    if (terms_[base].type.dims() != step.type.dims() || block * n != step.type.dim(dim) ||
        block == 0 || shift % block != 0 ||
        step.operands.size() != static_cast<size_t>(u.rank()) + 2) {
      return "step " + std::to_string(k) + " does not write one block of the value's shape";
    }
    for (int64_t j = 0; j < u.rank(); ++j) {
      auto offsets =
          device_values(dist_, step.operands[static_cast<size_t>(j) + 2], mesh_.device_count());
      if (!offsets) return Failure("an offset the proof checker does not evaluate");
      const bool right =
          j == dim ? ring_blocks(*offsets, *axis, block) == shift / block
                   : u.dim(j) == step.type.dim(j) && std::all_of(offsets->begin(), offsets->end(),
                                                                 [](int64_t o) { return o == 0; });
      if (!right) {
        return "step " + std::to_string(k) + " writes along dimension " + std::to_string(j) +
               " elsewhere than its block's place";
      }
    }
    written.resize(static_cast<size_t>(n));
    written[static_cast<size_t>(shift / block)] = true;
  }
  if (!value || !std::all_of(written.begin(), written.end(), [](bool w) { return w; })) {
    return std::string("the steps leave blocks unwritten");
  }
  return *value;
}

/// select(p, a, b) with p the same for every element of a device and computed from its number:
/// the operand every device picks, or, when the devices of one coordinate of one mesh axis pick
/// a and the others zeros, a partial sum over that axis of the reference value a holds there (a
/// replicated a, or a padded shard whose first block is the whole reference).
FactCheck FactChecker::select_by_rank(const DerivedFact& f, const ir::Instruction& instr) {
  const ir::Computation& d = dist_.entry();
  if (instr.opcode != ir::Opcode::kSelect || instr.operands.size() != 3 || f.premises.size() != 1) {
    return Failure("not a select with one premise");
  }
  // The predicate, through broadcasts of a scalar.
  ir::InstrId p = instr.operands[0];
  while (d[p].opcode == ir::Opcode::kBroadcast && d[p].operands.size() == 1 &&
         d[d[p].operands[0]].type.rank() == 0) {
    p = d[p].operands[0];
  }
  const int64_t devices = mesh_.device_count();
  const auto picks = device_values(dist_, p, devices);
  if (!picks) return Failure("its predicate is not computed from the device number");
  const DerivedFact& from = premise(f, 0);
  const size_t a_count = static_cast<size_t>(std::count(picks->begin(), picks->end(), 1));
  if (a_count == 0 || a_count == picks->size()) {
    const ir::InstrId picked = instr.operands[a_count == 0 ? 2 : 1];
    if (from.dist != d[picked].name || from.element != -1 || !(from.layout == f.layout)) {
      return std::string("every device picks operand ") + (a_count == 0 ? "2" : "1") +
             ": the fact is that operand's, in its layout";
    }
    return *known_[f.premises[0]];
  }
  // Zeros: a zero scalar constant, perhaps broadcast, reshaped, converted or copied.
  ir::InstrId z = instr.operands[2];
  while ((d[z].opcode == ir::Opcode::kBroadcast || d[z].opcode == ir::Opcode::kReshape ||
          d[z].opcode == ir::Opcode::kConvert || d[z].opcode == ir::Opcode::kCopy) &&
         d[z].operands.size() == 1) {
    z = d[z].operands[0];
  }
  bool zero = false;
  if (d[z].opcode == ir::Opcode::kConstant && d[z].type.rank() == 0) {
    const auto value = eval::parse_literal(d[z].literal, d[z].type);
    zero = value && !value->is_tuple() && value->tensor().data.front() == 0.0;
  }
  if (!zero) {
    return Failure("the devices that do not pick operand 1 must get zeros");
  }
  if (from.dist != d[instr.operands[1]].name || from.element != -1 || from.layout.has_partial()) {
    return Failure("the premise is not a fact of operand 1 without partial sums");
  }
  for (size_t axis = 0; axis < mesh_.rank(); ++axis) {
    for (int64_t c = 0; c < mesh_.size(axis); ++c) {
      bool these = true;
      for (int64_t dev = 0; dev < devices && these; ++dev) {
        these = ((*picks)[static_cast<size_t>(dev)] == 1) == (mesh_.coordinate(dev, axis) == c);
      }
      if (!these) continue;
      const verify::AxisLayout& on = from.layout.axes[axis];
      const ir::Type& a = d[instr.operands[1]].type;
      const bool whole_first_block = on.is_shard() && c == 0 && on.full >= 0 &&
                                     on.full == a.dim(on.dim) &&
                                     from.layout.split(on.dim, mesh_) == mesh_.size(axis);
      if (!on.is_rep() && !whole_first_block) {
        return Failure("operand 1 is neither replicated on " + mesh_.name(axis) +
                       " nor a padded shard whose first block is the reference");
      }
      verify::Layout expected = from.layout;
      expected.axes[axis] = verify::AxisLayout::partial(verify::ReduceOp::kSum);
      if (!(f.layout == expected)) {
        return "the ranks of " + mesh_.name(axis) + " coordinate " + std::to_string(c) +
               " keep operand 1, the others zeros: " + expected.to_string(mesh_) + ", not " +
               f.layout.to_string(mesh_);
      }
      return *known_[f.premises[0]];
    }
  }
  return Failure("the devices picking operand 1 are not one coordinate of one mesh axis");
}

FactCheck FactChecker::collective(const DerivedFact& f, const ir::Instruction& instr,
                                  const DerivedFact& p) {
  using ir::Opcode;
  const Opcode op = instr.opcode;
  const TermId x = *known_[p.index];
  if (f.rule == "async-done") {
    if (!(p.layout == f.layout)) return std::string("the done half keeps its start's layout");
    return x;
  }
  if (f.rule == "ring-step") return ring_step(f, instr, p);
  if (f.rule == "collective-permute") {
    // Device t gets device s's value for each pair (s, t). It is the same value when s and t
    // differ only on axes where the value is replicated; on one axis where it is partial, a
    // one-to-one exchange within each group of that axis keeps the group's combination.
    if (!(p.layout == f.layout)) return std::string("a permutation keeps its operand's layout");
    const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
    if (auto problem = pairs_problem(pairs)) return *problem;
    std::vector<int> out(static_cast<size_t>(mesh_.device_count()), 0);
    std::vector<size_t> partial_axes_moved;
    bool within_replicated = true;
    for (const auto& [from, to] : *pairs) {
      ++out[static_cast<size_t>(from)];
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        if (mesh_.coordinate(from, a) == mesh_.coordinate(to, a)) continue;
        if (p.layout.axes[a].is_partial()) {
          if (std::find(partial_axes_moved.begin(), partial_axes_moved.end(), a) ==
              partial_axes_moved.end()) {
            partial_axes_moved.push_back(a);
          }
        } else if (!p.layout.axes[a].is_rep()) {
          within_replicated = false;
        }
      }
    }
    if (!within_replicated) return std::string("the pairs move blocks between devices");
    if (!partial_axes_moved.empty()) {
      size_t partial_axes = 0;
      for (const AxisLayout& q : p.layout.axes) partial_axes += q.is_partial() ? 1 : 0;
      const bool one_to_one = std::all_of(out.begin(), out.end(), [](int k) { return k == 1; });
      // Moved along the one partial axis only, each part sent once.
      bool only_that_axis = partial_axes == 1 && partial_axes_moved.size() == 1 && one_to_one;
      for (const auto& [from, to] : *pairs) {
        for (size_t a = 0; a < mesh_.rank() && only_that_axis; ++a) {
          only_that_axis =
              a == partial_axes_moved[0] || mesh_.coordinate(from, a) == mesh_.coordinate(to, a);
        }
      }
      if (!only_that_axis) {
        return std::string("partial parts are exchanged other than one-to-one within their axis");
      }
    }
    return x;
  }
  const bool reduce = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart;
  const auto axes = mesh_.axes_of(instr.replica_groups_or_all(), !reduce);
  if (!axes) return "its replica groups are not the groups of any axes of " + mesh_.to_string();
  Layout want = p.layout;
  const bool gather = op == Opcode::kAllGather || op == Opcode::kAllGatherStart;
  double copies = 1;  // a sum of equal copies: their number times the value
  if (reduce) {
    const auto c = reduction_of(dist_, instr);
    if (!c) return std::string("its reducer is not one sum, max, min or product");
    for (size_t a : *axes) {
      const AxisLayout& q = p.layout.axes[a];
      const bool idempotent =
          q.is_rep() && (*c == verify::ReduceOp::kMax || *c == verify::ReduceOp::kMin);
      if (q.is_rep() && *c == verify::ReduceOp::kSum && terms_[x].type.is_array() &&
          ir::is_float(terms_[x].type.dtype())) {
        copies *= static_cast<double>(mesh_.size(a));
      } else if (!(q.is_partial() && q.op == *c) && !idempotent) {
        return "its operand is " + p.layout.to_string(mesh_) + ", which the all-reduce over " +
               mesh_.name(a) + " does not combine into the whole value";
      }
      want.axes[a] = AxisLayout::rep();
    }
  } else if ((gather || op == Opcode::kReduceScatter) && axes->empty()) {
    // Over groups of one device each gets back what it gave: the layout is kept.
  } else if (gather || op == Opcode::kReduceScatter) {
    const ir::DimList& dims = instr.dims_attr("dimensions");
    if (dims.size() != 1 || axes->size() != 1) {
      return std::string("a gather or scatter over one dimension and one mesh axis");
    }
    const size_t a = axes->front();
    const auto d = static_cast<int32_t>(dims[0]);
    const AxisLayout& q = p.layout.axes[a];
    // Another axis sharding d must be a major one (its blocks stay the outer ones).
    if (const auto b = p.layout.minor_shard(a, d)) {
      return "dimension " + std::to_string(d) + " is also sharded over " + mesh_.name(*b) +
             ", a minor axis";
    }
    if (gather) {
      if (!q.is_shard() || q.dim != d) {
        return "its operand is " + p.layout.to_string(mesh_) + " but it gathers dimension " +
               std::to_string(d) + " over " + mesh_.name(a);
      }
      want.axes[a] = AxisLayout::rep();
      if (q.full >= 0) {
        // Padded shards gather into the value followed by padding nobody knows.
        ir::Type padded = terms_[x].type;
        std::vector<int64_t> extent = padded.dims();
        extent[static_cast<size_t>(d)] = instr.type.dim(d);
        padded.set_dims(extent);
        if (!(want == f.layout)) return std::string("a gather of padded shards is replicated");
        return terms_.intern("padded", "dim=" + std::to_string(d), padded, {x});
      }
    } else {
      const auto c = reduction_of(dist_, instr);
      if (!q.is_partial() || !c || q.op != *c) {
        return "its operand is " + p.layout.to_string(mesh_) + ", not a partial value it reduces";
      }
      want.axes[a] = AxisLayout::shard(d);
    }
  } else if (op == Opcode::kAllToAll && f.rule == "all-to-all") {
    return all_to_all(f, instr, p, *axes);
  } else {
    return Failure("`" + instr.opcode_text() + "` is not re-checked yet", true);
  }
  if (!(want == f.layout)) {
    return "from " + p.layout.to_string(mesh_) + " it gives " + want.to_string(mesh_) + ", not " +
           f.layout.to_string(mesh_);
  }
  return copies == 1 ? x : terms_.scaled(copies, x);
}

namespace {

/// The one axis whose part differs between two layouts (shard p → shard q, unpadded, no
/// other axis sharding either dim), or nullopt.
std::optional<size_t> one_shard_moved(const Layout& from, const Layout& to) {
  std::optional<size_t> axis;
  for (size_t a = 0; a < from.axes.size() && a < to.axes.size(); ++a) {
    if (from.axes[a] == to.axes[a]) continue;
    if (axis || !from.axes[a].is_shard() || !to.axes[a].is_shard() || from.axes[a].full >= 0 ||
        to.axes[a].full >= 0) {
      return std::nullopt;
    }
    axis = a;
  }
  if (!axis) return std::nullopt;
  for (size_t b = 0; b < from.axes.size(); ++b) {
    const AxisLayout& q = from.axes[b];
    if (b != *axis && q.is_shard() &&
        (q.dim == from.axes[*axis].dim || q.dim == to.axes[*axis].dim)) {
      return std::nullopt;
    }
  }
  return axis;
}

}  // namespace

TermId FactChecker::rearranged(TermId x, const ir::DataView& view) {
  const ir::DType dtype = terms_[x].type.dtype();
  // A rearrangement that keeps the elements in order is one reshape (as the programs write it,
  // so that a reshaped broadcast meets theirs); otherwise one view of x's own base (composed in
  // the factors of both, as the checker does).
  if (view.canonical().is_reshape()) {
    return terms_.intern("reshape", "", ir::Type::array(dtype, view.shape), {x});
  }
  return terms_.view_term(x, view, dtype);
}

FactCheck FactChecker::moved_block(const DerivedFact& p, const DerivedFact& f) {
  const auto axis = one_shard_moved(p.layout, f.layout);
  if (!axis) return std::string("a view moves one unpadded shard to another dimension");
  const TermId x = *known_[p.index];
  const std::vector<int64_t> dims = terms_[x].type.dims();
  const int64_t n = mesh_.size(*axis);
  // Rank r holds block r of dim `from`: the same elements as block r of dim `to` once the
  // block index (from's major part) is moved to the front of `to`.
  const auto view =
      ir::DataView::block_moved(dims, p.layout.axes[*axis].dim, f.layout.axes[*axis].dim, n);
  if (!view) return std::string("the shard does not fit the value");
  return rearranged(x, *view);
}

FactCheck FactChecker::all_to_all(const DerivedFact& f, const ir::Instruction& instr,
                                  const DerivedFact& p, const std::vector<size_t>& axes) {
  // XLA: each rank cuts its value into n chunks along `dimensions`, sends chunk j to rank j and
  // concatenates what it receives along the same dimension, in rank order.
  const ir::DimList& dims = instr.dims_attr("dimensions");
  if (dims.size() != 1 || axes.size() != 1) {
    return std::string("an all-to-all over one dimension and one mesh axis");
  }
  const size_t a = axes.front();
  const auto c = static_cast<size_t>(dims[0]);
  const auto moved = one_shard_moved(p.layout, f.layout);
  if (moved != a || static_cast<size_t>(f.layout.axes[a].dim) != c) {
    return "from " + p.layout.to_string(mesh_) + " an all-to-all of dimension " +
           std::to_string(c) + " over " + mesh_.name(a) + " does not give " +
           f.layout.to_string(mesh_);
  }
  const auto e = static_cast<size_t>(p.layout.axes[a].dim);
  const TermId x = *known_[p.index];
  const std::vector<int64_t> ref = terms_[x].type.dims();
  const int64_t n = mesh_.size(a);
  if (c >= ref.size() || ref[c] % n != 0 || ref[e] % n != 0) {
    return std::string("the chunks do not fit the value");
  }
  // Rank r receives, from each rank j (holding block j of e), chunk r of c: along c it holds
  // (j, chunk) for its r — block r of c once c is (r, j, chunk) and e only its block.
  std::vector<int64_t> cut, order, out;
  std::vector<int64_t> major(ref.size()), minor(ref.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    const bool split = k == e || k == c;
    major[k] = static_cast<int64_t>(cut.size());
    if (split) cut.push_back(n);
    minor[k] = static_cast<int64_t>(cut.size());
    cut.push_back(split ? ref[k] / n : ref[k]);
  }
  for (size_t k = 0; k < ref.size(); ++k) {
    if (k == c) {
      order.insert(order.end(), {major[c], major[e], minor[c]});
    } else {
      order.push_back(minor[k]);
    }
    out.push_back(k == e ? ref[k] / n : k == c ? ref[k] * n : ref[k]);
  }
  auto view = ir::DataView::identity(ref).reshaped(cut);
  if (view) view = view->transposed(order);
  if (view) view = view->reshaped(out);
  if (!view) return std::string("the chunks do not fit the value");
  return rearranged(x, *view);
}

FactCheck FactChecker::check_fact(const DerivedFact& f) {
  const ir::Computation& d = dist_.entry();
  const auto id = d.find(f.dist);
  if (!id) return "the distributed program has no node '" + f.dist + "'";
  const ir::Instruction& instr = d[*id];
  for (size_t k : f.premises) {
    if (k >= f.index || !known_[k]) return "premise [" + std::to_string(k) + "] comes later";
  }
  auto premise_is = [&](size_t k, ir::InstrId operand, int64_t element) {
    const DerivedFact& p = premise(f, k);
    return p.dist == d[operand].name && p.element == element;
  };
  const std::string& rule = f.rule;
  if (rule == "bijection" || rule.starts_with("assumption")) {
    // The contract on the inputs (and the result's assumptions): stated, not derived.
    const auto bound = std::find_if(r_.bijection.begin(), r_.bijection.end(), [&](const auto& b) {
      return b.dist == f.dist && b.layout == f.layout;
    });
    const auto assumed =
        std::find_if(r_.assumptions.begin(), r_.assumptions.end(),
                     [&](const auto& a) { return a.dist == f.dist && a.layout == f.layout; });
    if (rule == "bijection" &&
        (bound == r_.bijection.end() || instr.opcode != ir::Opcode::kParameter)) {
      return std::string("not an entry of the bijection");
    }
    if (rule.starts_with(kShare)) return balanced_share(f);
    if (rule.starts_with("assumption: '") && rule.ends_with("' is not 0")) {
      return nonzero_guard(f, instr);
    }
    if (rule != "bijection" && rule != "assumption") {
      return Failure("no rule is called '" + rule + "'");
    }
    if (rule != "bijection") {
      if (assumed == r_.assumptions.end()) return std::string("not a stated assumption");
      assumptions_.insert(f.dist + " " + f.layout.to_string(mesh_) + ": " + assumed->why);
    }
    if (bound != r_.bijection.end() && instr.opcode == ir::Opcode::kParameter) {
      return parameter_term(*bound);
    }
    if (!f.ref.empty()) {
      auto t = reference_term(f.ref, -1);
      if (!t) return "the reference program has no node '" + f.ref + "'";
      return *t;
    }
    if (f.premises.size() == 1) return *known_[f.premises[0]];
    return std::string("an assumption about a value the proof does not name");
  }
  if (rule == "tuple" || rule == "get-tuple-element" || rule == "copy") {
    if (f.premises.size() != 1 || !(premise(f, 0).layout == f.layout)) {
      return std::string("a copy keeps one premise's layout");
    }
    const bool copies =
        (instr.opcode == ir::Opcode::kCopy || instr.opcode == ir::Opcode::kOptimizationBarrier) &&
        instr.type.is_tuple() && instr.operands.size() == 1;
    const bool wired =
        rule == "tuple" ? instr.opcode == ir::Opcode::kTuple && f.element >= 0 &&
                              static_cast<size_t>(f.element) < instr.operands.size() &&
                              premise_is(0, instr.operands[static_cast<size_t>(f.element)], -1)
        : rule == "copy"
            ? copies && f.element >= 0 && premise_is(0, instr.operands[0], f.element)
            : instr.opcode == ir::Opcode::kGetTupleElement && instr.get<int64_t>("index") &&
                  premise_is(0, instr.operands[0], *instr.get<int64_t>("index"));
    if (!wired) return "the premise is not the " + rule + "'s operand";
    return *known_[f.premises[0]];
  }
  if (rule == "mean-as-sum") return mean_as_sum(f);
  if (rule == "dynamic-slice-by-rank") return slice_by_rank(f, instr);
  if (rule == "ring-assembly") return ring_assembly(f, instr);
  if (rule == "select-by-rank") return select_by_rank(f, instr);
  if (rule == "while-induction" || rule == "conditional-branches") return control_flow(f, instr);
  if (rule == "view") {
    // The same value seen as a shard along another dim: of the premise's term with the
    // sharded dim's block index moved to the front of the new dim.
    if (f.premises.size() != 1 || premise(f, 0).dist != f.dist ||
        premise(f, 0).element != f.element) {
      return std::string("a view has one premise: a fact of the same value");
    }
    return moved_block(premise(f, 0), f);
  }
  if (ir::is_collective(instr.opcode)) {
    // Element by element for a tuple-valued collective.
    const size_t operand = f.element >= 0 ? static_cast<size_t>(f.element) : 0;
    if (f.premises.size() != 1 || operand >= instr.operands.size() ||
        !premise_is(0, instr.operands[operand], -1)) {
      return std::string("the premise is not the collective's operand");
    }
    return collective(f, instr, premise(f, 0));
  }
  if (rule.starts_with("factor:") || rule == "broadcast-as-shard") {
    if (rule.starts_with("factor:") && rule.substr(7) != term_op(dist_, instr)) {
      return "the node is a `" + instr.opcode_text() + "`";
    }
    if (f.premises.size() != instr.operands.size()) {
      return std::string("the step does not name one premise per operand");
    }
    std::vector<Layout> layouts;
    std::vector<TermId> terms;
    for (size_t k = 0; k < f.premises.size(); ++k) {
      if (!premise_is(k, instr.operands[k], -1)) {
        return "premise [" + std::to_string(f.premises[k]) + "] is not operand " +
               std::to_string(k);
      }
      layouts.push_back(premise(f, k).layout);
      terms.push_back(*known_[f.premises[k]]);
    }
    const StepCheck c =
        check_step(terms_, {dist_, instr, layouts, terms, f.layout, f.element, mesh_});
    if (!c.term) return Failure(c.why, c.unsupported);
    return *c.term;
  }
  return Failure("no rule is called '" + rule + "'");
}

}  // namespace scalify::proofcheck::detail
