// The checker's run: the reference's terms, the bijection's facts, saturation, goals and the
// verdict (lifting in checker_lift.cpp, reports in checker_report.cpp).
#include "verify/checker.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "rules/bundled_rules.h"
#include "rules/rule_parser.h"
#include "verify/bijection.h"
#include "verify/checker_internal.h"
#include "verify/spec.h"

namespace scalify::verify {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kEquivalent:
      return "equivalent";
    case Verdict::kDivergent:
      return "divergent";
    case Verdict::kInconclusive:
      return "inconclusive";
  }
  return "inconclusive";
}

namespace detail {

namespace {

/// An all-reduce, all-gather or reduce-scatter whose every replica group is one device, of as
/// many operands as it returns values: it returns its operands.
bool moves_nothing(const ir::Instruction& instr) {
  using ir::Opcode;
  const Opcode op = instr.opcode;
  if (op != Opcode::kAllReduce && op != Opcode::kAllGather && op != Opcode::kReduceScatter) {
    return false;
  }
  const ir::ReplicaGroups* groups = instr.replica_groups();
  if (!groups || groups->groups.empty()) return false;
  for (const auto& g : groups->groups) {
    if (g.size() != 1) return false;
  }
  return instr.operands.size() == (instr.type.is_tuple() ? instr.type.elements().size() : 1);
}

}  // namespace

void Checker::encode_reference() {
  const ir::Computation& entry = ref_.entry();
  ref_values_.assign(entry.size(), {});
  auto order = entry.topological_order();
  if (!order) return;
  for (InstrId id : *order) {
    const ir::Instruction& instr = entry[id];
    auto& out = ref_values_[static_cast<size_t>(id)];
    out.assign(element_count(instr.type), std::nullopt);
    // A tuple, and a collective over groups of one device (torch-xla writes them on one
    // device): each element is its operand.
    if (instr.opcode == ir::Opcode::kTuple || moves_nothing(instr)) {
      for (size_t i = 0; i < instr.operands.size() && i < out.size(); ++i) {
        const auto& in = ref_values_[static_cast<size_t>(instr.operands[i])];
        out[i] = in.size() == 1 ? in[0] : std::nullopt;
      }
      continue;
    }
    if (copies_tuple(entry, instr)) {
      out = ref_values_[static_cast<size_t>(instr.operands[0])];
      continue;
    }
    // A loop or branch left after unrolling takes its tuple operands element by element.
    const bool flattens = TermBridge::control_flow_left(instr).has_value();
    std::vector<ClassId> kids;
    bool ok = true;
    for (InstrId o : instr.operands) {
      const auto& in = ref_values_[static_cast<size_t>(o)];
      if (flattens && entry[o].type.is_tuple()) {
        for (const auto& element : in) {
          ok = ok && element.has_value();
          if (element) kids.push_back(*element);
        }
        if (!ok) break;
        continue;
      }
      if (instr.opcode == ir::Opcode::kGetTupleElement) {
        const auto* index = instr.get<int64_t>("index");
        if (index && static_cast<size_t>(*index) < in.size() && in[static_cast<size_t>(*index)]) {
          out[0] = in[static_cast<size_t>(*index)];
        }
        ok = false;
        break;
      }
      if (in.size() != 1 || !in[0]) {
        ok = false;
        break;
      }
      kids.push_back(*in[0]);
    }
    if (!ok) continue;
    auto e = bridge_.encode(ref_, instr, kids, instr.type, "ref");
    if (e && instr.type.is_tuple()) {
      for (size_t i = 0; i < out.size(); ++i) {
        out[i] =
            bridge_.get_tuple_element(*e.id, static_cast<int64_t>(i), instr.type.elements()[i]);
      }
    } else if (e) {
      out[0] = *e.id;
    } else {
      ref_unsupported_.push_back(instr.name + ": " + e.why);
    }
  }
  index_reference_values();
}

void Checker::index_reference_values() {
  for (const auto& values : ref_values_) {
    for (const auto& c : values) {
      if (!c) continue;
      ref_classes_.insert(g_.find(*c));
      ref_types_.insert(g_.type_of(*c));
    }
  }
}

void Checker::restore_reference(const SaturationMemo::EncodedReference& e) {
  g_ = e.graph;
  vocab_ = e.vocab;
  types_ = e.types;
  bridge_.restore(e.bridge);
  ref_values_ = e.values;
  ref_unsupported_ = e.unsupported;
  index_reference_values();
}

bool Checker::add_fact(InstrId id, size_t element, Fact fact) {
  random_as_assumption(dist_.entry()[id], fact);
  auto& list = facts_of_[static_cast<size_t>(id)][element];
  size_t alike = 0;
  for (uint32_t f : list) {
    if (!(facts_[f].layout == fact.layout)) continue;
    if (g_.find(facts_[f].ref) == g_.find(fact.ref)) return false;
    ++alike;
  }
  // Enough alternatives for one value: a few reference terms per layout (reshapes may fit
  // several), a few layouts.
  if (list.size() >= 8 || alike >= 3) return false;
  fact.instr = id;
  fact.element = element;
  fact.anchored =
      likeness(fact.ref) == 0 || std::any_of(fact.premises.begin(), fact.premises.end(),
                                             [&](uint32_t p) { return facts_[p].anchored; });
  facts_.push_back(std::move(fact));
  list.push_back(static_cast<uint32_t>(facts_.size() - 1));
  offer_balanced_share(id, static_cast<uint32_t>(facts_.size() - 1));
  return true;
}

void Checker::seed(const std::vector<ParamBinding>& bindings) {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  facts_of_.assign(d.size(), {});
  for (size_t i = 0; i < d.size(); ++i)
    facts_of_[i].assign(element_count(d[static_cast<InstrId>(i)].type), {});
  for (const ParamBinding& b : bindings) {
    if (b.dist < 0 || !b.ref) continue;
    const auto& rv = ref_values_[static_cast<size_t>(*b.ref)];
    if (rv.size() != 1 || !rv[0]) continue;
    Fact f;
    f.layout = b.layout;
    f.ref = *rv[0];
    if (!b.reshape.empty()) {
      f.ref = bridge_.reshape(f.ref, ir::Type::array(r[*b.ref].type.dtype(), b.reshape));
    }
    if (!b.permutation.empty()) {
      const ir::Type& rt = r[*b.ref].type;
      std::vector<int64_t> dims;
      for (int64_t p : b.permutation) dims.push_back(rt.dim(p));
      f.ref = bridge_.transpose(f.ref, b.permutation, ir::Type::array(rt.dtype(), dims));
    }
    f.rule = b.assumption ? "assumption" : "bijection";
    // Each rank holding a part whose mean over an axis is the value (a gradient accumulated
    // from local means) is each holding a part whose sum is n times it: the layout ops carry.
    auto [sums, n] = f.layout.means_as_sums(mesh_);
    const ClassId value = f.ref;
    if (add_fact(b.dist, 0, std::move(f)) && n > 1) {
      Fact as_sum;
      as_sum.layout = std::move(sums);
      as_sum.ref = bridge_.scale(value, static_cast<double>(n));
      as_sum.rule = "mean-as-sum";
      as_sum.premises = {static_cast<uint32_t>(facts_.size() - 1)};
      add_fact(b.dist, 0, std::move(as_sum));
    }
    BijectionEntry e{d[b.dist].name,
                     r[*b.ref].name,
                     d[b.dist].parameter_number,
                     r[*b.ref].parameter_number,
                     b.layout,
                     b.why,
                     b.reshape,
                     b.permutation};
    result_.bijection.push_back(e);
    if (b.assumption) result_.assumptions.push_back({d[b.dist].name, b.layout, b.why});
  }
}

void Checker::saturate() {
  g_.rebuild();  // matching reads the node lists, which rebuild() refreshes
  std::string key;
  const SaturationMemo::Saturated* saturated = nullptr;
  if (memo_) {
    key = saturation_key();
    saturated = memo_->find(key);
  }
  if (saturated) {
    g_ = saturated->graph;
    vocab_ = saturated->vocab;
    types_ = saturated->types;
    report_ = saturated->report;
    origins_ = saturated->origins;
    result_.notes.insert(result_.notes.end(), saturated->notes.begin(), saturated->notes.end());
  } else {
    const size_t notes_before = result_.notes.size();
    run_rules();
    if (memo_) {
      memo_->store(std::move(key), {g_, vocab_, types_, report_, origins_,
                                    std::vector<std::string>(result_.notes.begin() + notes_before,
                                                             result_.notes.end())});
    }
  }
  for (const egraph::RuleConflict& c : report_.conflicts) {
    auto show = [this](egraph::TypeId t) {
      auto type = types_.type(t);
      return type ? type->to_string(false)
                  : std::string(t == TypeTable::kNumber ? "a number" : "an untyped value");
    };
    result_.notes.push_back("rule " + c.rule + " tried to merge " + show(c.conflict.type_a) +
                            " with " + show(c.conflict.type_b) + " (refused)");
  }
  result_.stats.iterations = report_.iterations.size();
  result_.stats.stop_reason = egraph::to_string(report_.stop);
  // The goal test holds at once when no reference output has a counterpart: nothing to prove.
  const auto outputs = ref_values_[static_cast<size_t>(ref_.entry().root)].size();
  bool any_goal = false;
  for (size_t i = 0; i < outputs && !any_goal; ++i) any_goal = dist_element(i).has_value();
  if (report_.stop == egraph::StopReason::kGoal && !any_goal) {
    result_.stats.stop_reason = "no output to prove";
  }
}

namespace {

/// The bundled rule files, parsed once per process: compiled rules' origins point into them
/// (RuleOrigin::syntax), so they must outlive every check, saturated e-graphs lent by the memo
/// included.
struct BundledRules {
  std::vector<rules::RuleFile> files;
  std::vector<std::string> errors;  ///< "bundled rules: FILE:LINE:COL: error: …"
};

const BundledRules& bundled_rules() {
  static const BundledRules parsed = [] {
    BundledRules b;
    for (const rules::RuleText& text : rules::bundled_rule_files()) {
      auto file = rules::parse_rules(text.text, text.name);
      if (file) {
        b.files.push_back(std::move(*file));
      } else {
        b.errors.push_back("bundled rules: " + file.error().format());
      }
    }
    return b;
  }();
  return parsed;
}

}  // namespace

void Checker::declare_commutative() {
  // The bridge writes each HLO op as one binary node: an `ac` operator's rule sides, written
  // n-ary, would not match them. Bundled files declare `comm` (bundled_rules_test.cpp).
  for (const rules::RuleFile& f : bundled_rules().files) {
    for (const rules::AcDecl& d : f.ac) {
      if (!d.associative) vocab_.set_commutative(vocab_.symbol(d.op), false);
    }
  }
  g_.set_commutative(vocab_.commutative_symbols());
}

void Checker::run_rules() {
  const BundledRules& bundled = bundled_rules();
  const std::vector<rules::RuleFile>& files = bundled.files;
  result_.notes.insert(result_.notes.end(), bundled.errors.begin(), bundled.errors.end());
  std::vector<egraph::Rule> all;
  auto oracle = [this](const egraph::ENode& n) { return types_.type_of(n, g_, vocab_); };
  auto lookup = [this](egraph::TypeId id) { return types_.type(id); };
  for (const rules::RuleFile& f : files) {
    auto compiled = rules::compile_rules(f, vocab_, oracle, nullptr, lookup);
    if (!compiled) {
      result_.notes.push_back("bundled rules: " + compiled.error().format());
      continue;
    }
    for (egraph::Rule& r : compiled->rules) all.push_back(std::move(r));
    for (rules::RuleOrigin& o : compiled->origins) origins_.push_back(std::move(o));
  }
  egraph::RunOptions run;
  run.limits.iterations = options_.iteration_limit;
  run.limits.nodes = options_.node_limit;
  run.limits.seconds = options_.budget_seconds;
  run.scheduling.backoff = true;
  run.scheduling.match_limit = options_.match_limit;
  // Goals still unproven at the limit get iterations free of back-off: a bug in one gradient
  // must not leave another unproven for want of a banned rule, or the divergence is looked for
  // in the wrong place.
  run.scheduling.rescue_iterations = options_.rescue_iterations;
  run.ill_typed = TypeTable::kUntyped;
  run.shapeless = TypeTable::kNumber;
  // Stop as soon as every goal holds: saturating further proves nothing the check needs.
  run.goal = [this](const egraph::EGraph& g) { return all_goals_hold(g); };
  report_ = egraph::run(g_, all, run);
}

std::string Checker::saturation_key() const {
  std::string key = saturation_state(g_, vocab_, types_);
  const auto put = [&key](auto... values) { ((key += std::to_string(values), key += ' '), ...); };
  put(options_.iteration_limit, options_.node_limit, options_.budget_seconds, options_.match_limit,
      options_.rescue_iterations);
  // What all_goals_hold() reads: per reference output, its class, the distributed element's
  // facts, the layout it must meet and the classes a partial mean is sought in.
  const auto& ref_out = ref_values_[static_cast<size_t>(ref_.entry().root)];
  const auto& dist_out = facts_of_[static_cast<size_t>(dist_.entry().root)];
  for (size_t i = 0; i < ref_out.size(); ++i) {
    const auto e = dist_element(i);
    put(i, ref_out[i] ? int64_t{*ref_out[i]} : -1, e ? static_cast<int64_t>(*e) : -1);
    if (e && *e < dist_out.size()) {
      for (uint32_t f : dist_out[*e]) key += facts_[f].layout.to_string(mesh_), put(facts_[f].ref);
    }
    if (const Requirement* want = required_layout(i)) {
      key += want->layout.to_string(mesh_) + want->unreadable;
      put(want->exact);
      for (int64_t d : want->local_dims) put(d);
    }
    if (i < mean_goals_.size()) {
      for (ClassId c : mean_goals_[i]) put(c);
    }
    key += ';';
  }
  return key;
}

/// Whether every reference output has a distributed fact in its e-class (what decide_goals
/// will find proven).
bool Checker::all_goals_hold(const egraph::EGraph& g) const {
  const ir::Computation& r = ref_.entry();
  const ir::Computation& d = dist_.entry();
  const auto& ref_out = ref_values_[static_cast<size_t>(r.root)];
  const auto& dist_out = facts_of_[static_cast<size_t>(d.root)];
  if (ref_out.empty()) return false;
  for (size_t i = 0; i < ref_out.size(); ++i) {
    const auto e = dist_element(i);
    if (!e) continue;  // no counterpart: not a goal
    if (!ref_out[i] || *e >= dist_out.size()) return false;
    const Requirement* want = required_layout(i);
    bool held = false;
    for (uint32_t f : dist_out[*e]) {
      const std::optional<Layout> proven = goal_layout(g, f, i);
      held = held || (proven && (!want || want->met_by(*proven)));
    }
    if (!held) return false;
  }
  return true;
}

/// Outputs may be returned as partial means (a data-parallel loss, each rank's mean over its
/// batch shard): partial(sum) of n × X, n the axis size, is partial(mean) of X. The terms n × X
/// are added before saturation so that rewriting can meet them.
void Checker::add_mean_goals() {
  const ir::Computation& r = ref_.entry();
  const auto& ref_out = ref_values_[static_cast<size_t>(r.root)];
  mean_goals_.assign(ref_out.size(), {});
  for (size_t i = 0; i < ref_out.size(); ++i) {
    const auto t = ref_out[i] ? types_.type(g_.type_of(*ref_out[i])) : std::nullopt;
    if (!t || !t->is_array() || !ir::is_float(t->dtype())) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      if (mesh_.size(a) == 1) continue;
      mean_goals_[i].push_back(bridge_.scale(*ref_out[i], static_cast<double>(mesh_.size(a))));
    }
  }
}

