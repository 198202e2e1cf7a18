#include "modelgen/planted_bugs.h"

#include <charconv>

namespace scalify::modelgen {

const std::vector<BugInfo>& bug_catalogue() {
  static const std::vector<BugInfo> kBugs = {
      {BugKind::kMissingAllReduce, "missing-allreduce", "",
       "a row-parallel linear (mlp.down_proj) whose output is never all-reduced (with --sp: "
       "the reduce-scatter replaced by a slice of the rank's partial sum, out[:, :s // TP])"},
      {BugKind::kAllGatherWrongDim, "allgather-wrong-dim", "",
       "an all-gather along the hidden dim instead of the sequence dim, viewed back to the "
       "expected shape (the o_proj all-reduce written as reduce-scatter + all-gather; with --sp "
       "the all-gather before attention)"},
      {BugKind::kWrongShardDim, "wrong-shard-dim", "",
       "o_proj's weight split along its output dim (a loader that takes [out, in] for [in, out]) "
       "and contracted along it; the shapes fit because o_proj is square"},
      {BugKind::kDoubleScale, "double-scale", "",
       "the attention scale 1/sqrt(head_dim) applied twice (folded into the weights and applied "
       "in attention again)"},
      {BugKind::kRopeOffset, "rope-offset", "--sp",
       "RoPE positions of a sequence shard counted from 0 on every rank (arange(local_seq) "
       "instead of offsetting by rank × local_seq)"},
      {BugKind::kKvSplit, "kv-split", "--tp above the KV heads",
       "KV projections split column-parallel like the queries though tp exceeds the KV heads: "
       "ranks pair their queries with the wrong (or a padding) KV head instead of a replica"},
      {BugKind::kNormLocalStats, "norm-local-stats", "--sp",
       "RMSNorm computed on each rank's slice of the features (the sequence-parallel gather "
       "moved before the norm) with the local mean of squares, never all-reduced"},
      {BugKind::kReduceScatterForAllReduce, "reducescatter-for-allreduce", "no --sp",
       "a reduce-scatter after o_proj where the next op needs the whole sum (half of sequence "
       "parallelism switched on); the slice is tiled back to the full width"},
      {BugKind::kReshapeWrongFactor, "reshape-wrong-factor", "",
       "the attention output flattened as (head_dim, heads) instead of (heads, head_dim): the "
       "rank's heads become the inner factor of the merged dim and no longer meet its o_proj "
       "columns"},
      {BugKind::kEmbedNoOffset, "embed-no-offset", "",
       "the vocab-parallel embedding compares the ids with arange(vocab // TP) on every rank, "
       "forgetting the rank's offset: every rank looks up rank 0's rows (the layer is ignored)"},
      {BugKind::kMoeNoTranspose, "moe-no-transpose", "--experts",
       "the tokens an expert-parallel MoE receives by all-to-all merged straight into the "
       "sequence, without first moving the source rank behind the expert (a missing permute): "
       "each expert runs on a mix of its own and another expert's tokens"},
  };
  return kBugs;
}

const BugInfo& bug_info(BugKind kind) {
  for (const BugInfo& b : bug_catalogue()) {
    if (b.kind == kind) return b;
  }
  return bug_catalogue().front();
}

std::string bug_kind_list() {
  std::string s;
  for (const BugInfo& b : bug_catalogue()) s += (s.empty() ? "" : ", ") + std::string(b.name);
  return s;
}

Expected<PlantedBug> parse_bug(std::string_view text) {
  auto fail = [&](std::string message) {
    return Diagnostic{"--bug", {}, std::move(message) + "; kinds: " + bug_kind_list(), {}};
  };
  const size_t at = text.find('@');
  const std::string_view name = text.substr(0, at);
  PlantedBug bug;
  bool found = false;
  for (const BugInfo& b : bug_catalogue()) {
    if (b.name == name) {
      bug.kind = b.kind;
      found = true;
    }
  }
  if (!found) return fail("unknown bug kind '" + std::string(name) + "'");
  if (at != std::string_view::npos) {
    const std::string_view layer = text.substr(at + 1);
    const auto [end, ec] = std::from_chars(layer.data(), layer.data() + layer.size(), bug.layer);
    if (layer.empty() || ec != std::errc() || end != layer.data() + layer.size() || bug.layer < 0) {
      return fail("'" + std::string(layer) + "' is not a layer number (KIND@LAYER, from 0)");
    }
  }
  return bug;
}

}  // namespace scalify::modelgen
