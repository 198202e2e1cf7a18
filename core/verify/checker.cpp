#include "verify/checker.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>
#include <unordered_set>

#include "egraph/explain.h"
#include "egraph/runner.h"
#include "rules/bundled_rules.h"
#include "rules/proof.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "verify/propagation.h"
#include "verify/rank_values.h"
#include "verify/term_bridge.h"
#include "verify/type_table.h"

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

namespace {

using egraph::ClassId;
using ir::InstrId;

/// One layout fact: distributed value ~ reference term, and why.
struct Fact {
  Layout layout;
  ClassId ref = 0;
  std::string rule;
  InstrId instr = -1;
  size_t element = 0;
  std::vector<uint32_t> premises;
  bool apply = false;  ///< the term was built by applying the op (not a collective's identity)
};

/// Values are per instruction and tuple element.
template <class T>
using PerValue = std::vector<std::vector<T>>;

size_t element_count(const ir::Type& t) { return t.is_tuple() ? t.elements().size() : 1; }

class Checker {
 public:
  Checker(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
          const CheckOptions& options, const std::vector<OutputBinding>& outputs)
      : ref_(ref),
        dist_(dist),
        mesh_(mesh),
        options_(options),
        outputs_(outputs),
        g_(options.explain),
        bridge_(g_, vocab_, types_) {}

  CheckResult run(const std::vector<ParamBinding>& bindings);

 private:
  void encode_reference();
  void seed(const std::vector<ParamBinding>& bindings);
  void propagate();
  void lift_instruction(InstrId id);
  void lift_replicated_tuple(InstrId id);
  bool lift_slice_by_rank(InstrId id);
  void offer_padded_broadcasts(InstrId user);
  std::optional<Fact> fact_of(const ir::Instruction& instr, const Lift& lift,
                              const std::vector<ClassId>& refs,
                              const std::vector<uint32_t>& premises, std::string* why);
  void add_broadcast_shards(InstrId id, const Lift& lift, const std::vector<ClassId>& refs,
                            const Fact& rep);
  bool add_fact(InstrId id, size_t element, Fact fact);
  void saturate();
  void decide_goals();
  bool all_goals_hold(const egraph::EGraph& g) const;
  bool some_output_unlifted() const;
  void localise_by_value();
  void state_random_assumptions();
  Divergence describe(InstrId id, std::string reason) const;
  std::optional<InstrId> closest_ref(InstrId id) const;
  std::vector<std::string> proof_of(uint32_t fact) const;
  std::string rewrites_between(ClassId lifted, ClassId ref, const std::string& name) const;

  const ir::Module& ref_;
  const ir::Module& dist_;
  const Mesh& mesh_;
  const CheckOptions& options_;
  const std::vector<OutputBinding>& outputs_;
  /// Goal i: the distributed output element and the layout it must have (if the spec says).
  std::optional<size_t> dist_element(size_t ref_index) const;
  const std::optional<Layout>* required_layout(size_t ref_index) const;
  /// With explanations: a proven goal's reference side is explained rule by rule.
  egraph::EGraph g_;
  std::vector<rules::RuleOrigin> origins_;  ///< of the compiled rules, for proof steps
  egraph::Vocabulary vocab_;
  TypeTable types_;
  TermBridge bridge_;