std::optional<Layout> Checker::goal_layout(const egraph::EGraph& g, uint32_t f, size_t i) const {
  const auto& ref_out = ref_values_[static_cast<size_t>(ref_.entry().root)];
  if (i >= ref_out.size() || !ref_out[i]) return std::nullopt;
  const Fact& fact = facts_[f];
  if (g.find(fact.ref) == g.find(*ref_out[i])) return fact.layout;
  if (i >= mean_goals_.size() || mean_goals_[i].empty()) return std::nullopt;  // not a float
  size_t k = 0;
  for (size_t a = 0; a < mesh_.rank(); ++a) {
    if (mesh_.size(a) == 1) continue;
    const ClassId scaled = mean_goals_[i][k++];
    const AxisLayout sum = AxisLayout::partial(ReduceOp::kSum);
    if (fact.layout == Layout::on(mesh_, a, sum) && g.find(fact.ref) == g.find(scaled)) {
      return Layout::on(mesh_, a, AxisLayout::partial(ReduceOp::kMean));
    }
  }
  return std::nullopt;
}

std::optional<size_t> Checker::dist_element(size_t ref_index) const {
  for (const OutputBinding& o : outputs_) {
    if (o.ref_index == static_cast<int64_t>(ref_index)) {
      if (!o.dist_index) return std::nullopt;
      return static_cast<size_t>(*o.dist_index);
    }
  }
  return ref_index;
}

