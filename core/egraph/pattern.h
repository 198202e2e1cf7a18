// Patterns over the e-graph: terms with variables, and their instantiation.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "egraph/egraph.h"

namespace scalify::egraph {

/// A term with variables, e.g. `transpose(transpose(?x))`, stored flat: children before their
/// parent, the root last. Besides class variables (`?x`), an operator's payload can be fixed,
/// free, or bound to a payload variable (so that guards and right-hand sides can use a
/// matched node's attributes).
///
///   Pattern p;
///   auto x = p.var(0);
///   p.op(kTranspose, {p.op(kTranspose, {x})});   // the last node added is the root
class Pattern {
 public:
  struct Node {
    bool is_var = false;
    uint32_t var = 0;                     ///< is_var: the variable's index
    Symbol op = 0;                        ///< otherwise: the operator
    std::optional<uint32_t> payload;      ///< the payload it must have; nullopt: any
    std::optional<uint32_t> payload_var;  ///< binds the payload to this payload variable
    std::vector<uint32_t> children;       ///< indices into nodes()
    /// The payload this node is built with, given the payload variables' values.
    uint32_t payload_in(std::span<const uint32_t> payloads) const {
      return payload_var ? payloads[*payload_var] : payload.value_or(0);
    }
  };

  /// Adds variable ?i and returns its node index.
  uint32_t var(uint32_t i);
  /// Adds `op(children…)` with a fixed payload (nullopt: any) and returns its node index.
  uint32_t op(Symbol op, std::vector<uint32_t> children, std::optional<uint32_t> payload = 0);
  /// Adds `op(children…)` whose payload binds payload variable `payload_var`.
  uint32_t op_with_payload_var(Symbol op, std::vector<uint32_t> children, uint32_t payload_var);

  const std::vector<Node>& nodes() const { return nodes_; }
  uint32_t root() const { return static_cast<uint32_t>(nodes_.size() - 1); }
  uint32_t var_count() const { return var_count_; }
  uint32_t payload_var_count() const { return payload_var_count_; }

 private:
  std::vector<Node> nodes_;
  uint32_t var_count_ = 0;
  uint32_t payload_var_count_ = 0;
};

/// A binding of every variable of a pattern to an e-class (kUnbound until bound).
using Subst = std::vector<ClassId>;
inline constexpr ClassId kUnbound = std::numeric_limits<ClassId>::max();

/// One match: the class the pattern's root matched, and the variables' classes.
struct Match {
  ClassId root;
  Subst subst;
};

/// Every way `pattern` matches the class `c` (the e-graph must be clean: see rebuild()).
std::vector<Subst> match_class(const EGraph& g, const Pattern& pattern, ClassId c);
/// Every match of `pattern` in the e-graph.
std::vector<Match> search(const EGraph& g, const Pattern& pattern);

/// Adds the pattern's term under `subst` (and `payloads` for payload variables; a node whose
/// payload is neither fixed nor a variable gets 0) and returns the root's node id. `type_of`
/// gives the type of each new node from the node itself (its children are canonical classes).
ClassId instantiate(EGraph& g, const Pattern& pattern, std::span<const ClassId> subst,
                    const std::function<TypeId(const ENode&)>& type_of,
                    std::span<const uint32_t> payloads = {});
/// The node id of the pattern's term under `subst` if the e-graph holds every node of it
/// (it may be unclean), else nothing; changes nothing.
///
///   Pattern sum;
///   sum.op(kAdd, {sum.var(0), sum.var(1)});
///   instantiate_existing(g, sum, std::vector<ClassId>{a, b});  // the id of a + b, if held
std::optional<ClassId> instantiate_existing(const EGraph& g, const Pattern& pattern,
                                            std::span<const ClassId> subst,
                                            std::span<const uint32_t> payloads = {});

}  // namespace scalify::egraph
