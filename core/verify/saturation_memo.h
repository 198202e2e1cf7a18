// SaturationMemo: what one search's checks of parameter bindings share. The reference is
// encoded once; a trial whose e-graph is exactly one already saturated is not saturated again.
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/runner.h"
#include "egraph/vocabulary.h"
#include "ir/module.h"
#include "rules/rule_compiler.h"
#include "verify/term_bridge.h"
#include "verify/type_table.h"

namespace scalify::verify {

/// Everything of the e-graph side that saturation reads, written out exactly: each node id's
/// node, class and type, each class's constant and nodes visible to matching, the union log,
/// and the names, attributes and types the ids stand for. Saturation is deterministic, so two
/// states that write the same text saturate to the same e-graph (given the same rules, limits
/// and goal, which the caller adds to its key).
///
///   std::string key = saturation_state(g, vocab, types) + what_the_goal_reads;
std::string saturation_state(const egraph::EGraph& g, const egraph::Vocabulary& vocab,
                             const TypeTable& types);

/// A few saturated states by exact key. A binding search's trials often change a parameter's
/// layout that no term depends on (the divergence stops lifting before the parameter is read):
/// they build the very e-graph the first check saturated, and saturating a divergent program
/// runs to the iteration limit, which is most of a check's time.
///
///   SaturationMemo memo;
///   if (const auto* s = memo.find(key)) restore(*s);
///   else { saturate(); memo.store(key, {g, vocab, types, report, origins, notes}); }
class SaturationMemo {
 public:
  struct Saturated {
    egraph::EGraph graph;
    egraph::Vocabulary vocab;
    TypeTable types;
    egraph::RunReport report;
    std::vector<rules::RuleOrigin> origins;
    std::vector<std::string> notes;  ///< what the run told (e.g. a bundled rule file's error)
  };
  const Saturated* find(std::string_view key) const;
  /// The reference program's terms, as every check of the search writes them first (they do
  /// not depend on the bindings tried): the e-graph side and a value per reference instruction
  /// element.
  struct EncodedReference {
    egraph::EGraph graph;
    egraph::Vocabulary vocab;
    TypeTable types;
    TermBridge::Written bridge;
    std::vector<std::vector<std::optional<egraph::ClassId>>> values;
    std::vector<std::string> unsupported;
  };
  /// The reference module `ref` (this very object) as a check with or without explanations
  /// encoded it, if one of the search did.
  const EncodedReference* encoded_reference(const ir::Module& ref, bool explain) const {
    return reference_ && reference_of_ == &ref && reference_->graph.explanations() == explain
               ? &*reference_
               : nullptr;
  }
  void store_encoded_reference(const ir::Module& ref, EncodedReference e) {
    reference_of_ = &ref;
    reference_ = std::move(e);
  }
  /// Keeps `saturated` under `key`, forgetting the oldest entry beyond kCapacity.
  void store(std::string key, Saturated saturated);
  size_t hits() const { return hits_; }

 private:
  /// Saturated e-graphs may be large; a search rarely comes back to a state older than the
  /// last two.
  static constexpr size_t kCapacity = 2;
  std::deque<std::pair<std::string, Saturated>> entries_;
  const ir::Module* reference_of_ = nullptr;
  std::optional<EncodedReference> reference_;
  mutable size_t hits_ = 0;
};

}  // namespace scalify::verify
