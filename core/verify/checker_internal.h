// The checker's state, shared by its files: checker.cpp (the run: the reference's terms, the
// bijection's facts, saturation, goals, verdict), checker_lift.cpp (lifting the distributed
// program node by node), checker_report.cpp (proofs, localisation, notes), checker_trace.cpp
// (tracing a wrong value back to where it starts) and the others named by their declarations.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/runner.h"
#include "egraph/vocabulary.h"
#include "rules/rule_compiler.h"
#include "verify/checker.h"
#include "verify/propagation.h"
#include "verify/rank_values.h"
#include "verify/saturation_memo.h"
#include "verify/term_bridge.h"
#include "verify/type_table.h"

namespace scalify::verify::detail {

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
  /// The term is a reference value or built from one (not from constants and iotas of the
  /// distributed program alone).
  bool anchored = false;
  /// Rules while-induction and conditional-branches: the checks of the computations.
  std::shared_ptr<const ControlFlowProof> control_flow;
};

/// Values are per instruction and tuple element.
template <class T>
using PerValue = std::vector<std::vector<T>>;

inline size_t element_count(const ir::Type& t) { return t.is_tuple() ? t.elements().size() : 1; }

/// The instruction that produces element `element` of `comp`'s result: the root's operand when
/// the root is a tuple of it, else the root.
inline InstrId output_producer(const ir::Computation& comp, size_t element) {
  const ir::Instruction& root = comp[comp.root];
  return root.opcode == ir::Opcode::kTuple && element < root.operands.size()
             ? root.operands[element]
             : comp.root;
}

/// A copy (or optimisation barrier) of a tuple: each element is the operand's.
inline bool copies_tuple(const ir::Computation& comp, const ir::Instruction& instr) {
  return (instr.opcode == ir::Opcode::kCopy || instr.opcode == ir::Opcode::kOptimizationBarrier) &&
         instr.operands.size() == 1 && instr.type.is_tuple() &&
         comp[instr.operands[0]].type.is_tuple() &&
         comp[instr.operands[0]].type.elements().size() == instr.type.elements().size();
}

/// One check of `dist` against `ref` under fixed parameter bindings.
class Checker {
 public:
  /// `memo`, if given, lends saturated e-graphs to checks of the same search (see
  /// SaturationMemo) and keeps this one's.
  Checker(const ir::Module& ref, const ir::Module& dist, const Mesh& mesh,
          const CheckOptions& options, const std::vector<OutputBinding>& outputs,
          SaturationMemo* memo = nullptr)
      : ref_(ref),
        dist_(dist),
        mesh_(mesh),
        options_(options),
        outputs_(outputs),
        memo_(memo),
        g_(options.explain),
        bridge_(g_, vocab_, types_) {}

  CheckResult run(const std::vector<ParamBinding>& bindings);

