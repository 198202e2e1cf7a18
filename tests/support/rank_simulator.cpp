#include "support/rank_simulator.h"

#include <algorithm>
#include <random>

#include "eval/evaluator.h"
#include "eval/mesh.h"
#include "hlo/reader.h"

namespace scalify::test {

using eval::Tensor;
using eval::Value;

Expected<std::vector<Value>> simulate_ranks(const ir::Module& module, int64_t ranks,
                                            const std::vector<std::vector<Value>>& args) {
  const ir::Computation& comp = module.entry();
  const auto order = comp.topological_order();
  if (!order) return Diagnostic{"<dist>", {}, "the entry computation has a cycle", {}};
  std::vector<std::vector<Value>> values(static_cast<size_t>(ranks),
                                         std::vector<Value>(comp.size()));
  for (ir::InstrId id : *order) {
    const ir::Instruction& instr = comp[id];
    auto operand = [&](int64_t r, size_t i) -> const Tensor& {
      return values[static_cast<size_t>(r)][static_cast<size_t>(instr.operands[i])].tensor();
    };
    const ir::DimList& dims = instr.dims_attr("dimensions");
    const ir::ReplicaGroups* groups = instr.replica_groups();
    for (int64_t r = 0; r < ranks; ++r) {
      // The ranks a collective combines rank r with, in group order, and r's place among them:
      // its replica group, or every rank when the groups are not written.
      std::vector<int64_t> group;
      for (const auto& g : groups ? groups->groups : std::vector<std::vector<int64_t>>{}) {
        if (std::find(g.begin(), g.end(), r) != g.end()) group = g;
      }
      if (group.empty()) {
        for (int64_t k = 0; k < ranks; ++k) group.push_back(k);
      }
      const auto place = std::find(group.begin(), group.end(), r) - group.begin();
      std::vector<Tensor> parts;  // the group's operands, for a collective
      for (int64_t k : group) {
        if (ir::is_collective(instr.opcode) && !instr.operands.empty()) {
          parts.push_back(operand(k, 0));
        }
      }
      Value& out = values[static_cast<size_t>(r)][static_cast<size_t>(id)];
      switch (instr.opcode) {
        case ir::Opcode::kParameter:
          out = args[static_cast<size_t>(r)][static_cast<size_t>(instr.parameter_number)];
          break;
        case ir::Opcode::kPartitionId:
          out = Tensor::scalar(static_cast<double>(r));
          break;
        case ir::Opcode::kAllReduce:
          out = eval::mesh::combine(parts, eval::mesh::Reduction::kSum);
          break;
        case ir::Opcode::kAllGather:
          out = eval::mesh::concatenate(parts, dims.at(0));
          break;
        case ir::Opcode::kAllToAll: {
          auto exchanged = eval::mesh::all_to_all(parts, dims.at(0), dims.at(0));
          if (!exchanged) return exchanged.error();
          out = (*exchanged)[static_cast<size_t>(place)];
          break;
        }
        case ir::Opcode::kCollectivePermute: {
          // Rank r receives the operand of the rank that sends to it; zeros when none does.
          const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs");
          Tensor received = operand(r, 0);
          std::fill(received.data.begin(), received.data.end(), 0.0);
          for (const auto& [from, to] : pairs ? *pairs : ir::SourceTargetPairs{}) {
            if (to == r && from >= 0 && from < ranks) received = operand(from, 0);
          }
          out = std::move(received);
          break;
        }
        case ir::Opcode::kReduceScatter: {
          const int64_t size = instr.type.dim(dims.at(0));
          out = eval::mesh::chunk(eval::mesh::combine(parts, eval::mesh::Reduction::kSum),
                                  dims.at(0), place * size, size);
          break;
        }
        default: {
          std::vector<Value> in;
          for (ir::InstrId o : instr.operands)
            in.push_back(values[static_cast<size_t>(r)][static_cast<size_t>(o)]);
          auto v = eval::evaluate_instruction(module, comp, instr, in);
          if (!v) return v.error();
          out = std::move(*v);
        }
      }
    }
  }
  std::vector<Value> results;
  for (int64_t r = 0; r < ranks; ++r)
    results.push_back(values[static_cast<size_t>(r)][static_cast<size_t>(comp.root)]);
  return results;
}

std::vector<Value> reference_arguments(const std::vector<modelgen::ParameterInfo>& params,
                                       int64_t vocab, int64_t position, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> weight(-0.5, 0.5);
  std::vector<Value> out;
  for (const modelgen::ParameterInfo& p : params) {
    Tensor t;
    t.dims = p.ref_dims;
    t.data.resize(static_cast<size_t>(t.element_count()));
    for (double& x : t.data) {
      if (p.torch_name == "position_ids") {
        x = static_cast<double>(position);
      } else if (p.integer) {
        x = static_cast<double>(rng() % static_cast<uint64_t>(vocab));
      } else if (p.torch_name.ends_with("layernorm.weight") ||
                 p.torch_name == "model.norm.weight") {
        x = 1.0 + weight(rng);
      } else {
        x = weight(rng);
      }
    }
    out.emplace_back(std::move(t));
  }
  return out;
}

std::vector<std::vector<Value>> shard_arguments(const std::vector<modelgen::ParameterInfo>& params,
                                                const std::vector<Value>& ref, int64_t ranks) {
  std::vector<std::vector<Value>> out(static_cast<size_t>(ranks));
  for (size_t i = 0; i < params.size(); ++i) {
    for (int64_t r = 0; r < ranks; ++r) {
      if (params[i].shard_dim < 0) {
        out[static_cast<size_t>(r)].push_back(ref[i]);
        continue;
      }
      const int64_t d = params[i].shard_dim;
      const int64_t size = params[i].dist_dims[static_cast<size_t>(d)];
      out[static_cast<size_t>(r)].emplace_back(
          eval::mesh::chunk(ref[i].tensor(), d, r * size, size));
    }
  }
  return out;
}

}  // namespace scalify::test
