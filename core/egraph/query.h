// Query: patterns that share variables (a multi-pattern), compiled to a small backtracking
// machine and searched over an index of classes by operator.
#pragma once

#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/pattern.h"
#include "relations/relation.h"

namespace scalify::egraph {

/// The classes that hold at least one (visible) node of each operator, built once per search
/// phase on a clean e-graph.
///
///   OpIndex index(g);
///   for (ClassId c : index.classes_with(sym_add)) …
class OpIndex {
 public:
  explicit OpIndex(const EGraph& g);
  /// The index of just these canonical classes (ascending).
  OpIndex(const EGraph& g, std::vector<ClassId> classes);
  std::span<const ClassId> classes_with(Symbol op) const;
  std::span<const ClassId> all_classes() const { return all_; }

 private:
  std::unordered_map<Symbol, std::vector<ClassId>> by_op_;
  std::vector<ClassId> all_;
};

/// An argument of a relation atom in a query: a variable, a fixed value, or anything.
struct AtomArg {
  enum class Kind : uint8_t { kVar, kValue, kAny };
  Kind kind = Kind::kAny;
  uint32_t value = 0;  ///< kVar: the variable; kValue: the value
};

/// A conjunction of patterns and relation atoms over shared variables, e.g. the body of
/// `?r = (all-reduce ?x), Partial(?x, ?X, tp, sum)`. Each pattern may name its root with a
/// variable. Matches are rows of `width()` numbers: every variable's value (a class, or an
/// atom's plain value), then every payload variable.
///
/// With atoms only, search() can be semi-naive: given `since`, it returns only the matches
/// that use at least one fact stamped `since` or later (one program per atom, that atom first
/// and restricted to new facts, the rest joined in full). A body with patterns is searched in
/// full, since a new term may join old facts.
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
  /// Adds the atom `relation(args…)` (a relation index of the Database searched).
  void add_atom(uint32_t relation, std::vector<AtomArg> args);
  /// Compiles the patterns and atoms into matching programs; call once after the last add.
  /// Applications of the `ac` operators (kept with sorted operands by the e-graph) match their
  /// operands in any order.
  void compile(std::span<const Symbol> ac = {});

  /// Calls `yield` with each match (stop early by returning false). Rows are transient.
  /// `db` is needed when the query has atoms; `since` > 0 asks for the semi-naive delta.
  void search(const EGraph& g, const OpIndex& index,
              const std::function<bool(std::span<const uint32_t>)>& yield,
              relations::Database* db = nullptr, uint32_t since = 0) const;
  /// Like search(), for a query with a height(): only the matches that read a class marked in
  /// `changed` (by canonical id; a match reads the classes its pattern's nodes and variables
  /// are matched in). Any other match was there, unchanged, before those classes changed.
  void search_changed(const EGraph& g, const OpIndex& index, const std::vector<bool>& changed,
                      const std::function<bool(std::span<const uint32_t>)>& yield) const;

  bool has_atoms() const { return !atoms_.empty(); }
  /// For a query of one pattern rooted at an operator, and no atoms: the pattern's height,
  /// its variables counting as a level (`f(g(?x))` is 3). Every class a match reads (its
  /// nodes, or a variable's class that a guard may test) is then at most height - 1 steps
  /// below the root, so a match that reads no class changed since the last search was found
  /// by it. Otherwise nullopt.
  std::optional<uint32_t> height() const { return height_; }
  /// Whether searching in full scans classes by operator (not only facts' classes).
  bool scans() const { return scans_; }
  struct Atom {
    uint32_t relation;
    std::vector<AtomArg> args;
  };
  const std::vector<Atom>& atoms() const { return atoms_; }

  uint32_t var_count() const { return var_count_; }
  uint32_t payload_var_count() const { return payload_var_count_; }
  uint32_t width() const { return var_count_ + payload_var_count_; }

 private:
  struct Instr {
    enum class Kind : uint8_t {
      kScanOp,
      kScanAll,
      kBind,
      kCompare,
      kBindPayload,
      kCheckPayload,
      kFact,
    };
    Kind kind;
    uint32_t reg = 0;    ///< kScan*: output; kBind: input; kCompare: one side
    uint32_t other = 0;  ///< kBind: first output register; kCompare: other side; kFact: plan
    Symbol op = 0;
    uint32_t arity = 0;
    uint32_t payload = 0;  ///< kBind with has_payload; kBindPayload/kCheckPayload: the variable
    bool has_payload = false;
    bool ac = false;  ///< kBind*: try every order of the node's operands
  };
  /// How a fact instruction treats each column: bind a register, compare with one, compare
  /// with a value, or ignore it.
  struct ColumnPlan {
    enum class Mode : uint8_t { kBind, kCompare, kValue, kAny };
    Mode mode = Mode::kAny;
    uint32_t value = 0;  ///< the register, or the value
  };
  struct AtomPlan {
    uint32_t relation = 0;
    bool delta = false;  ///< only facts stamped `since` or later
    std::vector<ColumnPlan> columns;
  };
  struct Program {
    std::vector<Instr> code;
    std::vector<AtomPlan> atoms;
    std::vector<uint32_t> var_reg;  ///< the register holding each variable
    uint32_t registers = 0;
  };
  struct Machine;
  Program compile_program(std::optional<size_t> delta_atom, std::span<const Symbol> ac) const;
  void compile_node(Program& prog, const Pattern& p, uint32_t node, uint32_t reg,
                    std::vector<bool>& payload_bound, std::span<const Symbol> ac) const;
  void compile_atom(Program& prog, const Atom& atom, bool delta) const;
  void run_program(const Program& prog, const EGraph& g, const OpIndex& index,
                   const std::function<bool(std::span<const uint32_t>)>& yield,
                   relations::Database* db, uint32_t since,
                   const std::vector<bool>* changed = nullptr) const;

  std::vector<std::pair<Pattern, std::optional<uint32_t>>> patterns_;
  std::vector<Atom> atoms_;
  Program full_;                ///< patterns first, then atoms
  std::vector<Program> delta_;  ///< one per atom, that atom first
  uint32_t var_count_ = 0;
  uint32_t payload_var_count_ = 0;
  std::optional<uint32_t> height_;  ///< see height(), set by compile()
  bool scans_ = false;              ///< see scans(), set by compile()
  bool compiled_ = false;
};

}  // namespace scalify::egraph