  PerValue<std::optional<ClassId>> ref_values_;  ///< per reference instruction
  std::vector<std::string> ref_unsupported_;
  PerValue<std::vector<uint32_t>> facts_of_;           ///< per distributed instruction
  std::vector<std::optional<PerDevice>> rank_values_;  ///< per distributed instruction
  std::vector<Fact> facts_;
  /// The earliest node that gets no layout although its operands have some; `unsupported`
  /// ones (what the checker does not model) kept apart from real refusals.
  std::optional<std::pair<InstrId, std::string>> first_refusal_, first_unsupported_;
  /// An output with the right value in another layout than the spec requires.
  std::optional<std::pair<InstrId, std::string>> layout_misfit_;
  void refuse(InstrId id, const NoLift& why) {
    auto& slot = why.unsupported ? first_unsupported_ : first_refusal_;
    if (!slot) slot = {id, why.reason};
  }
  std::vector<std::string> unsupported_;
  CheckResult result_;
  egraph::RunReport report_;
};

void Checker::encode_reference() {
  const ir::Computation& entry = ref_.entry();
  ref_values_.assign(entry.size(), {});
  auto order = entry.topological_order();
  if (!order) return;
  for (InstrId id : *order) {
    const ir::Instruction& instr = entry[id];
    auto& out = ref_values_[static_cast<size_t>(id)];
    out.assign(element_count(instr.type), std::nullopt);
    if (instr.opcode == ir::Opcode::kTuple) {
      for (size_t i = 0; i < instr.operands.size() && i < out.size(); ++i) {
        const auto& in = ref_values_[static_cast<size_t>(instr.operands[i])];
        out[i] = in.size() == 1 ? in[0] : std::nullopt;
      }
      continue;
    }
    std::vector<ClassId> kids;
    bool ok = true;
    for (InstrId o : instr.operands) {
      const auto& in = ref_values_[static_cast<size_t>(o)];
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
}

bool Checker::add_fact(InstrId id, size_t element, Fact fact) {
  auto& list = facts_of_[static_cast<size_t>(id)][element];
  for (uint32_t f : list) {
    if (facts_[f].layout == fact.layout && g_.find(facts_[f].ref) == g_.find(fact.ref))
      return false;
  }
  if (list.size() >= 6) return false;  // enough alternatives for one value
  fact.instr = id;
  fact.element = element;
  facts_.push_back(std::move(fact));
  list.push_back(static_cast<uint32_t>(facts_.size() - 1));
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
    f.rule = b.assumption ? "assumption" : "bijection";
    add_fact(b.dist, 0, std::move(f));
    BijectionEntry e{
        d[b.dist].name, r[*b.ref].name, d[b.dist].parameter_number, r[*b.ref].parameter_number,
        b.layout,       b.why};
    result_.bijection.push_back(e);
    if (b.assumption) result_.assumptions.push_back({d[b.dist].name, b.layout, b.why});
  }
}

void Checker::lift_instruction(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  auto& out = facts_of_[static_cast<size_t>(id)];
  if (instr.opcode == ir::Opcode::kParameter) return;
  if (instr.opcode == ir::Opcode::kTuple) {
    for (size_t i = 0; i < instr.operands.size() && i < out.size(); ++i) {
      for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[i])][0]) {
        Fact copy = facts_[f];
        copy.rule = "tuple";
        copy.premises = {f};
        copy.apply = false;
        add_fact(id, i, std::move(copy));
      }
    }
    return;
  }
  if (instr.opcode == ir::Opcode::kGetTupleElement) {
    const auto* index = instr.get<int64_t>("index");
    const auto& in = facts_of_[static_cast<size_t>(instr.operands[0])];
    if (!index || static_cast<size_t>(*index) >= in.size()) return;
    for (uint32_t f : in[static_cast<size_t>(*index)]) {
      Fact copy = facts_[f];
      copy.rule = "get-tuple-element";
      copy.premises = {f};
      copy.apply = false;
      add_fact(id, 0, std::move(copy));
    }
    return;
  }
  // A tuple-valued collective works element by element on its operands.
  const bool elementwise_tuple = instr.type.is_tuple() && ir::is_collective(instr.opcode) &&
                                 instr.operands.size() == instr.type.elements().size();
  const size_t elements = elementwise_tuple ? instr.operands.size() : 1;
  // Index arithmetic on the rank (offsets computed from partition-id) is evaluated per device
  // (rank_values), not related to the reference.
  if (rank_values_[static_cast<size_t>(id)]) return;
  if (instr.opcode == ir::Opcode::kDynamicSlice && lift_slice_by_rank(id)) return;
  bool all_known = true;
  for (InstrId o : instr.operands) {
    const auto& in = facts_of_[static_cast<size_t>(o)];
    if (in.size() != 1 || in[0].empty()) all_known = false;
  }
  if (!all_known) return;
  offer_padded_broadcasts(id);
  if (instr.type.is_tuple() && !elementwise_tuple) {
    lift_replicated_tuple(id);
    return;
  }

  std::optional<NoLift> refusal;
  bool lifted = false;
  for (size_t e = 0; e < elements; ++e) {
    ir::Instruction one = instr;
    std::vector<InstrId> operand_ids = instr.operands;
    if (elementwise_tuple) {
      one.type = instr.type.elements()[e];
      operand_ids = {instr.operands[e]};
    }
    // Every combination of the operands' facts (few: each value keeps at most six).
    std::vector<size_t> pick(operand_ids.size(), 0);
    size_t combos = 0;
    while (combos++ < 64) {
      std::vector<OperandView> views;
      std::vector<uint32_t> premises;
      std::vector<ClassId> refs;
      for (size_t i = 0; i < operand_ids.size(); ++i) {
        const uint32_t f = facts_of_[static_cast<size_t>(operand_ids[i])][0][pick[i]];
        premises.push_back(f);
        refs.push_back(facts_[f].ref);
        const auto t = types_.type(g_.type_of(facts_[f].ref));
        OperandView v{facts_[f].layout, t ? *t : ir::Type(), bridge_.number_value(facts_[f].ref)};
        views.push_back(std::move(v));
      }
      auto lifted_or = lift(dist_, comp, one, views, mesh_);
      if (auto* lifts = std::get_if<std::vector<Lift>>(&lifted_or)) {
        for (const Lift& l : *lifts) {
          std::string why;
          auto f = fact_of(instr, l, refs, premises, &why);
          if (!f) {
            if (!refusal) refusal = NoLift{why, true};
            continue;
          }
          add_fact(id, e, *f);
          lifted = true;
          const bool replicated_broadcast =
              (one.opcode == ir::Opcode::kBroadcast || one.opcode == ir::Opcode::kIota) &&
              f->layout.is_rep() && f->apply;
          if (replicated_broadcast) add_broadcast_shards(id, l, refs, *f);
        }
      } else if (!refusal) {
        refusal = std::get<NoLift>(lifted_or);
      }
      // Next combination.
      size_t i = 0;
      while (i < pick.size()) {
        if (++pick[i] < facts_of_[static_cast<size_t>(operand_ids[i])][0].size()) break;
        pick[i++] = 0;
      }
      if (i == pick.size()) break;
    }
  }
  if (!lifted && refusal) refuse(id, *refusal);
}