bool Checker::Requirement::met_by(const Layout& proven) const {
  if (!unreadable.empty()) return false;
  if (exact) return proven == layout;
  // A padded split that cannot show (each rank as long as the whole) is no layout a shape can
  // tell from another: an annotation is not held against it.
  for (const AxisLayout& p : proven.axes) {
    const auto k = static_cast<size_t>(p.dim);
    if (p.is_shard() && p.full >= 0 && k < local_dims.size() && local_dims[k] >= p.full) {
      return true;
    }
  }
  if (proven.axes.size() != layout.axes.size()) return false;
  for (size_t a = 0; a < proven.axes.size(); ++a) {
    const AxisLayout &p = proven.axes[a], &w = layout.axes[a];
    if (p.kind != w.kind || (p.is_shard() && p.dim != w.dim) || (p.is_partial() && p.op != w.op))
      return false;
  }
  return true;
}

void Checker::read_output_requirements() {
  const ir::Type& rroot = ref_.entry()[ref_.entry().root].type;
  const size_t outputs = rroot.is_tuple() ? rroot.elements().size() : 1;
  requirements_.assign(outputs, std::nullopt);
  const ir::Instruction& droot = dist_.entry()[dist_.entry().root];
  // A loop body's or branch's ROOT annotation says what the state is, not what a caller reads.
  const ir::Sharding* sharding = options_.loop_depth == 0 ? droot.sharding() : nullptr;
  for (size_t i = 0; i < outputs; ++i) {
    const ir::Type* r = rroot.is_tuple() ? &rroot.elements()[i] : &rroot;
    const auto spec = std::find_if(outputs_.begin(), outputs_.end(), [&](const OutputBinding& o) {
      return o.ref_index == static_cast<int64_t>(i) && o.layout;
    });
    if (spec != outputs_.end()) {
      requirements_[i] = Requirement{*spec->layout, true, "the spec", "", {}};
      continue;
    }
    const std::optional<size_t> e = dist_element(i);
    if (!sharding || !e) continue;
    if (!droot.type.is_tuple()) {
      if (*e == 0) requirements_[i] = annotated_requirement(*sharding, droot.type, r);
      continue;
    }
    const auto& types = droot.type.elements();
    if (*e >= types.size()) continue;
    if (sharding->kind == ir::Sharding::Kind::kTuple && *e < sharding->elements.size()) {
      requirements_[i] = annotated_requirement(sharding->elements[*e], types[*e], r);
    } else if (sharding->kind == ir::Sharding::Kind::kReplicated) {
      requirements_[i] = annotated_requirement(*sharding, types[*e], r);
    }
  }
}

