#include "ir/summary.h"

namespace scalify::ir {

namespace {

bool is_async_done(Opcode op) {
  return op == Opcode::kAllGatherDone || op == Opcode::kAllReduceDone ||
         op == Opcode::kCollectivePermuteDone;
}

bool has_reduction(Opcode op) {
  return op == Opcode::kAllReduce || op == Opcode::kAllReduceStart || op == Opcode::kReduceScatter;
}

/// The root opcode of the computation named by `to_apply` (or the first called one).
std::optional<Opcode> reduction_root(const Module& module, const Instruction& instr) {
  std::optional<CompId> comp;
  if (const auto* refs = instr.get<ComputationRefs>("to_apply"); refs && !refs->names.empty()) {
    comp = module.find_computation(refs->names.front());
  }
  if (!comp && !instr.called.empty()) comp = instr.called.front();
  if (!comp || *comp < 0 || static_cast<size_t>(*comp) >= module.computations.size()) {
    return std::nullopt;
  }
  const Computation& c = module.computations[static_cast<size_t>(*comp)];
  if (c.root < 0 || static_cast<size_t>(c.root) >= c.size()) return std::nullopt;
  return c[c.root].opcode;
}

CollectiveSummary summarize_collective(const Module& module, const Computation& comp,
                                       const Instruction& instr) {
  CollectiveSummary c;
  c.name = instr.name;
  c.opcode = instr.opcode;
  c.computation = comp.name;
  c.type = instr.type.to_string(false);
  if (const Attribute* a = instr.attr("replica_groups")) {
    c.replica_groups_text = attr_value_to_string(a->value);
    if (const auto* groups = std::get_if<ReplicaGroups>(&a->value)) {
      c.replica_groups = groups->groups;
      c.iota = groups->iota.has_value();
    }
  }
  if (const auto* pairs = instr.get<SourceTargetPairs>("source_target_pairs")) {
    c.source_target_pairs = *pairs;
  }
  if (const auto* channel = instr.get<int64_t>("channel_id")) c.channel_id = *channel;
  if (const auto* global = instr.get<bool>("use_global_device_ids")) {
    c.use_global_device_ids = *global;
  }
  c.dimensions = instr.dims_attr("dimensions");
  if (has_reduction(instr.opcode)) c.reduction = reduction_root(module, instr);
  return c;
}

BoundaryValue boundary_value(const Instruction& instr, int64_t index) {
  BoundaryValue v{instr.name, index, instr.type.to_string(false), {}};
  if (const Sharding* s = instr.sharding()) v.sharding = s->to_string();
  return v;
}

void summarize_entry(const Computation& entry, ModuleSummary& s) {
  s.entry = entry.name;
  s.entry_instructions = entry.size();
  for (InstrId p : entry.parameters()) {
    if (p >= 0) s.parameters.push_back(boundary_value(entry[p], entry[p].parameter_number));
  }
  if (entry.root < 0 || static_cast<size_t>(entry.root) >= entry.size()) return;
  const Instruction& root = entry[entry.root];
  if (root.opcode != Opcode::kTuple) {
    s.outputs.push_back(boundary_value(root, 0));
    return;
  }
  // A root tuple is how frameworks return several values: list each element.
  for (size_t i = 0; i < root.operands.size(); ++i) {
    s.outputs.push_back(boundary_value(entry[root.operands[i]], static_cast<int64_t>(i)));
  }
}

double share(size_t part, size_t whole) {
  return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

double ModuleSummary::metadata_coverage() const { return share(with_source_site, instructions); }
double ModuleSummary::op_name_coverage() const { return share(with_op_name, instructions); }

ModuleSummary summarize(const Module& module) {
  ModuleSummary s;
  s.module = module.name;
  s.num_partitions = module.num_partitions();
  s.replica_count = module.replica_count();
  for (const Computation& comp : module.computations) {
    s.computations.push_back({comp.name, comp.is_entry, comp.size()});
    s.instructions += comp.size();
    for (const Instruction& instr : comp.instructions) {
      ++s.opcodes[std::string(opcode_name(instr.opcode))];
      if (instr.metadata.has_source_site()) ++s.with_source_site;
      if (!instr.metadata.op_name.empty()) ++s.with_op_name;
      if (instr.opcode == Opcode::kCustomCall) {
        const auto* target = instr.get<std::string>("custom_call_target");
        ++s.custom_calls[target ? *target : std::string("<no target>")];
      }
      if (is_collective(instr.opcode) && !is_async_done(instr.opcode)) {
        s.collectives.push_back(summarize_collective(module, comp, instr));
      }
    }
  }
  if (module.entry_id >= 0 && static_cast<size_t>(module.entry_id) < module.computations.size()) {
    summarize_entry(module.entry(), s);
  }
  return s;
}

}  // namespace scalify::ir