/// `dynamic-slice(x, offsets)` whose offsets depend on the rank: when x is replicated and the
/// offset along one dim is the rank's coordinate on a mesh axis times the slice size (the
/// slice covering the dim as the ranks of that axis go), each rank holds its shard of x
/// (replicated → shard, as XLA's SPMD partitioner writes it). True when it applied.
bool Checker::lift_slice_by_rank(InstrId id) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[id];
  if (instr.operands.size() < 2 || !instr.type.is_array()) return false;
  bool by_rank = false;
  for (size_t i = 1; i < instr.operands.size(); ++i) {
    by_rank = by_rank || rank_values_[static_cast<size_t>(instr.operands[i])].has_value();
  }
  if (!by_rank) return false;
  const ir::Type& x = comp[instr.operands[0]].type;
  const int64_t devices = mesh_.device_count();
  // Per dim: the offsets per device (constants repeat).
  std::optional<int32_t> dim;
  std::optional<size_t> axis;
  for (size_t i = 1; i < instr.operands.size(); ++i) {
    const auto k = static_cast<int64_t>(i - 1);
    const InstrId o = instr.operands[i];
    PerDevice offsets;
    if (rank_values_[static_cast<size_t>(o)]) {
      offsets = *rank_values_[static_cast<size_t>(o)];
    } else {
      // A constant offset: the same on every rank.
      std::optional<double> c;
      for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
        if (facts_[f].layout.is_rep()) c = bridge_.number_value(facts_[f].ref);
        if (c) break;
      }
      if (!c) return false;  // an offset the checker cannot evaluate per rank
      offsets.assign(static_cast<size_t>(devices), static_cast<int64_t>(*c));
    }
    const int64_t size = instr.type.dim(k);
    const bool constant_zero =
        std::all_of(offsets.begin(), offsets.end(), [](int64_t v) { return v == 0; });
    if (constant_zero && size == x.dim(k)) continue;
    if (dim) return false;  // two dims move with the rank: not modelled
    for (size_t a = 0; a < mesh_.rank() && !axis; ++a) {
      if (mesh_.size(a) * size != x.dim(k)) continue;
      bool matches = true;
      for (int64_t d = 0; d < devices && matches; ++d) {
        matches = offsets[static_cast<size_t>(d)] == mesh_.coordinate(d, a) * size;
      }
      if (matches) axis = a;
    }
    if (!axis) {
      std::string offs;
      for (int64_t d = 0; d < devices && d < 8; ++d) {
        offs += (d ? ", " : "") + std::to_string(offsets[static_cast<size_t>(d)]);
      }
      refuse(id, NoLift{"its offsets along dimension " + std::to_string(k) + " are " + offs +
                        " by device: not each rank's shard of " + std::to_string(x.dim(k)) +
                        " in the order of any mesh axis"});
      return true;
    }
    dim = static_cast<int32_t>(k);
  }
  if (!dim) return false;
  bool lifted = false;
  for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[0])][0]) {
    if (!facts_[f].layout.is_rep()) continue;
    Fact fact;
    fact.layout = Layout::on(mesh_, *axis, AxisLayout::shard(*dim));
    fact.ref = facts_[f].ref;
    fact.rule = "dynamic-slice-by-rank";
    fact.premises = {f};
    lifted = add_fact(id, 0, std::move(fact)) || lifted;
  }
  if (!lifted && !facts_of_[static_cast<size_t>(instr.operands[0])][0].empty()) {
    refuse(id, NoLift{"its offsets take each rank's slice of dimension " + std::to_string(*dim) +
                          ", but operand 0 is not replicated",
                      true});
  }
  return true;
}