std::optional<Checker::Requirement> Checker::annotated_requirement(const ir::Sharding& sharding,
                                                                   const ir::Type& dist,
                                                                   const ir::Type* ref) const {
  if (!dist.is_array() || !ref) return std::nullopt;
  std::string why_not;
  bool contradicts = false;
  Requirement want{Layout{}, false, "its sharding=" + sharding.to_string(), "", dist.dims()};
  std::optional<std::pair<Mesh, Layout>> read;
  if (auto layout = layout_from_sharding(sharding, dist.rank(), mesh_, &why_not, &contradicts)) {
    read = std::pair{mesh_, std::move(*layout)};
  } else if (contradicts) {
    // Blocks placed in another device order: what it says can only be fitted to the shapes on
    // the mesh it lists.
    read = layout_in_listed_order(sharding, dist.rank(), mesh_);
    want.unreadable = why_not + " (the mesh " + mesh_.to_string() + ")";
  }
  if (!read) return std::nullopt;
  want.layout = std::move(read->second);
  // An annotation that makes the output no split of the reference's (a program not yet
  // partitioned, whose annotations are requests), or splits a dim its shape cannot show split
  // (1 row over 4 devices), says nothing to hold the output to.
  if (!pad_to(want.layout, dist, *ref, read->first)) return std::nullopt;
  for (const AxisLayout& a : want.layout.axes) {
    if (a.is_shard() && dist.dim(a.dim) >= ref->dim(a.dim)) return std::nullopt;
  }
  return want;
}

