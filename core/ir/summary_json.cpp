// to_json(ModuleSummary): the `scalify inspect --json` object. Every key is always present
// (absent values are null or empty), so consumers need no special cases.
#include "ir/summary.h"

namespace scalify::ir {

namespace {

json::Value ints(const std::vector<int64_t>& v) {
  json::Array a;
  a.reserve(v.size());
  for (int64_t x : v) a.emplace_back(x);
  return a;
}

json::Value counts(const std::map<std::string, size_t, std::less<>>& m) {
  json::Object o;
  for (const auto& [key, n] : m) o.set(key, n);
  return o;
}

json::Value boundary_json(const BoundaryValue& v, const char* index_key) {
  json::Object o{{"name", v.name}, {index_key, v.index}, {"type", v.type}};
  o.set("sharding", v.sharding.empty() ? json::Value() : json::Value(v.sharding));
  return o;
}

json::Value collective_json(const CollectiveSummary& c) {
  json::Array groups;
  for (const auto& g : c.replica_groups) groups.push_back(ints(g));
  json::Array pairs;
  for (const auto& [source, target] : c.source_target_pairs) {
    pairs.push_back(json::Array{source, target});
  }
  json::Object o{
      {"name", c.name},
      {"opcode", opcode_name(c.opcode)},
      {"computation", c.computation},
      {"type", c.type},
      {"replica_groups", std::move(groups)},
      {"iota", c.iota},
      {"replica_groups_text", c.replica_groups_text},
      {"source_target_pairs", std::move(pairs)},
      {"channel_id", c.channel_id ? json::Value(*c.channel_id) : json::Value()},
      {"use_global_device_ids", c.use_global_device_ids},
      {"dimensions", ints(c.dimensions)},
      {"reduction", c.reduction ? json::Value(opcode_name(*c.reduction)) : json::Value()},
  };
  return o;
}

}  // namespace

json::Value to_json(const ModuleSummary& s) {
  json::Array computation_list;
  for (const ComputationSummary& c : s.computations) {
    computation_list.push_back(
        json::Object{{"name", c.name}, {"entry", c.is_entry}, {"instructions", c.instructions}});
  }
  json::Array parameters, outputs, collectives;
  for (const BoundaryValue& p : s.parameters) parameters.push_back(boundary_json(p, "number"));
  for (const BoundaryValue& o : s.outputs) outputs.push_back(boundary_json(o, "index"));
  for (const CollectiveSummary& c : s.collectives) collectives.push_back(collective_json(c));

  json::Object o;
  o.set("module", s.module);
  o.set("entry", s.entry);
  o.set("computations", s.computations.size());
  o.set("instructions", s.instructions);
  o.set("entry_instructions", s.entry_instructions);
  o.set("num_partitions", s.num_partitions);
  o.set("replica_count", s.replica_count);
  o.set("opcodes", counts(s.opcodes));
  o.set("parameters", std::move(parameters));
  o.set("outputs", std::move(outputs));
  o.set("collectives", std::move(collectives));
  o.set("custom_calls", counts(s.custom_calls));
  o.set("metadata_coverage", s.metadata_coverage());
  o.set("op_name_coverage", s.op_name_coverage());
  o.set("computation_list", std::move(computation_list));
  return o;
}

}  // namespace scalify::ir