/// The fact a lift gives: the reference term built as the lift says.
std::optional<Fact> Checker::fact_of(const ir::Instruction& instr, const Lift& lift,
                                     const std::vector<ClassId>& refs,
                                     const std::vector<uint32_t>& premises, std::string* why) {
  Fact f;
  f.layout = lift.layout;
  f.rule = lift.rule;
  f.premises = premises;
  switch (lift.term) {
    case Lift::Term::kApply: {
      auto enc = bridge_.encode(dist_, lift.ref_instr, refs, lift.ref_type, "dist");
      if (!enc) {
        *why = enc.why;
        return std::nullopt;
      }
      f.ref = *enc.id;
      f.apply = true;
      return f;
    }
    case Lift::Term::kOperand:
      f.ref = refs[lift.operand];
      return f;
    case Lift::Term::kPadded: {
      // The gathered value is the reference value followed by padding nobody knows.
      const ClassId x = refs[lift.operand];
      auto xt = types_.type(g_.type_of(x));
      if (!xt) return std::nullopt;
      ir::Type pad = lift.ref_type;
      std::vector<int64_t> dims = pad.dims();
      dims[static_cast<size_t>(lift.pad_dim)] -= xt->dim(lift.pad_dim);
      pad.set_dims(dims);
      const ClassId unknown = bridge_.unknown("dist:" + instr.name, pad);
      const std::vector<ClassId> parts{x, unknown};
      f.ref = bridge_.concatenate(parts, lift.pad_dim, lift.ref_type);
      return f;
    }
  }
  return std::nullopt;
}

/// A tuple-valued op (batch-norm-training, sort, rng-bit-generator…) on replicated operands
/// computes the reference's tuple on every rank; anything else is not understood.
void Checker::lift_replicated_tuple(InstrId id) {
  const ir::Instruction& instr = dist_.entry()[id];
  std::vector<ClassId> refs;
  std::vector<uint32_t> premises;
  for (size_t i = 0; i < instr.operands.size(); ++i) {
    std::optional<uint32_t> rep;
    for (uint32_t f : facts_of_[static_cast<size_t>(instr.operands[i])][0]) {
      if (facts_[f].layout.is_rep()) {
        rep = f;
        break;
      }
    }
    if (!rep) {
      const uint32_t f = facts_of_[static_cast<size_t>(instr.operands[i])][0][0];
      refuse(id, NoLift{"operand " + std::to_string(i) + " is " +
                            facts_[f].layout.to_string(mesh_) + " and `" + instr.opcode_text() +
                            "` (returning a tuple) only propagates replicated values",
                        true});
      return;
    }
    refs.push_back(facts_[*rep].ref);
    premises.push_back(*rep);
  }
  auto enc = bridge_.encode(dist_, instr, refs, instr.type, "dist");
  if (!enc) {
    unsupported_.push_back(instr.name + ": " + enc.why);
    return;
  }
  for (size_t e = 0; e < instr.type.elements().size(); ++e) {
    Fact f;
    f.layout = Layout::replicated(mesh_.rank());
    f.ref = bridge_.get_tuple_element(*enc.id, static_cast<int64_t>(e), instr.type.elements()[e]);
    f.rule = "factor:" + instr.opcode_text();
    f.premises = premises;
    f.apply = true;
    add_fact(id, e, std::move(f));
  }
}