bool Checker::some_output_unlifted() const {
  const auto& dist_out = facts_of_[static_cast<size_t>(dist_.entry().root)];
  return std::any_of(dist_out.begin(), dist_out.end(),
                     [](const std::vector<uint32_t>& element) { return element.empty(); });
}

void Checker::decide_goals() {
  const ir::Computation& r = ref_.entry();
  const ir::Computation& d = dist_.entry();
  const auto& ref_out = ref_values_[static_cast<size_t>(r.root)];
  const auto& dist_out = facts_of_[static_cast<size_t>(d.root)];
  const ir::Instruction& rroot = r[r.root];
  const ir::Instruction& droot = d[d.root];
  std::vector<bool> used(dist_out.size(), false);
  // Elements that carry no values (tokens, empty tuples) are nothing to prove.
  auto no_values = [](const ir::Instruction& root, size_t i) {
    return root.type.is_tuple() && i < root.type.elements().size() &&
           ir::carries_no_values(root.type.elements()[i]);
  };
  for (size_t i = 0; i < dist_out.size(); ++i) used[i] = no_values(droot, i);
  for (size_t i = 0; i < ref_out.size(); ++i) {
    if (no_values(rroot, i)) continue;
    Goal goal;
    goal.index = static_cast<int64_t>(i);
    goal.ref = rroot.name + (rroot.type.is_tuple() ? "#" + std::to_string(i) : "");
    const auto e = dist_element(i);
    if (!e || *e >= dist_out.size()) {
      result_.unmatched_ref_outputs.push_back(goal.ref);
      continue;
    }
    used[*e] = true;
    goal.dist = droot.name + (droot.type.is_tuple() ? "#" + std::to_string(*e) : "");
    const Requirement* want = required_layout(i);
    if (!ref_out[i]) {
      goal.why_not = "the reference output uses an operation the checker does not support";
    } else if (dist_out[*e].empty()) {
      goal.why_not = "the distributed output has no layout";
    } else {
      for (uint32_t f : dist_out[*e]) {
        const std::optional<Layout> proven = goal_layout(g_, f, i);
        if (!proven || (want && !want->met_by(*proven))) continue;
        goal.proven = true;
        goal.layout = *proven;
        goal.fact = f;
        goal.proof = proof_lines(result_.derivation, f, mesh_);
        goal.proof.push_back(rewrites_between(facts_[f].ref, *ref_out[i], goal.ref));
        if (goal.layout->has_partial()) {
          result_.notes.push_back("output " + goal.dist + " is returned as " +
                                  goal.layout->to_string(mesh_) +
                                  ": each rank holds a part, to be combined by the caller");
        }
        break;
      }
      if (!goal.proven) {
        // The right value in another layout than the spec requires (or the output's own
        // annotation says) is a divergence of its own.
        for (uint32_t f : dist_out[*e]) {
          if (!layout_misfit_ && want && want->unreadable.empty() &&
              g_.find(facts_[f].ref) == g_.find(*ref_out[i])) {
            const InstrId at = output_producer(d, *e);
            layout_misfit_ = {at, "the output is " + facts_[f].layout.to_string(mesh_) +
                                      " of the reference output, but " + want->source +
                                      (want->exact ? " requires " : " says ") +
                                      want->layout.to_string(mesh_)};
          }
        }
        if (want && !want->unreadable.empty()) output_unreadable_ = true;
        goal.why_not = want && !want->unreadable.empty() ? want->source + ": " + want->unreadable
                       : want
                           ? "no layout fact of the distributed output is " +
                                 want->layout.to_string(mesh_) + " of the reference output, as " +
                                 want->source + (want->exact ? " requires" : " says")
                           : "the distributed output is " +
                                 facts_[dist_out[*e][0]].layout.to_string(mesh_) +
                                 " of a value the rules could not prove equal to the reference "
                                 "output";
      }
    }
    result_.goals.push_back(std::move(goal));
  }
  for (size_t i = 0; i < dist_out.size(); ++i) {
    if (used[i]) continue;
    result_.notes.push_back("distributed output " + droot.name + "#" + std::to_string(i) +
                            " has no reference counterpart");
  }
  if (result_.goals.empty() && result_.unmatched_ref_outputs.empty()) {
    result_.notes.push_back("the reference returns no values: there is nothing to prove");
  }
}

