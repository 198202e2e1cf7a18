// Query: patterns that share variables (a multi-pattern), compiled to a small backtracking
// machine and searched over an index of classes by operator.
#pragma once

#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"

namespace scalify::egraph {

/// The classes that hold at least one (visible) node of each operator, built once per search
/// phase on a clean e-graph.
///
///   OpIndex index(g);
///   for (ClassId c : index.classes_with(sym_add)) …
class OpIndex {
 public:
  explicit OpIndex(const EGraph& g);
  std::span<const ClassId> classes_with(Symbol op) const;
  std::span<const ClassId> all_classes() const { return all_; }

 private:
  std::unordered_map<Symbol, std::vector<ClassId>> by_op_;
  std::vector<ClassId> all_;
};

/// A conjunction of patterns over shared variables, e.g. the body of
/// `?r = (all-reduce ?x), ?y = (exp ?x)`. Each pattern may name its root with a variable.
/// Matches are rows of `width()` numbers: the class of every variable, then every payload
/// variable.
///
///   Pattern p;  p.op(kT, {p.op(kT, {p.var(0)})});   // t(t(?x))
///   Query q;
///   q.add(p, /*root_var=*/1);                        // ?1 = t(t(?x))
///   q.compile();
///   OpIndex index(g);
///   q.search(g, index, [](std::span<const uint32_t> row) { use(row[0], row[1]); return true; });
class Query {
 public:
  /// Adds a pattern. Its variables are shared with the other patterns by index; `root_var`,
  /// if given, is a variable bound to the class the pattern's root matches.
  void add(const Pattern& pattern, std::optional<uint32_t> root_var = std::nullopt);
  /// Compiles the patterns into the matching program; call once after the last add().
  void compile();

  /// Calls `yield` with each match (stop early by returning false). Rows are transient.
  void search(const EGraph& g, const OpIndex& index,
              const std::function<bool(std::span<const uint32_t>)>& yield) const;
  /// Matches with the first pattern's root in class `root` only.
  void search_class(const EGraph& g, ClassId root,
                    const std::function<bool(std::span<const uint32_t>)>& yield) const;

  uint32_t var_count() const { return var_count_; }
  uint32_t payload_var_count() const { return payload_var_count_; }
  uint32_t width() const { return var_count_ + payload_var_count_; }

 private:
  struct Instr {
    enum class Kind : uint8_t { kScanOp, kScanAll, kBind, kCompare, kBindPayload, kCheckPayload };
    Kind kind;
    uint32_t reg = 0;    ///< kScan*: output; kBind: input; kCompare: one side
    uint32_t other = 0;  ///< kBind: first output register; kCompare: other side
    Symbol op = 0;
    uint32_t arity = 0;
    uint32_t payload = 0;  ///< kBind with has_payload; kBindPayload/kCheckPayload: the variable
    bool has_payload = false;
  };
  struct Machine;
  void compile_node(const Pattern& p, uint32_t node, uint32_t reg, std::vector<uint32_t>& var_reg,
                    std::vector<bool>& payload_bound);

  std::vector<std::pair<Pattern, std::optional<uint32_t>>> patterns_;
  std::vector<Instr> program_;
  std::vector<uint32_t> var_reg_;  ///< the register holding each variable
  uint32_t registers_ = 0;
  uint32_t var_count_ = 0;
  uint32_t payload_var_count_ = 0;
  bool compiled_ = false;
};

}  // namespace scalify::egraph