/// A replicated broadcast (or iota) is the same along the dims it creates (does not count
/// along), so each rank's copy is also a shard of the same op to a bigger extent along any of
/// them: the view a sharded operand of the same op needs (a rotary table broadcast over the
/// heads each rank holds, an iota of classes beside a batch-sharded label).
void Checker::add_broadcast_shards(InstrId id, const Lift& lift, const std::vector<ClassId>& refs,
                                   const Fact& rep) {
  // The dims the value varies along: a broadcast's operand dims, an iota's counting dim.
  ir::DimList kept = lift.ref_instr.dims_attr("dimensions");
  if (const auto* counting = lift.ref_instr.get<int64_t>("iota_dimension")) kept = {*counting};
  for (int64_t k = 0; k < lift.ref_type.rank(); ++k) {
    if (std::find(kept.begin(), kept.end(), k) != kept.end()) continue;
    for (size_t a = 0; a < mesh_.rank(); ++a) {
      if (mesh_.size(a) < 2) continue;
      ir::Type wide = lift.ref_type;
      std::vector<int64_t> dims = wide.dims();
      dims[static_cast<size_t>(k)] *= mesh_.size(a);
      wide.set_dims(dims);
      auto enc = bridge_.encode(dist_, lift.ref_instr, refs, wide, "dist");
      if (!enc) continue;
      Fact f = rep;
      f.layout = Layout::on(mesh_, a, AxisLayout::shard(static_cast<int32_t>(k)));
      f.ref = *enc.id;
      f.rule = "broadcast-as-shard";
      add_fact(id, 0, std::move(f));
    }
  }
}

/// The same view for padded shards, made on demand: when an elementwise op meets a padded
/// shard, its replicated broadcast (or iota) operands are also offered as shards padded alike
/// (the reference value is the broadcast to the unpadded extent).
void Checker::offer_padded_broadcasts(InstrId user) {
  const ir::Computation& comp = dist_.entry();
  const ir::Instruction& instr = comp[user];
  const bool elementwise =
      ir::is_elementwise(instr.opcode) || instr.opcode == ir::Opcode::kSelect ||
      instr.opcode == ir::Opcode::kCompare || instr.opcode == ir::Opcode::kClamp;
  if (!elementwise) return;
  std::vector<std::pair<size_t, AxisLayout>> padded;
  for (InstrId o : instr.operands) {
    for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
      for (size_t a = 0; a < facts_[f].layout.axes.size(); ++a) {
        const AxisLayout& p = facts_[f].layout.axes[a];
        if (p.is_shard() && p.full >= 0) padded.emplace_back(a, AxisLayout::shard(p.dim, p.full));
      }
    }
  }
  for (InstrId o : instr.operands) {
    const ir::Instruction& b = comp[o];
    if (b.opcode != ir::Opcode::kBroadcast && b.opcode != ir::Opcode::kIota) continue;
    std::optional<uint32_t> rep;
    for (uint32_t f : facts_of_[static_cast<size_t>(o)][0]) {
      if (facts_[f].layout.is_rep() && facts_[f].apply) rep = f;
    }
    if (!rep) continue;
    ir::DimList kept = b.dims_attr("dimensions");
    if (const auto* counting = b.get<int64_t>("iota_dimension")) kept = {*counting};
    std::vector<ClassId> refs;
    for (uint32_t p : facts_[*rep].premises) refs.push_back(facts_[p].ref);
    for (const auto& [axis, part] : padded) {
      if (part.dim >= b.type.rank() ||
          std::find(kept.begin(), kept.end(), part.dim) != kept.end()) {
        continue;
      }
      ir::Type wide = b.type;
      std::vector<int64_t> dims = wide.dims();
      dims[static_cast<size_t>(part.dim)] = part.full;
      wide.set_dims(dims);
      ir::Instruction ref_instr = b;
      ref_instr.type = wide;
      auto enc = bridge_.encode(dist_, ref_instr, refs, wide, "dist");
      if (!enc) continue;
      Fact f = facts_[*rep];
      f.layout = Layout::on(mesh_, axis, part);
      f.ref = *enc.id;
      f.rule = "broadcast-as-shard";
      add_fact(o, 0, std::move(f));
    }
  }
}