CheckResult Checker::run(const std::vector<ParamBinding>& bindings) {
  const auto start = std::chrono::steady_clock::now();
  result_.mesh = mesh_;
  read_output_requirements();
  // The reference's terms do not depend on the bindings: a search's checks encode it once.
  if (const auto* encoded = memo_ ? memo_->encoded_reference(ref_, options_.explain) : nullptr) {
    restore_reference(*encoded);
  } else {
    declare_commutative();
    encode_reference();
    if (memo_) {
      memo_->store_encoded_reference(
          ref_, {g_, vocab_, types_, bridge_.written(), ref_values_, ref_unsupported_});
    }
  }
  seed(bindings);
  for (const ParamBinding& b : bindings) {
    if (!b.ref && b.dist >= 0)
      result_.unmatched_dist_parameters.push_back(dist_.entry()[b.dist].name);
  }
  propagate();
  if (gave_up_) {
    result_.verdict = Verdict::kDivergent;
    result_.divergence = Divergence{};
    result_.divergence->dist_node = dist_.entry()[first_refusal_->first].name;
    result_.divergence->reason = first_refusal_->second;
    return result_;
  }
  merge_reference_guards();
  add_mean_goals();
  add_scaled_reference();
  // A refused node that leaves an output without any layout decides the verdict: rewriting
  // cannot give that output a layout, so saturation would only cost time.
  if (!(first_refusal_ && some_output_unlifted())) saturate();
  record_derivation();
  decide_goals();
  state_random_assumptions();
  record_matches();
  bool all = !result_.goals.empty() && std::all_of(result_.goals.begin(), result_.goals.end(),
                                                   [](const Goal& g) { return g.proven; });
  // What a program sends out (an outfeed) is behaviour beside its outputs, not modelled: its
  // outputs may be proven, the program not.
  for (const ir::Module* m : {&ref_, &dist_}) {
    if (const auto at = ir::first_output_effect(m->entry()); at && all) {
      const ir::Instruction& effect = m->entry()[*at];
      result_.notes.push_back(
          "not supported: " + std::string(m == &ref_ ? "the reference's " : "") + effect.name +
          " (`" + effect.opcode_text() +
          "`) sends values out of the program, which the checker does not "
          "model: its outputs are proven, its I/O is not");
      all = false;
    }
  }
  if (all && (!options_.strict || (result_.unmatched_ref_outputs.empty() &&
                                   result_.unmatched_dist_parameters.empty()))) {
    result_.verdict = Verdict::kEquivalent;
  } else if (first_refusal_) {
    result_.verdict = Verdict::kDivergent;
    const auto origin = partial_origin(first_refusal_->first);
    result_.divergence =
        describe(first_refusal_->first, first_refusal_->second + (origin ? origin->second : ""));
    if (origin) result_.divergence->origin_node = dist_.entry()[origin->first].name;
  } else if (layout_misfit_) {
    result_.verdict = Verdict::kDivergent;
    result_.divergence = describe(layout_misfit_->first, layout_misfit_->second);
  } else if (output_unreadable_) {
    // What the program says of its own output cannot be read on this mesh: no layout proves it,
    // and no node is to blame.
    result_.verdict = Verdict::kInconclusive;
  } else {
    localise_by_value();
    // (A goal test that held with goals unproven: none was matched, nothing ran out.)
    const bool out_of_budget =
        report_.stop != egraph::StopReason::kSaturated && report_.stop != egraph::StopReason::kGoal;
    result_.verdict = result_.divergence ? Verdict::kDivergent : Verdict::kInconclusive;
    if (first_unsupported_ && !result_.divergence) {
      const ir::Instruction& at = dist_.entry()[first_unsupported_->first];
      result_.notes.push_back("could not follow " + at.name + " (`" + at.opcode_text() +
                              "`): " + first_unsupported_->second);
    }
    if (result_.divergence && out_of_budget) {
      result_.notes.push_back("saturation stopped (" + result_.stats.stop_reason +
                              ") before the goals were proven; the suspect node is where the "
                              "values first differ");
    }
  }
  for (const std::string& c : control_flow_proven_) result_.notes.push_back("proven: " + c);
  for (const std::string& u : unsupported_) result_.notes.push_back("not supported: " + u);
  for (const std::string& u : ref_unsupported_)
    result_.notes.push_back("reference, not supported: " + u);
  result_.stats.enodes = g_.node_count();
  result_.stats.eclasses = g_.class_count();
  result_.stats.facts = facts_.size();
  result_.stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result_;
}

}  // namespace detail

CheckResult check_under(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                        const std::vector<ParamBinding>& bindings, const CheckOptions& options,
                        const std::vector<OutputBinding>& outputs, SaturationMemo* memo) {
  detail::Checker c(ref, dist, mesh, options, outputs, memo);
  return c.run(bindings);
}

}  // namespace scalify::verify