 private:
  /// Commutative operators (`comm` in the bundled rules) keep sorted operands in the e-graph
  /// from its first node on, and rules match them in either order.
  void declare_commutative();
  void encode_reference();
  /// Fills ref_classes_ and ref_types_ from ref_values_.
  void index_reference_values();
  /// Takes the reference as an earlier check of the same search encoded it.
  void restore_reference(const SaturationMemo::EncodedReference& e);
  void seed(const std::vector<ParamBinding>& bindings);
  void propagate();
  void lift_instruction(InstrId id);
  void lift_replicated_tuple(InstrId id);
  void forward_facts(InstrId id, size_t element, std::vector<uint32_t> from, const char* rule);
  /// A loop or conditional left after flattening, proven by what its computations do on the
  /// layouts of its operands (checker_control_flow.cpp); false when it is no such node or its
  /// operands have no layouts.
  bool lift_loop(InstrId id);
  bool lift_conditional(InstrId id);
  std::vector<uint32_t> facts_starting_at(InstrId value, InstrId ref_value) const;
  void add_control_flow_facts(InstrId id, InstrId ref, const std::vector<Layout>& layouts,
                              const std::vector<uint32_t>& premises, const char* rule,
                              std::shared_ptr<const ControlFlowProof> proof);
  std::optional<NoLift> lift_rows_of_tuple(InstrId id);
  bool add_rows_of_tuple(InstrId id, const std::vector<Lift>& lifts,
                         const std::vector<ClassId>& refs, const std::vector<uint32_t>& premises);
  void offer_random_blocks(InstrId id, ClassId state);
  int likeness(ClassId term) const;
  void random_as_assumption(const ir::Instruction& instr, Fact& f) const;
  bool lift_slice_by_rank(InstrId id);
  bool lift_select_by_rank(InstrId id);
  bool lift_ring_assembly(InstrId id);
  /// The per-device values of an index operand: computed from the rank, or a constant.
  std::optional<PerDevice> offsets_by_device(InstrId o) const;
  /// The k with offsets[d] = ((d's coordinate on `axis`) + k) mod n × size for every device d
  /// (0 for each rank's own block), if there is one.
  std::optional<int64_t> ring_blocks(const PerDevice& offsets, size_t axis, int64_t size) const;
  void offer_padded_broadcasts(InstrId user);
  void offer_shard_moves(InstrId user);
  void offer_dot_moves(InstrId user);
  void offer_reshape_moves(InstrId user);
  /// How an op sees an operand that has fact `f`: its layout, reference type and number.
  OperandView operand_view(const Fact& f) const;
  /// The instructions of the distributed ENTRY that read `id` (made on first use).
  const std::vector<InstrId>& users_of(InstrId id);
  void offer_reference_moves(InstrId id);
  bool moves_to_reference_type(uint32_t f, size_t axis, int32_t to);
  std::optional<Fact> moved_shard(uint32_t f, size_t axis, int32_t to);
  void offer_output_moves();
  std::optional<Fact> fact_of(const ir::Instruction& instr, const Lift& lift,
                              const std::vector<ClassId>& refs,
                              const std::vector<uint32_t>& premises, std::string* why);
  void add_broadcast_shards(InstrId id, const Lift& lift, const std::vector<ClassId>& refs,
                            const Fact& rep);
  bool add_fact(InstrId id, size_t element, Fact fact);
  /// Saturates the e-graph under the bundled rules (or takes the saturated e-graph from the
  /// memo when it holds this very state).
  void saturate();
  void run_rules();
  /// The memo's key: saturation_state() and what the goal test and the limits read.
  std::string saturation_key() const;
  void decide_goals();
  bool all_goals_hold(const egraph::EGraph& g) const;
  void add_mean_goals();
  /// The layout by which fact f proves goal i (its own, or partial(mean)), if it does.
  std::optional<Layout> goal_layout(const egraph::EGraph& g, uint32_t f, size_t i) const;
  bool some_output_unlifted() const;
  void localise_by_value();
  /// For an all-reduce that summed equal copies: the reason it is the divergence.
  std::optional<std::string> sum_of_copies(InstrId id) const;
  /// For a node whose operands hold reference values: the reason when the reference applies
  /// no op of its kind to any of those values (an op added, e.g. a rounding to bf16).
  std::optional<std::string> op_not_in_reference(InstrId id) const;
  /// Why a dynamic-slice that takes another rank's block (a ring's step) is to blame, if it is.
  std::optional<std::string> rotated_slice(InstrId id) const;
  void localise_at_outputs();
  void record_matches();
  /// Every fact as CheckResult::derivation, after saturation (e-classes and reference nodes
  /// as they end up).
  void record_derivation();
  /// Per e-class: its first reference node in topological order (of single values).
  std::unordered_map<ClassId, InstrId> first_reference_nodes() const;
  // The balanced-partials assumption (checker_balanced.cpp).
  void find_divisors();
  void offer_balanced_share(InstrId id, uint32_t fact);
  bool lift_nonzero_guard(InstrId id);
  void merge_reference_guards();
  void add_scaled_reference();
  std::vector<InstrId> reference_guards(ClassId total, std::optional<double> fallback) const;
  void state_random_assumptions();
  Divergence describe(InstrId id, std::string reason) const;
  /// For a node refused for a partial operand: where that partial sum begins (following
  /// partial operands back), with a clause saying so to append to the reason; nothing when it
  /// begins at the operand itself.
  std::optional<std::pair<InstrId, std::string>> partial_origin(InstrId id) const;
  // Tracing a wrong value back alongside the reference (checker_trace.cpp).
  /// Whether the distributed value holds (in some layout) the reference value, element-wise.
  bool holds_reference_value(InstrId dist_value, InstrId ref_value) const;
  /// The reference values' classes, canonical (after saturation).
  std::unordered_set<ClassId> canonical_reference_classes() const;
  /// Whether some reader of `value` other than `except` holds a value of `reference`.
  bool feeds_reference_value(InstrId value, InstrId except,
                             const std::unordered_set<ClassId>& reference) const;
  /// The operand positions where `dist` and `ref` (same op, same arity) read different values.
  std::vector<size_t> differing_operands(InstrId dist, InstrId ref) const;
  /// The reference nodes that could play distributed node `id`'s part: the same op and arity,
  /// in the same op_name scope, with the most operands in common (or the same source site).
  /// `guessed`: none has an operand in common or the site, so all of this kind are listed.
  struct Counterparts {
    std::vector<InstrId> nodes;
    bool guessed = false;
  };
  Counterparts counterparts(InstrId id) const;
  /// Where a walk back from a distributed node alongside a reference node ends: the first pair
  /// (`at`, `ref_at`) that apply the same op to other values, or another op, and why.
  struct Parting {
    InstrId start;  ///< the reference node the walk began at
    InstrId at, ref_at;
    std::vector<size_t> differ;  ///< the operand positions where at and ref_at read other values
    /// kOpMissing: the reference applies an op to the value `at` reads; kOpAdded: the other way
    /// round; kOwnAttributes: the same operands, another result; kSwapped: two operands
    /// exchanged.
    enum class Why : uint8_t { kOpMissing, kOpAdded, kOwnAttributes, kSwapped, kOther } why;
  };
  Parting walk_back(InstrId flagged, InstrId ref,
                    const std::unordered_set<ClassId>& reference) const;
  /// For a node computing a value the reference never computes: the node where the two
  /// programs first part (itself or one upstream), walking back one differing operand at a
  /// time while both apply the same op; none when no reference node plays its part.
  std::optional<Divergence> trace_to_first_difference(InstrId flagged) const;
  /// The divergence at p.at, for `flagged`, whose `symptom` ("computes a value the reference
  /// never computes") starts the reason.
  Divergence parting_divergence(InstrId flagged, const Parting& p,
                                const std::string& symptom) const;
  /// For a distributed node known to hold the wrong value where the reference has `ref` (an
  /// output): the walk back alongside `ref`, when it leaves the node or names the parting.
  std::optional<Divergence> trace_from(InstrId dist, InstrId ref, const std::string& symptom) const;
  std::optional<InstrId> closest_ref(InstrId id) const;
  std::string rewrites_between(ClassId lifted, ClassId ref, const std::string& name) const;

