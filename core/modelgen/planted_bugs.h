// The catalogue of planted bugs: realistic tensor- and sequence-parallel mistakes that
// `scalify gen llama --bug KIND[@LAYER]` writes into the distributed program only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/expected.h"

namespace scalify::modelgen {

enum class BugKind : uint8_t {
  kMissingAllReduce,           ///< no collective after the MLP's row-parallel down_proj
  kAllGatherWrongDim,          ///< an all-gather stacks the shards along the wrong dim
  kWrongShardDim,              ///< o_proj sharded along its output dim and contracted there
  kDoubleScale,                ///< the attention scale 1/sqrt(head_dim) applied twice
  kRopeOffset,                 ///< RoPE positions of a sequence shard not offset by the rank
  kKvSplit,                    ///< KV heads split over tp > kv_heads instead of replicated
  kNormLocalStats,             ///< RMSNorm on a shard of the features with local statistics
  kReduceScatterForAllReduce,  ///< reduce-scatter where the consumer needs the whole sum
  kReshapeWrongFactor,         ///< a reshape that makes the sharded heads an inner factor
  kEmbedNoOffset,              ///< the vocab-parallel embedding's rows not offset by the rank
  kMoeNoTranspose,             ///< MoE tokens received by all-to-all merged without a permute
};

/// One entry of the catalogue, for help texts and the README.
struct BugInfo {
  BugKind kind;
  std::string_view name;    ///< as written after --bug
  std::string_view needs;   ///< "" or the option it needs ("--sp", "tp > kv heads", …)
  std::string_view mimics;  ///< the real-world mistake, one sentence
};

/// Every bug kind, in a stable order.
const std::vector<BugInfo>& bug_catalogue();
const BugInfo& bug_info(BugKind kind);

/// A bug and the decoder layer it is planted in.
struct PlantedBug {
  BugKind kind = BugKind::kMissingAllReduce;
  int64_t layer = 0;
};

/// Reads `KIND` or `KIND@LAYER` (layer 0 when omitted). An unknown kind or a bad layer is an
/// error that lists the kinds.
///
///   parse_bug("double-scale@3")->layer == 3;
///   parse_bug("typo").error().message;   // "unknown bug kind 'typo'; kinds: missing-allreduce, …"
Expected<PlantedBug> parse_bug(std::string_view text);

/// "missing-allreduce, allgather-wrong-dim, …"
std::string bug_kind_list();

}  // namespace scalify::modelgen
