// A module at a glance: sizes, opcodes, boundary values, collectives, custom calls, metadata.
// Backs `scalify inspect`; `to_json` is the `inspect --json` contract other tools rely on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ir/module.h"
#include "support/json.h"

namespace scalify::ir {

struct ComputationSummary {
  std::string name;
  bool is_entry = false;
  size_t instructions = 0;
};

/// An ENTRY parameter or output.
struct BoundaryValue {
  std::string name;      ///< instruction name without '%'
  int64_t index = -1;    ///< parameter number, or the output's position in the root tuple
  std::string type;      ///< HLO type text without layout, e.g. "f32[768,384]"
  std::string sharding;  ///< `sharding=` text, e.g. "{devices=[2,1]0,1}"; empty when absent
};

/// One collective instruction (any computation). Async `*-done` halves are not listed: their
/// `*-start` carries the groups.
struct CollectiveSummary {
  std::string name;
  Opcode opcode = Opcode::kAllReduce;
  std::string computation;
  std::string type;  ///< result type without layout
  /// Always materialised (iota form expanded); empty when the attribute is absent, which in
  /// HLO means "all devices in one group".
  std::vector<std::vector<int64_t>> replica_groups;
  bool iota = false;                ///< written in the compact `[2,4]<=[8]` form
  std::string replica_groups_text;  ///< as the printer writes it; empty when absent
  std::vector<std::pair<int64_t, int64_t>> source_target_pairs;  ///< collective-permute
  std::optional<int64_t> channel_id;
  bool use_global_device_ids = false;
  std::vector<int64_t> dimensions;  ///< `dimensions={…}` (all-gather, reduce-scatter, …)
  /// The root opcode of the reduction computation (all-reduce, reduce-scatter), e.g. kAdd.
  std::optional<Opcode> reduction;
};

/// Counts and listings for one module. Lists keep text order; count maps are sorted by name.
///
///   ModuleSummary s = summarize(*hlo::read_module_file("gpt2_decode_tp2.hlo"));
///   s.entry_instructions;              // instructions in the ENTRY computation
///   s.opcodes.at("all-reduce");        // all-reduces anywhere in the module
///   std::cout << to_json(s).dump(2);   // the `scalify inspect --json` object
struct ModuleSummary {
  std::string module;
  std::vector<ComputationSummary> computations;
  size_t instructions = 0;  ///< all computations
  std::string entry;        ///< the ENTRY computation's name
  size_t entry_instructions = 0;
  std::map<std::string, size_t, std::less<>> opcodes;  ///< opcode name -> count
  std::vector<BoundaryValue> parameters;               ///< by parameter number
  std::vector<BoundaryValue> outputs;
  std::vector<CollectiveSummary> collectives;
  std::map<std::string, size_t, std::less<>> custom_calls;  ///< target -> count
  size_t with_source_site = 0;  ///< instructions with metadata source_file and source_line
  size_t with_op_name = 0;      ///< instructions with metadata op_name
  int64_t num_partitions = 1;
  int64_t replica_count = 1;

  /// Share of instructions with a source site (0 when there are no instructions).
  double metadata_coverage() const;
  /// Share of instructions with an op_name (0 when there are no instructions).
  double op_name_coverage() const;
};

ModuleSummary summarize(const Module& module);

/// The `inspect --json` object. Keys (a contract): module, computations (count), instructions,
/// entry_instructions, opcodes {name: count}, parameters and outputs [{name, type, …}],
/// collectives [{name, opcode, replica_groups, …}], custom_calls {target: count},
/// metadata_coverage (0..1); plus entry, computation_list, op_name_coverage, num_partitions,
/// replica_count.
json::Value to_json(const ModuleSummary& summary);

}  // namespace scalify::ir