  const ir::Module& ref_;
  const ir::Module& dist_;
  const Mesh& mesh_;
  const CheckOptions& options_;
  const std::vector<OutputBinding>& outputs_;
  SaturationMemo* memo_;
  /// Goal i: the distributed output element.
  std::optional<size_t> dist_element(size_t ref_index) const;
  /// What goal i's distributed output must be when something says so: the spec (that layout
  /// exactly), or the `sharding=` of DIST's ROOT element (its blocks, whatever the padding; only
  /// when it fits the two outputs' shapes, and only for the program itself, not a loop body or
  /// branch checked on its own). Read once per run (read_output_requirements).
  struct Requirement {
    Layout layout;
    bool exact = true;
    std::string source;  ///< "the spec" / "its sharding={devices=[4,1]<=[4]}"
    /// An annotation placing blocks on the mesh's devices in a way the mesh cannot read (why):
    /// no layout meets it.
    std::string unreadable;
    std::vector<int64_t> local_dims;  ///< the distributed output's, for an annotation
    bool met_by(const Layout& proven) const;
  };
  const Requirement* required_layout(size_t ref_index) const {
    return ref_index < requirements_.size() && requirements_[ref_index] ? &*requirements_[ref_index]
                                                                        : nullptr;
  }
  void read_output_requirements();
  /// The requirement DIST's ROOT annotation makes of its output element of type `dist`, the
  /// reference's being `ref`; nullopt when it says nothing to hold the output to.
  std::optional<Requirement> annotated_requirement(const ir::Sharding& sharding,
                                                   const ir::Type& dist, const ir::Type* ref) const;
  std::vector<std::optional<Requirement>> requirements_;  ///< per reference output
  bool output_unreadable_ = false;  ///< a goal failed on an annotation the mesh cannot read
  /// With explanations: a proven goal's reference side is explained rule by rule.
  egraph::EGraph g_;
  std::vector<rules::RuleOrigin> origins_;  ///< of the compiled rules, for proof steps
  egraph::Vocabulary vocab_;
  TypeTable types_;
  TermBridge bridge_;

