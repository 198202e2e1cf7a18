// One decoder layer: RMSNorm, grouped-query attention with RoPE, SwiGLU MLP, residuals; with
// the tensor-parallel split (column-parallel q/k/v/gate/up, row-parallel o/down), sequence
// parallelism around the norms, and the planted bugs where they go.
#include <cmath>
#include <limits>

#include "modelgen/llama_writer.h"

namespace scalify::modelgen {

std::string layer_scope(int64_t i) { return "model.layers." + std::to_string(i); }

HloValue LlamaWriter::layer(int64_t i, const HloValue& x) {
  const std::string scope = layer_scope(i);
  const bool local_stats = bug_at(BugKind::kNormLocalStats, i);
  HloValue out = attention(i, rms_norm(scope + ".input_layernorm", x, local_stats));
  at(scope, "x = residual + x");
  HloValue y = b_.binary("add", x, out);
  const HloValue normed = rms_norm(scope + ".post_attention_layernorm", y, false);
  out = o_.experts > 0 ? moe(i, normed) : mlp(i, normed);
  at(scope, "return residual + x");
  return b_.binary("add", y, out);
}

HloValue LlamaWriter::rms_norm(const std::string& scope, const HloValue& input, bool local_stats) {
  at(scope, "variance = x.pow(2).mean(-1, keepdim=True)");
  // norm-local-stats: the sequence-parallel all-gather moved in front of a norm that is then
  // computed on each rank's slice of the features, with local statistics.
  const HloValue x = local_stats ? my_chunk(b_.all_gather(input, 1), 2) : input;
  const HloValue sum = b_.reduce(b_.binary("multiply", x, x), 0.0, {2}, "add");
  const HloValue mean =
      b_.binary("multiply", sum, b_.splat(1.0 / static_cast<double>(m_.hidden), sum));
  at(scope, "x = x * torch.rsqrt(variance + self.eps)");
  const HloValue r = b_.unary("rsqrt", b_.binary("add", mean, b_.splat(m_.rms_eps, mean)));
  const HloValue normed = b_.binary("multiply", x, b_.broadcast(r, x.dims, {0, 1}));
  HloValue weight = param(scope + ".weight", DType::kF32, {m_.hidden}, -1);
  if (local_stats) weight = my_chunk(weight, 0);
  at(scope, "return self.weight * x");
  HloValue out = b_.binary("multiply", b_.broadcast(weight, x.dims, {2}), normed);
  if (local_stats) out = b_.all_gather(out, 2);
  return out;
}

HloValue LlamaWriter::attention(int64_t i, const HloValue& input) {
  const std::string scope = layer_scope(i) + ".self_attn";
  const int64_t hd = m_.head_dim, H = m_.hidden;
  HloValue x = input;
  if (sp_ && x.dim(1) != S_) {
    at(scope, "x = all_gather(x, dim=1)");
    if (bug_at(BugKind::kAllGatherWrongDim, i)) {
      // Gathered along the hidden dim, then viewed back to the shape the code expects.
      x = b_.reshape(b_.all_gather(x, 2), {B_, S_, H});
    } else {
      x = b_.all_gather(x, 1);
    }
  }
  at(scope, "b, s, _ = x.shape");
  const HloValue flat = b_.reshape(x, {T_, H});

  // Column-parallel projections; KV heads are replicated when tp exceeds them (kv-split: split
  // anyway, one padded head slot per rank).
  const bool kv_split = bug_at(BugKind::kKvSplit, i);
  const bool kv_replicated = kv_replicated_ && !kv_split;
  const int64_t kv_shard = kv_replicated ? -1 : 0;
  HloValue q = linear(scope + ".q_proj", "q = self.q_proj(x).view(", flat, {m_.heads * hd, H}, 0);
  const int64_t heads = q.dim(1) / hd;
  q = b_.reshape(q, {B_, S_, heads, hd});
  HloValue k = linear(scope + ".k_proj", "k = self.k_proj(x).view(", flat, {m_.kv_heads * hd, H},
                      kv_shard, hd);
  const int64_t kv_heads = k.dim(1) / hd;
  k = b_.reshape(k, {B_, S_, kv_heads, hd});
  HloValue v = linear(scope + ".v_proj", "v = self.v_proj(x).view(", flat, {m_.kv_heads * hd, H},
                      kv_shard, hd);
  v = b_.reshape(v, {B_, S_, kv_heads, hd});

  const auto [cos, sin] = rotary_tables(scope + ".rotary_emb", i);
  at(scope, "q = apply_rotary(q, cos, sin).transpose(1, 2)");
  q = b_.transpose(apply_rotary(scope, q, cos, sin), {0, 2, 1, 3});
  at(scope, "k = apply_rotary(k, cos, sin).transpose(1, 2)");
  k = b_.transpose(apply_rotary(scope, k, cos, sin), {0, 2, 1, 3});
  at(scope, "v = v.transpose(1, 2)");
  v = b_.transpose(v, {0, 2, 1, 3});
  if (o_.decode) {
    const std::vector<int64_t> cache{B_, m_.kv_heads, KV_ - 1, hd};
    const HloValue past_k = param(scope + ".past_key", DType::kF32, cache, kv_shard < 0 ? -1 : 1);
    const HloValue past_v = param(scope + ".past_value", DType::kF32, cache, kv_shard < 0 ? -1 : 1);
    at(scope, "k = torch.cat((cache[0], k), dim=2)");
    k = b_.concatenate({past_k, k}, 2);
    at(scope, "v = torch.cat((cache[1], v), dim=2)");
    v = b_.concatenate({past_v, v}, 2);
  }
  // Each rank's query heads meet their KV heads: repeated locally, or (replicated KV) repeated
  // to all query heads and this rank's chunk taken.
  const int64_t groups = (kv_replicated ? m_.heads : heads) / kv_heads;
  k = repeat_kv(scope, k, groups);
  v = repeat_kv(scope, v, groups);
  if (kv_replicated && tp_ > 1) {
    at(scope, "k, v = my_chunk(k, dim=1), my_chunk(v, dim=1)");
    k = my_chunk(k, 1);
    v = my_chunk(v, 1);
  }

  at(scope, "scores = torch.matmul(q, k.transpose(2, 3))");
  HloValue scores = b_.dot(q, k, {0, 1}, {0, 1}, {3}, {3});
  at(scope, "scores = scores * self.scale");
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  scores = b_.binary("multiply", scores, b_.splat(scale, scores));
  if (bug_at(BugKind::kDoubleScale, i)) {
    // The scale folded into the query projection's weights and applied here again.
    scores = b_.binary("multiply", scores, b_.splat(scale, scores));
  }
  at(scope, "scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)");
  const HloValue mask = b_.broadcast(mask_, scores.dims, mask_dims_);
  scores = b_.select(mask, scores, b_.splat(std::numeric_limits<float>::lowest(), scores));
  const HloValue probs = softmax(scope, scores);
  at(scope, "out = torch.matmul(probs, v)");
  HloValue out = b_.dot(probs, v, {0, 1}, {0, 1}, {3}, {2});  // [B, heads, S, hd]
  at(scope, "out = out.transpose(1, 2).reshape(b, s, -1)");
  out = b_.transpose(out, {0, 2, 1, 3});
  if (bug_at(BugKind::kReshapeWrongFactor, i)) {
    // (head_dim, heads) flattened: the rank's heads become the inner factor of the merged dim.
    out = b_.transpose(out, {0, 1, 3, 2});
  }
  out = b_.reshape(out, {T_, heads * hd});

  const std::string o_scope = scope + ".o_proj";
  HloValue o;
  if (bug_at(BugKind::kWrongShardDim, i)) {
    // o_proj split along its output dim (as if stored [in, out]) and contracted along it: the
    // shapes fit because o_proj is square.
    const HloValue w = param(o_scope + ".weight", DType::kF32, {H, m_.heads * hd}, 0);
    at(o_scope, "return self.o_proj(out)");
    o = b_.dot(out, w, {}, {}, {1}, {0});
  } else {
    o = linear(o_scope, "return self.o_proj(out)", out, {H, m_.heads * hd}, 1);
  }
  o = b_.reshape(o, {B_, S_, H});
  return o_proj_output(i, o_scope, o);
}

HloValue LlamaWriter::o_proj_output(int64_t i, const std::string& scope, const HloValue& o) {
  if (tp_ == 1) return o;
  at(scope, "return reduce_scatter(out, dim=1) if SP else all_reduce(out)");
  if (!sp_ && bug_at(BugKind::kAllGatherWrongDim, i)) {
    // The all-reduce as reduce-scatter + all-gather, gathering along the wrong dim and viewed
    // back to the expected shape.
    const HloValue part = b_.reduce_scatter(o, 2);
    return b_.reshape(b_.all_gather(part, 1), o.dims);
  }
  if (bug_at(BugKind::kReduceScatterForAllReduce, i)) {
    // Each rank keeps only its slice of the sum and tiles it to the full width.
    const HloValue part = b_.reduce_scatter(o, 2);
    return b_.concatenate(std::vector<HloValue>(static_cast<size_t>(tp_), part), 2);
  }
  return row_parallel_sum(o);
}

/// cos and sin of the rotary angles, [batch, seq, head_dim], per token as HF computes them (the
/// batch dim keeps the tables from standing for anything but the tokens' own positions).
std::pair<HloValue, HloValue> LlamaWriter::rotary_tables(const std::string& scope, int64_t i) {
  const int64_t half = m_.head_dim / 2;
  HloValue positions = positions_;
  if (sp_) {
    at(scope, "positions = my_chunk(positions, dim=1)");
    // rope-offset: the shard's positions counted from 0 on every rank.
    positions = bug_at(BugKind::kRopeOffset, i)
                    ? b_.broadcast(b_.iota(DType::kS32, {S_ / tp_}, 0), {B_, S_ / tp_}, {1})
                    : my_chunk(positions, 1);
  }
  at(scope, "inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))");
  std::vector<double> inv_freq;
  for (int64_t j = 0; j < half; ++j) {
    inv_freq.push_back(1.0 / std::pow(m_.rope_theta, static_cast<double>(2 * j) /
                                                         static_cast<double>(m_.head_dim)));
  }
  const HloValue inv = b_.constant_vector(inv_freq);
  at(scope, "freqs = positions.float()[:, :, None] * inv_freq[None, None, :]");
  const std::vector<int64_t> dims{B_, positions.dim(1), half};
  const HloValue p = b_.convert(positions, DType::kF32);
  const HloValue freqs =
      b_.binary("multiply", b_.broadcast(p, dims, {0, 1}), b_.broadcast(inv, dims, {2}));
  at(scope, "emb = torch.cat((freqs, freqs), dim=-1)");
  HloValue emb = b_.concatenate({freqs, freqs}, 2);
  if (sp_) {
    at(scope, "emb = all_gather(emb, dim=1)");
    emb = b_.all_gather(emb, 1);
  }
  at(scope, "return emb.cos(), emb.sin()");
  HloValue cos = b_.unary("cosine", emb);
  return {std::move(cos), b_.unary("sine", emb)};
}

HloValue LlamaWriter::apply_rotary(const std::string& scope, const HloValue& x, const HloValue& cos,
                                   const HloValue& sin) {
  const int64_t hd = m_.head_dim;
  at(scope, "x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]");
  const HloValue x1 = b_.slice(x, 3, 0, hd / 2);
  const HloValue x2 = b_.slice(x, 3, hd / 2, hd);
  at(scope, "return torch.cat((-x2, x1), dim=-1)");
  const HloValue rotated = b_.concatenate({b_.unary("negate", x2), x1}, 3);
  at(scope, "return x * cos[:, :, None, :] + rotate_half(x) * sin[:, :, None, :]");
  const HloValue c = b_.broadcast(cos, x.dims, {0, 1, 3});
  const HloValue s = b_.broadcast(sin, x.dims, {0, 1, 3});
  return b_.binary("add", b_.binary("multiply", x, c), b_.binary("multiply", rotated, s));
}

HloValue LlamaWriter::repeat_kv(const std::string& scope, const HloValue& x, int64_t groups) {
  if (groups == 1) return x;
  const int64_t n = x.dim(1), s = x.dim(2), d = x.dim(3);
  at(scope, "x = x[:, :, None, :, :].expand(b, n, groups, s, d)");
  const HloValue expanded = b_.broadcast(x, {B_, n, groups, s, d}, {0, 1, 3, 4});
  at(scope, "return x.reshape(b, n * groups, s, d)");
  return b_.reshape(expanded, {B_, n * groups, s, d});
}

HloValue LlamaWriter::softmax(const std::string& scope, const HloValue& scores) {
  at(scope, "probs = F.softmax(scores, dim=-1)");
  const std::vector<int64_t> rows{0, 1, 2};
  const HloValue max = b_.reduce(scores, -std::numeric_limits<double>::infinity(), {3}, "maximum");
  const HloValue shifted = b_.binary("subtract", scores, b_.broadcast(max, scores.dims, rows));
  const HloValue e = b_.unary("exponential", shifted);
  const HloValue sum = b_.reduce(e, 0.0, {3}, "add");
  return b_.binary("divide", e, b_.broadcast(sum, e.dims, rows));
}

HloValue LlamaWriter::mlp(int64_t i, const HloValue& input) {
  const std::string scope = layer_scope(i) + ".mlp";
  HloValue x = input;
  if (sp_ && x.dim(1) != S_) {
    at(scope, "x = all_gather(x, dim=1)");
    x = b_.all_gather(x, 1);
  }
  const std::string_view line =
      "return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))";
  at(scope, line);
  const HloValue flat = b_.reshape(x, {T_, m_.hidden});
  const HloValue gate = linear(scope + ".gate_proj", line, flat, {m_.ffn, m_.hidden}, 0);
  const HloValue up = linear(scope + ".up_proj", line, flat, {m_.ffn, m_.hidden}, 0);
  at(scope, line);
  const HloValue silu = b_.binary("multiply", gate, b_.unary("logistic", gate));
  const HloValue act = b_.binary("multiply", silu, up);
  HloValue down = linear(scope + ".down_proj", line, act, {m_.hidden, m_.ffn}, 1);
  down = b_.reshape(down, {B_, S_, m_.hidden});
  return down_proj_output(i, scope + ".down_proj", down);
}

HloValue LlamaWriter::down_proj_output(int64_t i, const std::string& scope, const HloValue& d) {
  if (tp_ == 1) return d;
  at(scope, "return reduce_scatter(out, dim=1) if SP else all_reduce(out)");
  if (bug_at(BugKind::kMissingAllReduce, i)) {
    // No collective: each rank goes on with its partial sum (with sequence parallelism, with the
    // slice of it that has the shape the reduce-scatter would have given).
    return sp_ ? b_.slice(d, 1, 0, S_ / tp_) : d;
  }
  return row_parallel_sum(d);
}

}  // namespace scalify::modelgen
