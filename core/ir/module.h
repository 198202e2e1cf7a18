// The graph IR: a Module holds Computations, which hold Instructions in text order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/attributes.h"
#include "ir/metadata.h"
#include "ir/opcode.h"
#include "ir/type.h"
#include "support/diagnostic.h"

namespace scalify::ir {

/// Index of an instruction within its computation.
using InstrId = int32_t;
/// Index of a computation within its module.
using CompId = int32_t;

/// One HLO instruction: `%add.3 = f32[8]{0} add(%a, %b), metadata={…}`.
struct Instruction {
  std::string name;  ///< without the leading '%'
  Opcode opcode = Opcode::kParameter;
  /// For the async forms spelled `call-start`, `custom-call-done`, …: the wrapped opcode
  /// (opcode is then kAsyncStart, kAsyncUpdate or kAsyncDone).
  std::optional<Opcode> async_wrapped;
  Type type;
  std::vector<InstrId> operands;
  std::vector<Attribute> attrs;  ///< in text order, metadata excluded
  Metadata metadata;
  std::string literal;            ///< constant: the literal text between the parentheses
  int64_t parameter_number = -1;  ///< parameter: its number
  std::vector<CompId> called;     ///< every computation named by an attribute, in order
  SourcePos pos;                  ///< where the instruction starts (at ROOT if written)

  /// The attribute `key`, or nullptr.
  const Attribute* attr(std::string_view key) const;
  /// The value of `key` if it holds a T, else nullptr:  `instr.get<DimList>("dimensions")`.
  template <class T>
  const T* get(std::string_view key) const {
    const Attribute* a = attr(key);
    return a ? std::get_if<T>(&a->value) : nullptr;
  }
  /// The opcode as written: "add", or "call-start" for an async-wrapped call.
  std::string opcode_text() const;
  /// `dimensions={…}` etc. as a list; empty when absent.
  const DimList& dims_attr(std::string_view key) const;
  const Sharding* sharding() const {
    const auto* boxed = get<Boxed<Sharding>>("sharding");
    return boxed ? &**boxed : nullptr;
  }
  const ReplicaGroups* replica_groups() const { return get<ReplicaGroups>("replica_groups"); }
  /// The groups a collective communicates in: its `replica_groups`, or none (every device, in
  /// XLA's reading) when it names none.
  const ReplicaGroups& replica_groups_or_all() const {
    static const ReplicaGroups all;
    const ReplicaGroups* groups = replica_groups();
    return groups ? *groups : all;
  }
  /// Equal by value, ignoring source positions.
  friend bool operator==(const Instruction& a, const Instruction& b);
};

/// A computation: `%name (p0: f32[]) -> f32[] { … }`. The ENTRY computation is the program.
class Computation {
 public:
  std::string name;
  bool is_entry = false;
  std::vector<Instruction> instructions;  ///< in text order; add through add(), which indexes names
  InstrId root = -1;
  std::vector<Attribute> attrs;  ///< e.g. `execution_thread="main"` after the signature
  SourcePos pos;

  /// Parameters ordered by parameter number (a gap is -1).
  std::vector<InstrId> parameters() const;
  /// The instruction named `name` (without '%'), if any.
  std::optional<InstrId> find(std::string_view name) const;
  /// Adds an instruction, indexing its name; returns its id, or nullopt if the name is taken.
  std::optional<InstrId> add(Instruction instr);
  /// Makes room for `n` instructions.
  void reserve(size_t n);
  const Instruction& operator[](InstrId id) const { return instructions[static_cast<size_t>(id)]; }
  Instruction& operator[](InstrId id) { return instructions[static_cast<size_t>(id)]; }
  size_t size() const { return instructions.size(); }
  /// A topological order (operands before users), stable with respect to text order;
  /// nullopt when the operands form a cycle.
  std::optional<std::vector<InstrId>> topological_order() const;

  friend bool operator==(const Computation& a, const Computation& b);

 private:
  /// Open addressing from names to ids: the names stay in the instructions, so adding one
  /// allocates nothing but (now and then) a bigger table. Size a power of two, at most half full.
  /// Each slot keeps high bits of its name's hash, so that a probe passing other names compares
  /// them without reading their instructions (a cache miss each, in a large program).
  struct Slot {
    InstrId id = -1;
    uint32_t tag = 0;
  };
  std::vector<Slot> slots_;
  /// The slot holding `wanted` (whose hash is `hash`), or the empty slot where it would go.
  size_t probe(std::string_view wanted, size_t hash) const;
  void rehash(size_t slot_count);
};

/// An HLO module: header attributes and computations.
///
///   auto m = scalify::hlo::read_module(text, "model.hlo");
///   const Computation& entry = m->entry();
///   for (InstrId p : entry.parameters()) std::cout << entry[p].type.to_string();
class Module {
 public:
  std::string name;
  std::vector<Attribute> attrs;  ///< header: input_output_alias, entry_computation_layout, …
  std::vector<Computation> computations;
  CompId entry_id = -1;

  const Computation& entry() const { return computations[static_cast<size_t>(entry_id)]; }
  Computation& entry() { return computations[static_cast<size_t>(entry_id)]; }
  std::optional<CompId> find_computation(std::string_view name) const;
  const Attribute* attr(std::string_view key) const;
  /// `num_partitions=N` from the header, or 1.
  int64_t num_partitions() const;
  /// `replica_count=N` from the header, or 1.
  int64_t replica_count() const;
  size_t instruction_count() const;

  /// Equal by value (names, types, operands, attributes, metadata), ignoring source positions.
  friend bool operator==(const Module& a, const Module& b);
};

/// The computation that attribute `key` of `instr` names (`body`, `condition`, `to_apply`, or
/// entry `index` of `branch_computations={…}`), when `m` has it.
///
///   // %w = (s32[], f32[4]) while(%init), condition=%cond, body=%body
///   m.computations[*called_computation(m, w, "body")].name == "body"
std::optional<CompId> called_computation(const Module& m, const Instruction& instr,
                                         std::string_view key, size_t index = 0);

/// A conditional's branches in selector order: `branch_computations={…}`, or the true then the
/// false computation. Empty when one is missing.
std::vector<CompId> branch_computations(const Module& m, const Instruction& instr);

/// The first instruction of `comp` whose effect leaves the program (an `outfeed`, a `send`, a
/// custom call marked `custom_call_has_side_effect=true` that returns no values, only a token
/// or nothing): the values it sends out are
/// behaviour no output shows, which a check of outputs alone cannot prove. nullopt when none.
///
///   // ENTRY { … o = token[] outfeed(t, tok), outfeed_shape=(f32[8]) … }
///   comp[*first_output_effect(comp)].name == "o"
std::optional<InstrId> first_output_effect(const Computation& comp);

/// Explains the first difference between two modules ("" if equal): for tests and round-trips.
std::string first_difference(const Module& a, const Module& b);

}  // namespace scalify::ir
