// Llama-family model configurations (the presets of `scalify gen llama`) and the options of one
// generated pair: batch, sequence, decode or prefill, tensor and sequence parallelism, a bug.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "modelgen/planted_bugs.h"
#include "support/diagnostic.h"
#include "support/expected.h"

namespace scalify::modelgen {

/// The shape of a Llama decoder: RMSNorm, RoPE, SwiGLU MLP, grouped-query attention.
struct LlamaConfig {
  std::string name;         ///< the preset's name ("tiny", "8b", …)
  int64_t layers = 0;       ///< decoder layers
  int64_t hidden = 0;       ///< model width
  int64_t heads = 0;        ///< query heads
  int64_t kv_heads = 0;     ///< key/value heads (GQA: fewer than `heads`)
  int64_t head_dim = 0;     ///< per head
  int64_t ffn = 0;          ///< the MLP's intermediate width
  int64_t vocab = 0;        ///< embedding rows and logits
  double rope_theta = 5e5;  ///< RoPE base (Llama 3)
  double rms_eps = 1e-5;    ///< RMSNorm epsilon
};

/// The preset names, in size order: tiny, 8b, 70b, 405b.
const std::vector<std::string_view>& llama_preset_names();

/// The configuration of a preset; an error naming the presets for an unknown one.
///
///   auto c = llama_preset("405b");   // 126 layers, hidden 16384, 128 heads, 8 KV heads, …
///   if (!c) std::cerr << c.error().message;
Expected<LlamaConfig> llama_preset(std::string_view name);

/// Everything that decides one generated (reference, distributed) pair.
struct GenOptions {
  LlamaConfig model;
  int64_t batch = 1;
  int64_t seq = 16;     ///< prefill: tokens per sequence; decode: KV-cache length
  bool decode = false;  ///< one token per sequence at `position_ids`, attending over the cache
  int64_t tp = 2;       ///< tensor-parallel ranks
  bool sp = false;      ///< sequence parallelism around the norms
  /// > 0: a top-1 mixture of this many experts in place of every MLP, the experts split over
  /// the ranks (expert parallel: each rank routes its own block of the sequence, and two
  /// all-to-alls carry the tokens to their experts' ranks and back).
  int64_t experts = 0;
  std::optional<PlantedBug> bug;
};

/// Checks that the options make a well-formed pair (sizes divide by tp, the bug fits the
/// options and the layer exists): nullopt when they do, else what to change.
///
///   GenOptions o;
///   o.model = *llama_preset("tiny");
///   o.tp = 3;
///   validate(o)->message;   // "--tp 3 does not divide the 8 query heads"
std::optional<Diagnostic> validate(const GenOptions& options);

}  // namespace scalify::modelgen