  PerValue<std::optional<ClassId>> ref_values_;   ///< per reference instruction
  std::unordered_set<ClassId> ref_classes_;       ///< of ref_values_
  std::unordered_set<egraph::TypeId> ref_types_;  ///< of ref_values_
  std::vector<std::string> ref_unsupported_;
  PerValue<std::vector<uint32_t>> facts_of_;           ///< per distributed instruction
  std::vector<std::optional<PerDevice>> rank_values_;  ///< per distributed instruction
  std::vector<std::vector<InstrId>> users_;            ///< per distributed instruction
  /// A ring's updates so far: which blocks (r + k for each k written) of `value` along `dim`
  /// every rank r holds, and the updates' facts.
  struct RingAssembly {
    ClassId value = 0;
    int32_t dim = 0;
    size_t axis = 0;
    std::vector<bool> written;
    std::vector<uint32_t> premises;
  };
  std::unordered_map<InstrId, RingAssembly> assembly_;
  /// The buffers a completed ring overwrote, and its steps before the last.
  std::vector<InstrId> overwritten_;
  std::vector<Fact> facts_;
  /// The earliest node that gets no layout although its operands have some; `unsupported`
  /// ones (what the checker does not model) kept apart from real refusals.
  std::optional<std::pair<InstrId, std::string>> first_refusal_, first_unsupported_;
  /// propagate() stopped at a refusal before CheckOptions::give_up_before.
  bool gave_up_ = false;
  /// An output with the right value in another layout than the spec or its annotation says.
  std::optional<std::pair<InstrId, std::string>> layout_misfit_;
  void refuse(InstrId id, const NoLift& why) {
    auto& slot = why.unsupported ? first_unsupported_ : first_refusal_;
    if (!slot) slot = {id, why.reason};
    if (why.unsupported) unmodelled_.push_back(id);
  }
  std::vector<std::string> unsupported_;
  /// Nodes whose values the checker does not model (unsupported ops and layouts): a value
  /// they feed, or one combined with theirs, cannot be judged by value.
  std::vector<InstrId> unmodelled_;
  /// Loops and conditionals proven by their computations, in words.
  std::vector<std::string> control_flow_proven_;
  /// A scalar partial sum assumed the same on every rank: `share` is total / n.
  struct Balanced {
    InstrId dist = -1;
    ClassId total = 0, share = 0;
    uint32_t share_fact = 0;
    size_t axis = 0;
    bool guarded = false;             ///< a `select(x != 0, x, c)` of it was taken as x
    std::vector<InstrId> ref_guards;  ///< the reference's guards of the total, alike
  };
  std::vector<Balanced> balanced_;
  /// Per goal, per mesh axis of size > 1: the reference output times the axis size.
  std::vector<std::vector<ClassId>> mean_goals_;
  std::vector<bool> divisors_;
  /// With balanced partials: every reference value times n and 1/n (n an axis size), the
  /// values a distributed node may hold under the assumption before a scale brings it back.
  std::vector<ClassId> scaled_reference_;  ///< per distributed instruction: a divide divides by it
  CheckResult result_;
  egraph::RunReport report_;
};

}  // namespace scalify::verify::detail
