// The independent proof checker's driver (proof_check.h): reads the programs, walks the facts
// the proven goals rest on in order, and checks each by the rule it cites.
#include "proofcheck/proof_check.h"

#include <algorithm>
#include <optional>
#include <set>

#include "hlo/reader.h"
#include "ir/inline_calls.h"
#include "proofcheck/layout_steps.h"
#include "proofcheck/rank_offsets.h"
#include "proofcheck/reference_terms.h"
#include "rules/bundled_rules.h"
#include "rules/rule_parser.h"

namespace scalify::proofcheck {

namespace {

using verify::AxisLayout;
using verify::DerivedFact;
using verify::Layout;

/// The rule of a balanced share, before its axis name.
constexpr std::string_view kShare = "assumption: the same on every rank of ";

/// Why a fact does not hold, or cannot be re-checked.
struct Failure {
  Failure(std::string w, bool u = false) : why(std::move(w)), unsupported(u) {}  // NOLINT
  Failure(const char* w) : why(w) {}                                             // NOLINT
  std::string why;
  bool unsupported = false;
};
using FactCheck = std::variant<TermId, Failure>;

/// What the checker knows of a checked fact.
struct Known {
  TermId term = 0;
};

class Checker {
 public:
  Checker(const ProofFile& proof, const ir::Module& ref, const ir::Module& dist, TermTable& terms)
      : proof_(proof), r_(proof.result), mesh_(r_.mesh), ref_(ref), dist_(dist), terms_(terms) {}

  Expected<ProofCheckReport> run();

 private:
  /// The term of fact `f`, or why it does not hold.
  FactCheck check_fact(const DerivedFact& f);
  FactCheck collective(const DerivedFact& f, const ir::Instruction& instr, const DerivedFact& p);
  std::optional<TermId> reference_term(const std::string& name, int64_t element);
  FactCheck slice_by_rank(const DerivedFact& f, const ir::Instruction& instr);
  FactCheck balanced_share(const DerivedFact& f);
  FactCheck nonzero_guard(const DerivedFact& f, const ir::Instruction& instr);
  /// The reference parameter a bijection entry binds, reshaped and transposed as it says.
  FactCheck parameter_term(const verify::BijectionEntry& b);
  std::string fail(const DerivedFact& f, const std::string& why) const {
    return "fact [" + std::to_string(f.index) + "] " + verify::value_name(f) + " (" + f.rule +
           "): " + why;
  }
  const DerivedFact& premise(const DerivedFact& f, size_t k) const {
    return r_.derivation[f.premises[k]];
  }

