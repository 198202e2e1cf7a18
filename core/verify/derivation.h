// The derivation of a check: the layout facts in the order the checker derived them, each with
// the rule that gave it and the earlier facts it came from. A proven goal's proof is the facts
// its output's fact rests on, rendered one a line (proof_lines); the window shows the same
// facts as a tree (views/proof_panel) and step by step (views/saturation_timeline).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

struct CheckResult;

/// A computation checked as a program of its own (ir/step_module.h) on which a control-flow
/// fact rests: its parameters bound by the layouts of the state or operands it starts from,
/// its outputs required in the layouts the fact claims.
struct StepCheck {
  std::string role;  ///< "body", "condition", "branch 0", …
  std::shared_ptr<const CheckResult> result;
};

/// What a fact of rule `while-induction` or `conditional-branches` rests on besides its
/// premises (the loop's initial state, the conditional's operands): the reference node it is
/// paired with, and the checks of the loop's body and condition, or of every branch.
struct ControlFlowProof {
  std::string ref_node;  ///< the reference `while` or `conditional`
  std::vector<StepCheck> steps;
};

/// One layout fact: distributed value `dist` (element `element` of a tuple) relates by `layout`
/// to a reference value, by `rule`, from the earlier facts `premises`.
struct DerivedFact {
  size_t index = 0;      ///< its position in the derivation
  std::string dist;      ///< the distributed instruction, without '%'
  int64_t element = -1;  ///< the tuple element, or -1 for an array value
  Layout layout;
  /// The first reference node (in topological order) of the value's e-class, as NodeMatch
  /// names it; "" when no reference node holds the value (then `eclass` identifies it).
  std::string ref;
  int64_t eclass = -1;           ///< the value's e-class after saturation (per check, or part)
  std::string rule;              ///< bijection, assumption, factor:dot, all-gather, tuple, …
  std::vector<size_t> premises;  ///< indices of earlier facts
  /// The rewrite rules by which the term built for this fact equals `ref`'s, each once (with
  /// --explain; empty when the term is `ref`'s own node, or explanations are off).
  std::vector<std::string> rewrites;
  /// For a control-flow fact: the checks of the computations it rests on (shared by the facts
  /// of the node's elements); null for every other rule.
  std::shared_ptr<const ControlFlowProof> control_flow;
};

/// `dist#element` for a tuple element, else `dist`.
std::string value_name(const DerivedFact& fact);

/// A value's name taken apart (the inverse of value_name, also for goals' output names):
/// `tuple.12#3` → {"tuple.12", 3}, `dot.2` → {"dot.2", -1}; nullopt when what follows '#' is
/// not a non-negative integer.
struct ValueName {
  std::string node;
  int64_t element = -1;
};
std::optional<ValueName> split_value_name(std::string_view name);

/// A fact as one proof line:
///
///   [11] dot.2 ~ rep of e-class 3   by factor:dot from [6] [10]
std::string fact_line(const DerivedFact& fact, const Mesh& mesh);

/// The same, shorter, naming the reference node when there is one (the timeline's label):
///
///   dot.2 ~ rep of dot.3 by factor:dot from [6] [10]
std::string fact_summary(const DerivedFact& fact, const Mesh& mesh);

/// The facts fact `index` rests on (itself included), in derivation order. Facts before
/// `expand_from` are listed but their own premises are not followed.
std::vector<size_t> proof_closure(const std::vector<DerivedFact>& derivation, size_t index,
                                  size_t expand_from = 0);

/// fact_line of every fact of proof_closure(derivation, index, expand_from).
std::vector<std::string> proof_lines(const std::vector<DerivedFact>& derivation, size_t index,
                                     const Mesh& mesh, size_t expand_from = 0);

/// The fact that shows node `dist` related to a reference node, as NodeMatch picks it: the
/// first fact of the (array-valued) node naming one; else the node's first fact (of a tuple
/// element, perhaps). npos when the node has none.
size_t fact_of_node(const std::vector<DerivedFact>& derivation, const std::string& dist);

/// Joins the parts' derivations of a layered check into the whole program's, renumbered. A
/// fact on a node `in_program` does not know (a part's own output tuple) stands for its first
/// premise and is dropped; so is an input fact of a part (`bijection`) that an earlier fact of
/// the same value and layout already states: the later part's facts then rest on it.
///
///   DerivationJoiner join([&](const std::string& n) { return whole.find(n).has_value(); });
///   for (CheckResult& part : parts) join.append(std::move(part.derivation));
///   result.derivation = std::move(join).take();
class DerivationJoiner {
 public:
  explicit DerivationJoiner(std::function<bool(const std::string&)> in_program)
      : in_program_(std::move(in_program)) {}

  /// Makes room for `facts` facts in all (the parts' sizes summed: an upper bound).
  void reserve(size_t facts);
  /// Appends one part's derivation; returns, per part fact, its index in the whole.
  std::vector<size_t> append(std::vector<DerivedFact> part);
  /// The same for a part whose derivation is another's, copied and changed by `adjust` (names
  /// replaced: a repeated layer takes the derivation of the first layer like it).
  std::vector<size_t> append_copy(const std::vector<DerivedFact>& part,
                                  const std::function<void(DerivedFact&)>& adjust);
  const std::vector<DerivedFact>& derivation() const { return whole_; }
  std::vector<DerivedFact> take() && { return std::move(whole_); }

 private:
  /// The first fact on the same value as `f` (dist and element) with `f`'s layout, if any.
  std::optional<size_t> same_fact(const DerivedFact& f) const;
  /// Adds part fact `i`, given as `f`, or maps it to a fact already in; records where in `at`.
  void add(DerivedFact&& f, size_t i, std::vector<size_t>& at);

  std::function<bool(const std::string&)> in_program_;
  std::vector<DerivedFact> whole_;
  /// The facts of each value, as chains: hash of (dist, element) -> first and last fact with
  /// that hash; next_[k] is the following fact with fact k's hash (npos at the end). One table
  /// entry per value, no string or list of its own.
  std::unordered_map<size_t, std::pair<size_t, size_t>> by_value_;
  std::vector<size_t> next_;
};

}  // namespace scalify::verify