void Checker::propagate() {
  const ir::Computation& comp = dist_.entry();
  rank_values_ = rank_values(comp, mesh_);
  auto order = comp.topological_order();
  if (!order) return;
  for (InstrId id : *order) lift_instruction(id);
}

void Checker::saturate() {
  std::vector<rules::RuleFile> files;
  std::vector<egraph::Rule> all;
  for (const rules::RuleText& text : rules::bundled_rule_files()) {
    auto file = rules::parse_rules(text.text, text.name);
    if (!file) {
      result_.notes.push_back("bundled rules: " + file.error().format());
      continue;
    }
    files.push_back(std::move(*file));
  }
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
  run.ill_typed = TypeTable::kUntyped;
  // Stop as soon as every goal holds: saturating further proves nothing the check needs.
  run.goal = [this](const egraph::EGraph& g) { return all_goals_hold(g); };
  g_.rebuild();  // matching reads the node lists, which rebuild() refreshes
  report_ = egraph::run(g_, all, run);
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
}

std::vector<std::string> Checker::proof_of(uint32_t fact) const {
  std::vector<std::string> lines;
  std::vector<uint32_t> stack{fact};
  std::unordered_set<uint32_t> seen;
  std::vector<uint32_t> order;
  while (!stack.empty()) {
    const uint32_t f = stack.back();
    stack.pop_back();
    if (!seen.insert(f).second) continue;
    order.push_back(f);
    for (uint32_t p : facts_[f].premises) stack.push_back(p);
  }
  std::sort(order.begin(), order.end());
  const ir::Computation& d = dist_.entry();
  for (uint32_t f : order) {
    const Fact& x = facts_[f];
    std::string line = "[" + std::to_string(f) + "] " + d[x.instr].name;
    if (d[x.instr].type.is_tuple()) line += "#" + std::to_string(x.element);
    line += " ~ " + x.layout.to_string(mesh_) + " of e-class " + std::to_string(g_.find(x.ref)) +
            "   by " + x.rule;
    if (!x.premises.empty()) {
      line += " from";
      for (uint32_t p : x.premises) line += " [" + std::to_string(p) + "]";
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

/// The last line of a goal's proof: how the reference term the distributed output stands for
/// equals the reference output, as the rewrites of the e-graph's explanation (names and
/// positions; `hash-consing` when it is the very node).
std::string Checker::rewrites_between(ClassId lifted, ClassId ref, const std::string& name) const {
  const std::string head = "the reference term equals " + name;
  if (lifted == ref) return head + " (the same node: hash-consing)";
  if (!g_.explanations()) {
    return head + " (the same e-class after saturation; --explain lists the rewrites)";
  }
  auto why = egraph::explain(g_, lifted, ref);
  if (!why) return head + " (same e-class; no explanation: " + why.error().message + ")";
  std::string line = head + " by " + std::to_string(why->steps.size()) + " rewrite" +
                     (why->steps.size() == 1 ? "" : "s");
  size_t shown = 0;
  for (const egraph::ProofStep& step : why->steps) {
    if (shown++ == 12) {
      line += ", …";
      break;
    }
    line += (shown == 1 ? ": " : ", ") + rules::step_name(step, origins_) + " at [";
    for (size_t k = 0; k < step.position.size(); ++k) {
      line += (k ? " " : "") + std::to_string(step.position[k]);
    }
    line += "]";
  }
  return line;
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
    const std::optional<Layout>* want = required_layout(i);
    bool held = false;
    for (uint32_t f : dist_out[*e]) {
      held = held || (g.find(facts_[f].ref) == g.find(*ref_out[i]) &&
                      (!want || !*want || facts_[f].layout == **want));
    }
    if (!held) return false;
  }
  return true;
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

const std::optional<Layout>* Checker::required_layout(size_t ref_index) const {
  for (const OutputBinding& o : outputs_) {
    if (o.ref_index == static_cast<int64_t>(ref_index)) return &o.layout;
  }
  return nullptr;
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
  for (size_t i = 0; i < ref_out.size(); ++i) {
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
    const std::optional<Layout>* want = required_layout(i);
    if (!ref_out[i]) {
      goal.why_not = "the reference output uses an operation the checker does not support";
    } else if (dist_out[*e].empty()) {
      goal.why_not = "the distributed output has no layout";
    } else {
      for (uint32_t f : dist_out[*e]) {
        if (g_.find(facts_[f].ref) != g_.find(*ref_out[i])) continue;
        if (want && *want && facts_[f].layout != **want) continue;
        goal.proven = true;
        goal.layout = facts_[f].layout;
        goal.proof = proof_of(f);
        goal.proof.push_back(rewrites_between(facts_[f].ref, *ref_out[i], goal.ref));
        if (goal.layout->has_partial()) {
          result_.notes.push_back("output " + goal.dist + " is returned as " +
                                  goal.layout->to_string(mesh_) +
                                  ": each rank holds a part, to be combined by the caller");
        }
        break;
      }
      if (!goal.proven) {
        // The right value in another layout than the spec requires is a divergence of its own.
        for (uint32_t f : dist_out[*e]) {
          if (!layout_misfit_ && want && *want && g_.find(facts_[f].ref) == g_.find(*ref_out[i])) {
            const InstrId at = droot.opcode == ir::Opcode::kTuple && *e < droot.operands.size()
                                   ? droot.operands[*e]
                                   : d.root;
            layout_misfit_ = {at, "the output is " + facts_[f].layout.to_string(mesh_) +
                                      " of the reference output, but the spec requires " +
                                      (*want)->to_string(mesh_)};
          }
        }
        goal.why_not = want && *want
                           ? "no layout fact of the distributed output is " +
                                 (*want)->to_string(mesh_) + " of the reference output"
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
}

std::optional<InstrId> Checker::closest_ref(InstrId id) const {
  const ir::Computation& d = dist_.entry();
  const ir::Computation& r = ref_.entry();
  const ir::Instruction& di = d[id];
  std::unordered_set<ClassId> operand_classes;
  for (InstrId o : di.operands) {
    for (const auto& element : facts_of_[static_cast<size_t>(o)]) {
      for (uint32_t f : element) operand_classes.insert(g_.find(facts_[f].ref));
    }
  }
  std::optional<InstrId> best;
  int best_score = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    const ir::Instruction& ri = r[static_cast<InstrId>(i)];
    int score = 0;
    if (ri.opcode == di.opcode) score += 4;
    if (!ri.metadata.op_name.empty() && ri.metadata.op_name == di.metadata.op_name) score += 2;
    if (ri.metadata.source_line >= 0 && ri.metadata.source_line == di.metadata.source_line)
      score += 1;
    for (InstrId o : ri.operands) {
      const auto& v = ref_values_[static_cast<size_t>(o)];
      if (v.size() == 1 && v[0] && operand_classes.count(g_.find(*v[0]))) score += 3;
    }
    if (score > best_score) {
      best_score = score;
      best = static_cast<InstrId>(i);
    }
  }
  // At least the same op, or the same op_name and line, or an operand in common.
  if (best_score < 3) return std::nullopt;
  return best;
}

Divergence Checker::describe(InstrId id, std::string reason) const {
  const ir::Computation& d = dist_.entry();
  const ir::Instruction& di = d[id];
  Divergence out;
  out.dist_node = di.name;
  out.op = di.opcode_text();
  out.reason = std::move(reason);
  out.dist_line = di.pos.line;
  for (InstrId o : di.operands) {
    const auto& v = facts_of_[static_cast<size_t>(o)];
    std::string s;
    for (const auto& element : v) {
      for (uint32_t f : element) {
        if (!s.empty()) s += " | ";
        s += facts_[f].layout.to_string(mesh_);
      }
    }
    out.operand_layouts.push_back(s.empty() ? "none" : s);
  }
  out.op_name = di.metadata.op_name;
  if (di.metadata.has_source_site())
    out.source = SourceSite{di.metadata.source_file, di.metadata.source_line};
  if (auto r = closest_ref(id)) {
    out.ref_node = ref_.entry()[*r].name;
    out.ref_line = ref_.entry()[*r].pos.line;
  }
  return out;
}

/// Random values relate only under an assumption: every distributed random op whose value
/// stands for a reference random op (the same generator on the same state) is stated.
void Checker::state_random_assumptions() {
  std::unordered_map<ClassId, std::string> ref_random;
  const ir::Computation& r = ref_.entry();
  for (size_t i = 0; i < r.size(); ++i) {
    const ir::Instruction& instr = r[static_cast<InstrId>(i)];
    if (instr.opcode != ir::Opcode::kRngBitGenerator && instr.opcode != ir::Opcode::kRng) continue;
    const auto& v = ref_values_[i];
    for (const auto& c : v) {
      if (c) ref_random.emplace(g_.find(*c), instr.name);
    }
  }
  const ir::Computation& d = dist_.entry();
  for (size_t i = 0; i < d.size(); ++i) {
    const ir::Instruction& instr = d[static_cast<InstrId>(i)];
    if (instr.opcode != ir::Opcode::kRngBitGenerator && instr.opcode != ir::Opcode::kRng) continue;
    for (const auto& element : facts_of_[i]) {
      for (uint32_t f : element) {
        auto it = ref_random.find(g_.find(facts_[f].ref));
        if (it == ref_random.end()) continue;
        result_.assumptions.push_back(
            {instr.name, facts_[f].layout,
             "random: assumed to draw the same values as the reference's " + it->second +
                 " (the same generator on the same state)"});
        goto next;
      }
    }
  next:;
  }
}

void Checker::localise_by_value() {
  // The earliest op whose operands all stand for reference values but whose own value is
  // none of the reference's: it computes something the reference never does.
  std::unordered_set<ClassId> ref_classes;
  for (const auto& v : ref_values_) {
    for (const auto& c : v) {
      if (c) ref_classes.insert(g_.find(*c));
    }
  }
  auto in_ref = [&](uint32_t f) { return ref_classes.count(g_.find(facts_[f].ref)) > 0; };
  const ir::Computation& comp = dist_.entry();
  auto order = comp.topological_order();
  if (!order) return;
  for (InstrId id : *order) {
    // Some element (of a tuple-valued op, any) built by the op itself and equal to nothing of
    // the reference's.
    bool differs = false;
    for (const auto& element : facts_of_[static_cast<size_t>(id)]) {
      bool applied = false, matches = false;
      for (uint32_t f : element) {
        applied = applied || facts_[f].apply;
        matches = matches || in_ref(f);
      }
      differs = differs || (applied && !matches);
    }
    if (!differs) continue;
    bool operands_match = true;
    for (InstrId o : comp[id].operands) {
      const auto& v = facts_of_[static_cast<size_t>(o)];
      bool any = false;
      for (const auto& element : v) {
        // A collective's view of a value (a gathered padded shard) counts as the reference's.
        for (uint32_t f : element) any = any || in_ref(f) || !facts_[f].apply;
      }
      operands_match = operands_match && any;
    }
    if (!operands_match) continue;
    result_.divergence = describe(
        id, "its operands match reference values, but `" + comp[id].opcode_text() +
                "` of them computes a value the reference never computes (a different constant, "
                "operand order, window or permutation than the reference uses)");
    result_.divergence->by_value = true;
    return;
  }
}

CheckResult Checker::run(const std::vector<ParamBinding>& bindings) {
  const auto start = std::chrono::steady_clock::now();
  result_.mesh = mesh_;
  encode_reference();
  seed(bindings);
  for (const ParamBinding& b : bindings) {
    if (!b.ref && b.dist >= 0)
      result_.unmatched_dist_parameters.push_back(dist_.entry()[b.dist].name);
  }
  propagate();
  // A refused node that leaves an output without any layout decides the verdict: rewriting
  // cannot give that output a layout, so saturation would only cost time.
  if (!(first_refusal_ && some_output_unlifted())) saturate();
  decide_goals();
  state_random_assumptions();
  const bool all = !result_.goals.empty() && std::all_of(result_.goals.begin(), result_.goals.end(),
                                                         [](const Goal& g) { return g.proven; });
  if (all && (!options_.strict || (result_.unmatched_ref_outputs.empty() &&
                                   result_.unmatched_dist_parameters.empty()))) {
    result_.verdict = Verdict::kEquivalent;
  } else if (first_refusal_) {
    result_.verdict = Verdict::kDivergent;
    result_.divergence = describe(first_refusal_->first, first_refusal_->second);
  } else if (layout_misfit_) {
    result_.verdict = Verdict::kDivergent;
    result_.divergence = describe(layout_misfit_->first, layout_misfit_->second);
  } else {
    localise_by_value();
    const bool out_of_budget = report_.stop != egraph::StopReason::kSaturated;
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

}  // namespace

CheckResult check_under(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
                        const std::vector<ParamBinding>& bindings, const CheckOptions& options,
                        const std::vector<OutputBinding>& outputs) {
  Checker c(ref, dist, mesh, options, outputs);
  return c.run(bindings);
}

}  // namespace scalify::verify
