// `scalify gen llama`: a Llama decoder as a pair of HLO modules, the single-device reference
// and the program every tensor-parallel rank runs (with an optional planted bug), plus the
// model.py their metadata points into.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "modelgen/llama_config.h"
#include "support/expected.h"

namespace scalify::modelgen {

/// How one distributed parameter relates to its reference parameter (same number and name).
struct ParameterInfo {
  std::string name;        ///< the HLO instruction name, e.g. "p7.8"
  std::string torch_name;  ///< "model.layers.0.self_attn.q_proj.weight"
  std::vector<int64_t> ref_dims, dist_dims;
  int64_t shard_dim = -1;  ///< -1: replicated; else split along this dim (padded if uneven)
  bool integer = false;    ///< token ids and positions (s32)
};

/// The generated pair.
struct GeneratedPair {
  std::string ref_hlo, dist_hlo, model_py;
  int64_t ref_instructions = 0, dist_instructions = 0;
  std::vector<ParameterInfo> parameters;  ///< in parameter order
};

/// Generates the pair for `options` (validated first: an error says what to change).
///
///   GenOptions o;
///   o.model = *llama_preset("tiny");
///   o.tp = 4;
///   o.bug = *parse_bug("missing-allreduce@1");
///   auto pair = generate_llama(o);
///   if (pair) write(dir / "dist.hlo", pair->dist_hlo);
Expected<GeneratedPair> generate_llama(const GenOptions& options);

}  // namespace scalify::modelgen