  const ProofFile& proof_;
  const verify::CheckResult& r_;
  const verify::Mesh& mesh_;
  const ir::Module& ref_;
  const ir::Module& dist_;
  TermTable& terms_;
  std::vector<std::optional<Known>> known_;
  std::set<std::string> assumptions_;
};

std::optional<TermId> Checker::reference_term(const std::string& name, int64_t element) {
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

FactCheck Checker::parameter_term(const verify::BijectionEntry& b) {
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
FactCheck Checker::balanced_share(const DerivedFact& f) {
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
  return terms_.scaled(1.0 / static_cast<double>(mesh_.size(*axis)), known_[p.index]->term);
}

/// select(x != 0, x, c) is x when x is assumed not 0: a stated assumption about the reference
/// value x's share stands for.
FactCheck Checker::nonzero_guard(const DerivedFact& f, const ir::Instruction& instr) {
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
  const TermId held = known_[f.premises[0]]->term;
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
FactCheck Checker::slice_by_rank(const DerivedFact& f, const ir::Instruction& instr) {
  const ir::Computation& d = dist_.entry();
  if (instr.opcode != ir::Opcode::kDynamicSlice || f.premises.size() != 1 ||
      instr.operands.size() < 2 || premise(f, 0).dist != d[instr.operands[0]].name ||
      !premise(f, 0).layout.is_rep()) {
    return Failure("not a dynamic-slice of its replicated premise");
  }
  const ir::Type& x = d[instr.operands[0]].type;
  const int64_t devices = mesh_.device_count();
  std::optional<std::pair<int32_t, size_t>> shard;  // dim, axis
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
      found = true;
      for (int64_t dev = 0; dev < devices; ++dev) {
        found = found && (*offsets)[static_cast<size_t>(dev)] == mesh_.coordinate(dev, a) * size;
      }
      if (found) {
        if (shard) return Failure("two dims move with the rank");
        shard = std::pair{static_cast<int32_t>(dim), a};
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
  return known_[f.premises[0]]->term;
}

FactCheck Checker::collective(const DerivedFact& f, const ir::Instruction& instr,
                              const DerivedFact& p) {
  using ir::Opcode;
  const Opcode op = instr.opcode;
  const TermId x = known_[p.index]->term;
  if (f.rule == "async-done") {
    if (!(p.layout == f.layout)) return std::string("the done half keeps its start's layout");
    return x;
  }
  if (f.rule == "collective-permute") {
    const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
    std::vector<bool> receives(static_cast<size_t>(mesh_.device_count()), false);
    for (const auto& [from, to] : pairs ? *pairs : ir::SourceTargetPairs{}) {
      if (to >= 0 && to < mesh_.device_count()) receives[static_cast<size_t>(to)] = true;
    }
    if (!p.layout.is_rep() || !f.layout.is_rep() ||
        std::find(receives.begin(), receives.end(), false) != receives.end()) {
      return std::string(
          "a permutation keeps a value only when it is replicated and every "
          "device receives one");
    }
    return x;
  }
  const ir::ReplicaGroups none;
  const ir::ReplicaGroups* groups = instr.replica_groups();
  const auto axes = mesh_.axes_of(groups ? *groups : none);
  if (!axes) return "its replica groups are not the groups of any axes of " + mesh_.to_string();
  Layout want = p.layout;
  const bool reduce = op == Opcode::kAllReduce || op == Opcode::kAllReduceStart;
  const bool gather = op == Opcode::kAllGather || op == Opcode::kAllGatherStart;
  if (reduce) {
    const auto c = reduction_of(dist_, instr);
    if (!c) return std::string("its reducer is not one sum, max, min or product");
    for (size_t a : *axes) {
      const AxisLayout& q = p.layout.axes[a];
      const bool idempotent =
          q.is_rep() && (*c == verify::ReduceOp::kMax || *c == verify::ReduceOp::kMin);
      if (!(q.is_partial() && q.op == *c) && !idempotent) {
        return "its operand is " + p.layout.to_string(mesh_) + ", which the all-reduce over " +
               mesh_.name(a) + " does not combine into the whole value";
      }
      want.axes[a] = AxisLayout::rep();
    }
  } else if (gather || op == Opcode::kReduceScatter) {
    const ir::DimList& dims = instr.dims_attr("dimensions");
    if (dims.size() != 1 || axes->size() != 1) {
      return std::string("a gather or scatter over one dimension and one mesh axis");
    }
    const size_t a = axes->front();
    const auto d = static_cast<int32_t>(dims[0]);
    const AxisLayout& q = p.layout.axes[a];
    for (size_t b = 0; b < mesh_.rank(); ++b) {
      if (b != a && p.layout.axes[b].is_shard() && p.layout.axes[b].dim == d) {
        return "dimension " + std::to_string(d) + " is also sharded over " + mesh_.name(b);
      }
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
  } else {
    return Failure("`" + instr.opcode_text() + "` is not re-checked yet", true);
  }
  if (!(want == f.layout)) {
    return "from " + p.layout.to_string(mesh_) + " it gives " + want.to_string(mesh_) + ", not " +
           f.layout.to_string(mesh_);
  }
  return x;
}

FactCheck Checker::check_fact(const DerivedFact& f) {
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
    if (f.premises.size() == 1) return known_[f.premises[0]]->term;
    return std::string("an assumption about a value the proof does not name");
  }
  if (rule == "tuple" || rule == "get-tuple-element") {
    if (f.premises.size() != 1 || !(premise(f, 0).layout == f.layout)) {
      return std::string("a copy keeps one premise's layout");
    }
    const bool wired = rule == "tuple"
                           ? instr.opcode == ir::Opcode::kTuple && f.element >= 0 &&
                                 static_cast<size_t>(f.element) < instr.operands.size() &&
                                 premise_is(0, instr.operands[static_cast<size_t>(f.element)], -1)
                           : instr.opcode == ir::Opcode::kGetTupleElement &&
                                 instr.get<int64_t>("index") &&
                                 premise_is(0, instr.operands[0], *instr.get<int64_t>("index"));
    if (!wired) return "the premise is not the " + rule + "'s operand";
    return known_[f.premises[0]]->term;
  }
  if (rule == "dynamic-slice-by-rank") return slice_by_rank(f, instr);
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
    if (rule.starts_with("factor:") && rule.substr(7) != instr.opcode_text()) {
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
      terms.push_back(known_[f.premises[k]]->term);
    }
    const StepCheck c =
        check_step(terms_, {dist_, instr, layouts, terms, f.layout, f.element, mesh_});
    if (!c.term) return Failure(c.why, c.unsupported);
    return *c.term;
  }
  return Failure("no rule is called '" + rule + "'");
}

Expected<ProofCheckReport> Checker::run() {
  ProofCheckReport report;
  auto error = [&](std::string message, bool unsupported = false) {
    report.outcome = unsupported ? ProofCheckReport::Outcome::kNotCheckable
                                 : ProofCheckReport::Outcome::kRejected;
    report.why = std::move(message);
    return report;
  };
  const auto& facts = r_.derivation;
  // The facts the proven goals rest on.
  std::vector<bool> needed(facts.size(), false);
  report.goals_in_all = r_.goals.size();
  for (const verify::Goal& g : r_.goals) {
    if (!g.proven) continue;
    if (!g.fact || *g.fact >= facts.size()) {
      return error("goal " + g.ref + ": proven, but the proof names no fact for it");
    }
    std::vector<size_t> stack{*g.fact};
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      if (needed[i]) continue;
      needed[i] = true;
      for (size_t p : facts[i].premises) {
        if (p >= facts.size())
          return error("fact [" + std::to_string(i) + "]: no premise " + std::to_string(p));
        stack.push_back(p);
      }
    }
  }
  known_.assign(facts.size(), std::nullopt);
  for (size_t i = 0; i < facts.size(); ++i) {
    if (!needed[i]) continue;
    const DerivedFact& f = facts[i];
    if (f.index != i)
      return error("fact [" + std::to_string(i) + "] is numbered " + std::to_string(f.index));
    auto t = check_fact(f);
    if (auto* failed = std::get_if<Failure>(&t)) {
      return error(fail(f, failed->why), failed->unsupported);
    }
    const TermId term = std::get<TermId>(t);
    // The value's shape must be the reference value's, split as the layout says.
    const auto id = dist_.entry().find(f.dist);
    const ir::Type& whole = dist_.entry()[*id].type;
    const ir::Type& local = f.element >= 0 && whole.is_tuple() &&
                                    static_cast<size_t>(f.element) < whole.elements().size()
                                ? whole.elements()[static_cast<size_t>(f.element)]
                                : whole;
    const ir::Type& ref_type = terms_[term].type;
    const auto dims = local.is_array() ? f.layout.reference_dims(local.dims(), mesh_)
                                       : std::optional<std::vector<int64_t>>();
    if (!dims || !ref_type.is_array() || *dims != ref_type.dims() ||
        local.dtype() != ref_type.dtype()) {
      return error(fail(f, "a " + local.to_string(false) + " in layout " +
                               f.layout.to_string(mesh_) + " cannot hold the reference value " +
                               ref_type.to_string(false)));
    }
    if (!f.ref.empty()) {
      const auto named = reference_term(f.ref, f.element);
      if (!named || *named != term) {
        return error(fail(
            f, "its value is " + terms_.describe(term) + ", not reference node '" + f.ref + "'"));
      }
    }
    known_[i] = Known{term};
    ++report.facts;
    if (f.rule == "bijection") ++report.parameters;
  }
  // Each proven goal: its fact is about the distributed output, in the goal's layout, and its
  // term is the reference output's.
  std::set<int64_t> covered;
  const ir::Instruction& droot = dist_.entry()[dist_.entry().root];
  const ir::Instruction& rroot = ref_.entry()[ref_.entry().root];
  for (const verify::Goal& g : r_.goals) {
    if (!g.proven) continue;
    const DerivedFact& f = facts[*g.fact];
    const std::string ref_name = g.ref.substr(0, g.ref.find('#'));
    const size_t hash = g.ref.find('#');
    const int64_t ref_element = hash == std::string::npos ? -1 : std::stoll(g.ref.substr(hash + 1));
    // The goal names the distributed output element (`tuple.162#3`), which the output
    // alignment may have paired with another reference element.
    const size_t dhash = g.dist.find('#');
    const int64_t element =
        dhash == std::string::npos ? g.index : std::stoll(g.dist.substr(dhash + 1));
    const bool output_fact =
        (droot.opcode == ir::Opcode::kTuple && f.dist == droot.name && f.element == element) ||
        (droot.opcode == ir::Opcode::kTuple && f.element < 0 &&
         static_cast<size_t>(element) < droot.operands.size() &&
         dist_.entry()[droot.operands[static_cast<size_t>(element)]].name == f.dist) ||
        (droot.opcode != ir::Opcode::kTuple && f.dist == droot.name);
    if (!output_fact) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] is about " +
                   verify::value_name(f) + ", not the distributed output " + g.dist);
    }
    // A sum over n ranks of n·X is their mean of X: a goal may say partial(mean) where its
    // fact says partial(sum) of n times the reference output.
    double factor = 1;
    bool same_layout = g.layout && g.layout->axes.size() == f.layout.axes.size();
    for (size_t a = 0; same_layout && a < f.layout.axes.size(); ++a) {
      const AxisLayout& want_part = g.layout->axes[a];
      const AxisLayout& got = f.layout.axes[a];
      if (want_part == got) continue;
      same_layout = want_part.is_partial() && want_part.op == verify::ReduceOp::kMean &&
                    got.is_partial() && got.op == verify::ReduceOp::kSum;
      factor *= static_cast<double>(mesh_.size(a));
    }
    if (!same_layout) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] gives layout " +
                   f.layout.to_string(mesh_) + ", not the goal's");
    }
    auto want = reference_term(ref_name, ref_element);
    if (ref_name != rroot.name || !want) {
      return error("goal " + g.ref + ": not an output of the reference program");
    }
    *want = terms_.scaled(factor, *want);
    if (*want != known_[f.index]->term) {
      return error("goal " + g.ref + ": fact [" + std::to_string(f.index) + "] computes " +
                   terms_.describe(known_[f.index]->term) + ", not the reference output " +
                   terms_.describe(*want));
    }
    covered.insert(ref_element);
    ++report.goals;
  }
  report.assumptions.assign(assumptions_.begin(), assumptions_.end());
  for (const auto& [name, n] : terms_.identities_used()) report.identities[name] = n;
  // Every reference output has a re-checked goal, or the result says it has no counterpart
  // (then the verdict is about the others, as the result states; --strict refuses that).
  const size_t outputs = rroot.opcode == ir::Opcode::kTuple ? rroot.operands.size() : 1;
  size_t missing = 0;
  for (size_t k = 0; k < outputs; ++k) {
    const auto element = rroot.opcode == ir::Opcode::kTuple ? static_cast<int64_t>(k) : -1;
    const std::string name = element < 0 ? rroot.name : rroot.name + "#" + std::to_string(k);
    const bool proven = covered.contains(element) || (element <= 0 && covered.contains(0)) ||
                        (element < 0 && covered.contains(-1));
    const bool unmatched =
        std::find(r_.unmatched_ref_outputs.begin(), r_.unmatched_ref_outputs.end(), name) !=
        r_.unmatched_ref_outputs.end();
    if (unmatched && !proven) ++report.unmatched_outputs;
    if (!proven && !unmatched) ++missing;
  }
  const bool all = missing == 0;
  const std::string claimed(verify::verdict_name(r_.verdict));
  if (claimed == "equivalent" && !all) {
    return error("the result says equivalent, but " + std::to_string(missing) +
                 " reference output(s) have no proven goal");
  }
  report.verdict = all ? "equivalent" : claimed;
  report.outcome = ProofCheckReport::Outcome::kAccepted;
  return report;
}

}  // namespace

Expected<ProofCheckReport> check_proof(const ProofFile& proof) {
  auto ref = hlo::read_module(proof.ref_hlo, proof.ref_path);
  if (!ref) return ref.error();
  auto dist = hlo::read_module(proof.dist_hlo, proof.dist_path);
  if (!dist) return dist.error();
  // Calls and fusions are checked op by op, named CALL.NODE, as the checker names them.
  if (auto flat = ir::inline_calls(*ref)) *ref = std::move(*flat);
  if (auto flat = ir::inline_calls(*dist)) *dist = std::move(*flat);
  if (proof.result.mesh.rank() == 0) {
    return Diagnostic{proof.dist_path, {}, "the proof names no mesh", ""};
  }
  std::vector<IdentityRule> identities;
  for (const rules::RuleText& file : rules::bundled_rule_files()) {
    auto parsed = rules::parse_rules(file.text, file.name);
    if (!parsed) return parsed.error();
    auto more = identity_rules(*parsed);
    identities.insert(identities.end(), more.begin(), more.end());
  }
  TermTable terms(std::move(identities));
  return Checker(proof, *ref, *dist, terms).run();
}

}  // namespace scalify::proofcheck
