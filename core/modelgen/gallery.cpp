#include "modelgen/gallery.h"

namespace scalify::modelgen {

GenOptions GalleryExample::options(bool buggy) const {
  GenOptions o;
  o.model = *llama_preset("tiny");
  o.model.layers = 1;
  o.seq = 8;
  o.tp = tp;
  o.sp = sp;
  o.experts = experts;
  if (buggy) o.bug = PlantedBug{bug_kind, 0};
  return o;
}

const std::vector<GalleryExample>& gallery() {
  static const std::vector<GalleryExample> examples = {
      {"mlp-column-row", "Column-parallel then row-parallel MLP (Megatron)",
       "The MLP's gate and up projections are split by columns: each rank computes its own "
       "slice of the FFN features, and SiLU and the product are elementwise, so the slices stay "
       "slices (Shard on the feature dim). The down projection is split by rows, so it "
       "contracts the sharded dim: each rank holds a partial sum of the output (Partial(sum)). "
       "One all-reduce makes it whole (Rep) before the residual add.",
       "The all-reduce after down_proj is forgotten. The residual add then adds a replicated "
       "value to a partial sum, which counts it once per rank: the checker names that add, with "
       "its operands' layouts.",
       "model.layers.0", 2, false, BugKind::kMissingAllReduce},
      {"attention-heads", "Attention with its heads sharded",
       "The query, key and value projections are split by heads (columns), so each rank runs "
       "attention for its own heads: the scores, the softmax and the weighted sum are all "
       "per head, so no communication is needed inside. The heads are then merged into one dim "
       "and the output projection, split by rows, contracts them: a partial sum, all-reduced.",
       "The attention output is flattened as (head_dim, heads) instead of (heads, head_dim). "
       "The rank's heads become the inner factor of the merged dim, so its slice is no longer "
       "a block of the reference's: the checker stops at the reshape that moves the sharded "
       "factor.",
       "model.layers.0.self_attn", 2, false, BugKind::kReshapeWrongFactor},
      {"attention-scale-twice", "A bug every layout allows: the scale applied twice",
       "Heads are sharded as in attention-heads. Some bugs keep every layout right and change a "
       "value: the checker then follows the values, and names the first node that computes "
       "something the reference never does.",
       "The attention scale 1/sqrt(head_dim) is folded into the query weights and applied "
       "again in attention. Every node still has a layout; the second scale's multiply is the "
       "first that computes a value the reference does not.",
       "model.layers.0.self_attn", 2, false, BugKind::kDoubleScale},
      {"vocab-parallel-embedding", "Vocab-parallel embedding",
       "The embedding table is split by rows (the vocabulary): rank r holds rows r·V/tp to "
       "(r+1)·V/tp. Each rank compares the token ids with its own range of the vocabulary (a "
       "one-hot of ids that fall outside matches nothing), multiplies by its rows, and the "
       "partial embeddings are all-reduced.",
       "Every rank compares the ids with arange(V/tp), forgetting its offset: all ranks look up "
       "rank 0's range. The one-hot is then the same on every rank (replicated) while the table "
       "is a shard: the checker stops at the dot that combines them.",
       "model.embed_tokens", 2, false, BugKind::kEmbedNoOffset},
      {"sequence-parallel-rmsnorm", "Sequence-parallel RMSNorm",
       "With sequence parallelism the row-parallel outputs are reduce-scattered along the "
       "sequence instead of all-reduced: each rank holds whole feature vectors of its own "
       "tokens (Shard on the sequence dim), so RMSNorm, which normalises each token over its "
       "features, runs locally. The sequence is all-gathered again before the next "
       "column-parallel projection.",
       "The gather is moved before the norm along the features, so each rank normalises a "
       "slice of every token's features with the mean of squares of that slice only, never "
       "all-reduced: the checker stops where the partial mean of squares meets the epsilon.",
       "model.layers.0.input_layernorm", 2, true, BugKind::kNormLocalStats},
      {"gqa-replicated-kv", "Grouped-query attention with replicated KV heads",
       "The model has 8 query heads and 2 key/value heads. With 4 ranks the query heads split "
       "2 per rank, but 2 KV heads cannot split 4 ways: every rank computes both KV heads "
       "(replicated) and picks the one its query heads share.",
       "The KV projections are split like the queries anyway, so ranks pair their queries with "
       "the wrong KV head (or padding). Every layout still fits; the checker follows the values "
       "and names the node that pairs queries with the wrong head.",
       "model.layers.0.self_attn", 4, false, BugKind::kKvSplit},
      {"moe-expert-parallel", "Expert-parallel mixture of experts with all-to-all",
       "The MLP is a top-1 mixture of 4 experts, 2 on each rank. Each rank routes its own half "
       "of the sequence: the router picks one expert per token and masks the token for the "
       "others, giving [experts, batch, tokens, hidden] (Shard on the tokens). An all-to-all "
       "over the experts dim then hands each rank its experts' tokens from both ranks; moving "
       "the source rank behind the expert and merging it into the sequence makes them a Shard "
       "on the experts dim, which meets the expert weights (also split by experts) in a batched "
       "dot. A second all-to-all carries the outputs back to the tokens' ranks, where the gates "
       "weigh them and the sum over experts combines them; an all-gather puts the sequence "
       "back together.",
       "After the first all-to-all the received blocks are merged into the sequence straight "
       "away, without the permute that moves the source rank behind the expert: each expert "
       "now runs on a mix of its own and another expert's tokens. Every shape still fits; the "
       "checker follows the values through the exchange and names that reshape: what it "
       "computes is neither a reference value nor a reshard of one.",
       "model.layers.0.mlp", 2, false, BugKind::kMoeNoTranspose, 4},
  };
  return examples;
}

Expected<const GalleryExample*> find_example(std::string_view name) {
  std::string names;
  for (const GalleryExample& e : gallery()) {
    if (e.name == name) return &e;
    names += (names.empty() ? "" : ", ") + std::string(e.name);
  }
  return Diagnostic{"", {}, "unknown example '" + std::string(name) + "'; examples: " + names, ""};
}

std::string example_readme(const GalleryExample& e) {
  const std::string name(e.name);
  std::string s = "# " + std::string(e.title) + "\n\n";
  s += "`scalify gen example " + name +
       "`: a Llama decoder layer (the tiny preset: hidden 64, 8 "
       "query heads, 2 KV heads, 8 tokens) on " +
       std::to_string(e.tp) + " tensor-parallel ranks" + (e.sp ? ", sequence parallel" : "") +
       (e.experts > 0
            ? ", with a mixture of " + std::to_string(e.experts) + " experts in place of the MLP"
            : "") +
       ".\n\n";
  s += "## The sharding\n\n" + std::string(e.lesson) + "\n\n";
  s += "## The bug\n\n" + std::string(e.bug) + "\n\n";
  s += "## Try it\n\n```sh\n";
  s += "scalify check correct/ref.hlo correct/dist.hlo   # equivalent (exit 0)\n";
  s += "scalify check bug/ref.hlo bug/dist.hlo           # divergent (exit 1), in " +
       std::string(e.divergent_scope) + "\n";
  s += "scalify-studio bug/ref.hlo bug/dist.hlo          # the same, in the window\n```\n\n";
  s += "Each folder holds the reference program (`ref.hlo`, one device), the program every rank "
       "runs (`dist.hlo`) and `model.py`, the source their metadata points into.\n";
  return s;
}

Expected<GalleryPair> generate_example(const GalleryExample& example) {
  auto correct = generate_llama(example.options(false));
  if (!correct) return correct.error();
  auto buggy = generate_llama(example.options(true));
  if (!buggy) return buggy.error();
  return GalleryPair{std::move(*correct), std::move(*buggy), example_readme(example)};
}

}  // namespace scalify::modelgen
