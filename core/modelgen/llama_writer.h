// The Llama decoder written as HLO through HloBuilder, for the reference (one device) or for one
// tensor-parallel rank. One writer does both, so that the distributed program differs from the
// reference only where parallelism (or the planted bug) makes it differ.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "modelgen/hlo_builder.h"
#include "modelgen/llama_config.h"
#include "modelgen/llama_generator.h"

namespace scalify::modelgen {

/// The `op_name` scope of decoder layer i: "model.layers.3".
std::string layer_scope(int64_t i);

class LlamaWriter {
 public:
  /// `reference`: the single-device program (tp 1, no sequence parallelism, no bug).
  LlamaWriter(const GenOptions& options, bool reference);

  /// The whole module text.
  std::string write();
  int64_t instruction_count() const { return b_.instruction_count(); }
  const std::vector<ParameterInfo>& parameters() const { return params_; }

 private:
  // The model, top to bottom (llama_writer.cpp).
  HloValue embed(const HloValue& ids);
  void shared_inputs();
  HloValue lm_head(const HloValue& x);

  // One decoder layer (llama_layer.cpp).
  HloValue layer(int64_t i, const HloValue& x);
  HloValue rms_norm(const std::string& scope, const HloValue& x, bool local_stats);
  HloValue attention(int64_t i, const HloValue& x);
  /// cos and sin of the rotary angles of this step's tokens.
  std::pair<HloValue, HloValue> rotary_tables(const std::string& scope, int64_t i);
  HloValue apply_rotary(const std::string& scope, const HloValue& x, const HloValue& cos,
                        const HloValue& sin);
  HloValue repeat_kv(const std::string& scope, const HloValue& x, int64_t groups);
  HloValue softmax(const std::string& scope, const HloValue& scores);
  HloValue mlp(int64_t i, const HloValue& x);
  /// The mixture of experts that replaces the MLP with --experts (llama_moe.cpp).
  HloValue moe(int64_t i, const HloValue& x);
  HloValue o_proj_output(int64_t i, const std::string& scope, const HloValue& out);
  HloValue down_proj_output(int64_t i, const std::string& scope, const HloValue& out);

  // Parallel building blocks.
  /// A weight or input: `shard_dim` -1 replicated, else split tp ways in whole blocks of
  /// `block` entries (a head's rows), padded at the end when uneven.
  HloValue param(std::string_view torch_name, DType dtype, std::vector<int64_t> dims,
                 int64_t shard_dim, int64_t block = 1);
  /// `x @ W.T` for a weight W of `dims` split along `shard_dim` (as param()).
  HloValue linear(const std::string& scope, std::string_view snippet, const HloValue& x,
                  std::vector<int64_t> dims, int64_t shard_dim, int64_t block = 1);
  /// This rank's chunk of a replicated value along `dim` (dynamic-slice by partition-id).
  HloValue my_chunk(const HloValue& x, int64_t dim);
  /// The all-reduce (or, with sequence parallelism, reduce-scatter) after a row-parallel linear.
  HloValue row_parallel_sum(const HloValue& x);
  HloValue gather_sequence(const HloValue& x);

  void at(const std::string& scope, std::string_view snippet);
  bool bug_at(BugKind kind, int64_t layer) const;

  const GenOptions& o_;
  const LlamaConfig& m_;
  int64_t tp_ = 1;
  bool sp_ = false;
  std::optional<PlantedBug> bug_;
  HloBuilder b_;
  std::vector<ParameterInfo> params_;

  // Sizes: batch, tokens per sequence this step, tokens attended, tokens in all.
  int64_t B_ = 1, S_ = 1, KV_ = 1, T_ = 1;
  bool kv_replicated_ = false;  ///< tp exceeds the KV heads: every rank computes all of them
  HloValue positions_;          ///< s32[B, S]: the positions of this step's tokens
  /// Which keys each query may attend: pred[S, KV] (prefill, causal) or pred[B, KV] (decode),
  /// and the dims of the scores [B, heads, S, KV] they stand for.
  HloValue mask_;
  std::vector<int64_t> mask_dims_;
};

}  // namespace scalify::modelgen
