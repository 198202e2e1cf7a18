// Tensor types as the e-graph's small type ids, and the type oracle that types the nodes
// rewrite rules create.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.h"
#include "egraph/vocabulary.h"
#include "ir/type.h"
#include "support/ids_hash.h"

namespace scalify::verify {

/// Interns ir::Types as TypeIds. Id 0 is a *number*: a scalar constant whose element type is
/// its context's (the bridge writes `multiply(x, broadcast(constant(2)))` as `(multiply x 2)`),
/// so that one number node serves every element type.
///
///   TypeTable t;
///   egraph::TypeId f = t.intern(ir::Type::array(ir::DType::kF32, {2, 3}));
///   t.type(f)->to_string() == "f32[2,3]";  t.type(TypeTable::kNumber) == std::nullopt;
class TypeTable {
 public:
  static constexpr egraph::TypeId kNumber = 0;
  /// Returned by the oracle for a node it cannot type: never equal to a real type, so a rule
  /// that builds such a node cannot merge it into a typed class.
  static constexpr egraph::TypeId kUntyped = 1;

  TypeTable();
  egraph::TypeId intern(const ir::Type& type);
  /// The type of an id; nullopt for kNumber and kUntyped.
  std::optional<ir::Type> type(egraph::TypeId id) const;
  /// How many ids are interned, kNumber and kUntyped included.
  size_t size() const { return types_.size(); }

  /// The type of `node` (canonical, in `g`) from its operands' types, as HLO would give it.
  /// A table types the nodes of one vocabulary (it remembers its answers by payload id).
  egraph::TypeId type_of(const egraph::ENode& node, const egraph::EGraph& g,
                         const egraph::Vocabulary& vocab);

 private:
  egraph::TypeId type_of_uncached(const egraph::ENode& node, const egraph::EGraph& g,
                                  const egraph::Vocabulary& vocab);

  std::vector<std::optional<ir::Type>> types_;
  std::unordered_map<std::string, egraph::TypeId> ids_;
  /// type_of's answers by all they depend on: the operator, the payload, and per operand its
  /// type and, for a number, whether it is an integer. Rules build many nodes alike.
  std::unordered_map<std::vector<uint32_t>, egraph::TypeId, IdsHash> typed_;
  std::vector<uint32_t> key_;  ///< reused, so that a lookup allocates nothing
};

}  // namespace scalify::verify
