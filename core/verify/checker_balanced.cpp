// The balanced-partials assumption (CheckOptions::balanced_partials). A data-parallel program
// that averages over its batch shard (torch's `mean` reductions, nll_loss with ignore_index)
// divides each rank's partial sum by each rank's own count. That is the reference's mean only
// when every rank counts the same, and the checker can say so: a scalar partial sum S over an
// axis of n ranks is then S/n on every rank, a replicated value that non-linear ops may use.
// torch guards such a divisor as `select(count != 0, count, 1)`; with the count assumed not 0
// that is the count itself, on both sides.
#include "verify/checker_internal.h"

namespace scalify::verify::detail {

namespace {

/// The axis on which `layout` is partial(sum), when it is that on one axis and rep elsewhere.
std::optional<size_t> sum_axis(const Layout& layout) {
  std::optional<size_t> axis;
  for (size_t a = 0; a < layout.axes.size(); ++a) {
    const AxisLayout& p = layout.axes[a];
    if (p.is_rep()) continue;
    if (!p.is_partial() || p.op != ReduceOp::kSum || axis) return std::nullopt;
    axis = a;
  }
  return axis;
}

/// x when `select` is `select(compare(x, 0, NE), x, c)` (either compare operand the zero), as
/// judged by `is_zero` on instruction ids.
template <class IsZero>
std::optional<InstrId> guarded_value(const ir::Computation& comp, const ir::Instruction& select,
                                     IsZero is_zero) {
  if (select.opcode != ir::Opcode::kSelect || select.operands.size() != 3) return std::nullopt;
  const ir::Instruction& cmp = comp[select.operands[0]];
  const auto* direction = cmp.get<ir::Word>("direction");
  if (cmp.opcode != ir::Opcode::kCompare || !direction || direction->text != "NE" ||
      cmp.operands.size() != 2) {
    return std::nullopt;
  }
  const InstrId x = select.operands[1];
  if ((cmp.operands[0] == x && is_zero(cmp.operands[1])) ||
      (cmp.operands[1] == x && is_zero(cmp.operands[0]))) {
    return x;
  }
  return std::nullopt;
}

}  // namespace

/// The values a divide divides by (through broadcasts, reshapes, conversions and non-zero
/// guards), and those a non-zero guard keeps (a guard is written for a divisor: where the
/// divide is wrong or missing, the count is still one): the counts a mean divides by, the only
/// values the assumption is made of.
void Checker::find_divisors() {
  const ir::Computation& d = dist_.entry();
  divisors_.assign(d.size(), false);
  auto is_constant_zero = [&](InstrId z) { return scalar_value(d[z]) == 0.0; };
  for (size_t i = 0; i < d.size(); ++i) {
    const ir::Instruction& instr = d[static_cast<InstrId>(i)];
    if (auto x = guarded_value(d, instr, is_constant_zero))
      divisors_[static_cast<size_t>(*x)] = true;
    if (instr.opcode != ir::Opcode::kDivide || instr.operands.size() != 2) continue;
    InstrId v = instr.operands[1];
    for (int hops = 0; hops < 8; ++hops) {
      const ir::Instruction& u = d[v];
      if (u.opcode == ir::Opcode::kBroadcast || u.opcode == ir::Opcode::kReshape ||
          u.opcode == ir::Opcode::kConvert || u.opcode == ir::Opcode::kCopy) {
        v = u.operands[0];
      } else if (auto x = guarded_value(d, u, is_constant_zero)) {
        v = *x;
      } else {
        break;
      }
    }
    divisors_[static_cast<size_t>(v)] = true;
  }
}

void Checker::offer_balanced_share(InstrId id, uint32_t fact) {
  const ir::Type& t = dist_.entry()[id].type;
  if (!options_.balanced_partials || !t.is_array() || t.rank() != 0 || !ir::is_float(t.dtype()) ||
      static_cast<size_t>(id) >= divisors_.size() || !divisors_[static_cast<size_t>(id)]) {
    return;
  }
  const std::optional<size_t> axis = sum_axis(facts_[fact].layout);
  if (!axis) return;
  const double n = static_cast<double>(mesh_.size(*axis));
  Fact share;
  share.layout = Layout::replicated(mesh_.rank());
  share.ref = bridge_.scale(facts_[fact].ref, 1.0 / n);
  share.rule = "assumption: the same on every rank of " + mesh_.name(*axis);
  share.premises = {fact};
  const ClassId total = facts_[fact].ref;
  if (!add_fact(id, facts_[fact].element, std::move(share))) return;
  balanced_.push_back(
      {id, total, facts_.back().ref, static_cast<uint32_t>(facts_.size() - 1), *axis, false, {}});
  const ir::Instruction& instr = dist_.entry()[id];
  result_.assumptions.push_back({instr.name, facts_.back().layout,
                                 "the partial sum '" + instr.name +
                                     "' is the same on every rank of " + mesh_.name(*axis) +
                                     ": each holds 1/" + std::to_string(mesh_.size(*axis)) +
                                     " of the total (every rank counts as many items)"});
}

/// A distributed `select(x != 0, x, c)` of a balanced x is x, the count assumed not 0.
bool Checker::lift_nonzero_guard(InstrId id) {
  if (balanced_.empty()) return false;
  const ir::Computation& d = dist_.entry();
  auto is_zero = [&](InstrId z) {
    const auto& facts = facts_of_[static_cast<size_t>(z)];
    if (facts.size() != 1) return false;
    for (uint32_t f : facts[0]) {
      if (bridge_.number_value(facts_[f].ref) == 0.0) return true;
    }
    return false;
  };
  const std::optional<InstrId> x = guarded_value(d, d[id], is_zero);
  if (!x) return false;
  // The value chosen when x is 0: dead under the assumption, yet it must be the reference's own
  // guard value, so that a changed guard still shows.
  std::optional<double> fallback;
  for (uint32_t f : facts_of_[static_cast<size_t>(d[id].operands[2])][0]) {
    if (auto v = bridge_.number_value(facts_[f].ref)) fallback = v;
  }
  for (Balanced& b : balanced_) {
    if (b.dist != *x) continue;
    b.ref_guards = reference_guards(b.total, fallback);
    if (b.ref_guards.empty()) return false;
    Fact f = facts_[b.share_fact];
    f.rule = "assumption: '" + d[*x].name + "' is not 0";
    f.premises = {b.share_fact};
    f.apply = false;
    b.guarded = true;
    add_fact(id, 0, std::move(f));
    return true;
  }
  return false;
}

/// The reference's guards `select(X != 0, X, c)` of `total` whose c is `fallback`.
std::vector<InstrId> Checker::reference_guards(ClassId total,
                                               std::optional<double> fallback) const {
  const ir::Computation& r = ref_.entry();
  auto class_of = [&](InstrId i) -> std::optional<ClassId> {
    const auto& v = ref_values_[static_cast<size_t>(i)];
    if (v.size() != 1 || !v[0]) return std::nullopt;
    return g_.find(*v[0]);
  };
  auto number = [&](InstrId i) -> std::optional<double> {
    const auto c = class_of(i);
    return c ? bridge_.number_value(*c) : std::nullopt;
  };
  auto is_zero = [&](InstrId z) { return number(z) == 0.0; };
  std::vector<InstrId> out;
  for (size_t i = 0; i < r.size(); ++i) {
    const InstrId id = static_cast<InstrId>(i);
    const auto x = guarded_value(r, r[id], is_zero);
    if (x && class_of(*x) == g_.find(total) && fallback && number(r[id].operands[2]) == fallback) {
      out.push_back(id);
    }
  }
  return out;
}

/// The reference's own guards of a balanced total are the total, under the same assumption.
void Checker::merge_reference_guards() {
  const ir::Computation& r = ref_.entry();
  bool merged = false;
  for (const Balanced& b : balanced_) {
    if (!b.guarded) continue;
    for (InstrId sel : b.ref_guards) {
      g_.merge(*ref_values_[static_cast<size_t>(sel)][0], b.total);
      merged = true;
      const std::string& x = r[r[sel].operands[1]].name;
      result_.assumptions.push_back(
          {x, Layout::replicated(mesh_.rank()),
           "the reference's '" + x + "' is not 0 (at least one item is counted)"});
    }
  }
  if (merged) g_.rebuild();
}

void Checker::add_scaled_reference() {
  if (balanced_.empty()) return;
  // The scales themselves (the 1/n of a mean all-reduce).
  for (size_t a = 0; a < mesh_.rank(); ++a) {
    const double n = static_cast<double>(mesh_.size(a));
    if (n == 1) continue;
    scaled_reference_.push_back(bridge_.number(n));
    scaled_reference_.push_back(bridge_.number(1 / n));
  }
  for (const auto& values : ref_values_) {
    for (const auto& c : values) {
      const auto t = c ? types_.type(g_.type_of(*c)) : std::nullopt;
      if (!t || !t->is_array() || !ir::is_float(t->dtype())) continue;
      for (size_t a = 0; a < mesh_.rank(); ++a) {
        const double n = static_cast<double>(mesh_.size(a));
        if (n == 1) continue;
        scaled_reference_.push_back(bridge_.scale(*c, n));
        scaled_reference_.push_back(bridge_.scale(*c, 1 / n));
      }
    }
  }
}

}  // namespace scalify::verify::detail
