// A Datalog rule compiled for the numeric check (datalog_check.h): its items as steps over the
// rule's variables, every collective lifted into its own step, each class variable placed on
// the distributed side (one value per rank) or the reference side (one value).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eval/mesh.h"
#include "rules/check_guards.h"
#include "rules/rule_ast.h"
#include "rules/tensor_term.h"
#include "support/expected.h"

namespace scalify::rules::check {

/// One item of the rule, ready to instantiate.
///   ?r = (add ?a ?b)                      kLocal: a term of ops that run on one rank (or on
///                                         the reference), `result` its class if named
///   ?r = (all-gather ?x :dimensions [0])  kCollective: between the ranks, over one variable
///   Shard(?x, ?X, 0, tp)                  kFact: ?x holds ?X in a layout
struct DatalogStep {
  enum class Kind : uint8_t { kLocal, kCollective, kFact };
  Kind kind = Kind::kLocal;
  bool head = false;
  std::string text;  ///< the item as written (a lifted collective: its term), for messages
  SourcePos pos;
  std::optional<uint32_t> result;  ///< kLocal, kCollective: the class variable it names
  std::vector<uint32_t> operands;  ///< kLocal, kCollective: the class variables it reads
  TNode term;  ///< kLocal; kCollective: the collective over one operand variable
  eval::mesh::Layout::Kind layout = eval::mesh::Layout::Kind::kRep;  ///< kFact
  uint32_t dist = 0, ref = 0;       ///< kFact: the distributed and the reference class variable
  std::optional<uint32_t> dim_var;  ///< kFact, Shard: the dim's attribute variable, or
  int64_t dim = 0;                  ///< its literal value
  std::optional<uint32_t> op_var;   ///< kFact, Partial: the op's attribute variable, or
  std::string op_word;              ///< its literal word
};

/// Where a class variable's values live.
enum class Side : uint8_t { kReference, kDistributed };

struct DatalogProgram {
  RuleVars vars;
  std::vector<DatalogStep> body, head;
  std::vector<Side> sides;          ///< per class variable
  std::vector<bool> in_body;        ///< per class variable: bound by the body
  std::string axis = "tp";          ///< the one mesh axis the rule's facts name
  std::vector<uint32_t> axis_vars;  ///< attribute variables standing for the axis
  Guards guards;
};

/// An item as written: `?r = (all-reduce ?x)`, `Rep(?r, ?X)`.
std::string item_text(const Item& item);

/// The collectives a Datalog rule may use, evaluated between the ranks.
bool is_collective(std::string_view op);

/// Compiles `rule`; an error (with its position) when it cannot be checked numerically: a
/// relation other than Rep, Shard and Partial with their documented columns, facts over more
/// than one mesh axis, a variable on both sides, a term the checker cannot type.
Expected<DatalogProgram> compile_datalog(const RuleFile& file, const Rule& rule);

}  // namespace scalify::rules::check
