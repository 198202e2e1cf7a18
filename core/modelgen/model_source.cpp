#include "modelgen/model_source.h"

#include <mutex>
#include <string>
#include <unordered_map>

namespace scalify::modelgen {

namespace {

constexpr std::string_view kModelPy = R"PY(
# model.py: a Llama decoder (RMSNorm, RoPE, SwiGLU, grouped-query attention) with Megatron-style
# tensor parallelism (TP ranks) and optional sequence parallelism (SP). `scalify gen llama` wrote
# ref.hlo (TP = 1) and dist.hlo (one rank's program) from it; every instruction's metadata
# (source_file="model.py" source_line=N) points at the line below that produced it.
import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

TP = dist.get_world_size() if dist.is_initialized() else 1
SP = False  # sequence parallel: the residual stream is split along the sequence between blocks


def rank():
    return dist.get_rank() if dist.is_initialized() else 0


def all_reduce(x):
    dist.all_reduce(x)
    return x


def all_gather(x, dim):
    parts = [torch.empty_like(x) for _ in range(TP)]
    dist.all_gather(parts, x.contiguous())
    return torch.cat(parts, dim=dim)


def reduce_scatter(x, dim):
    out = torch.empty_like(x.chunk(TP, dim=dim)[0])
    dist.reduce_scatter(out, list(x.chunk(TP, dim=dim)))
    return out


def my_chunk(x, dim):
    return x.chunk(TP, dim=dim)[rank()]


def all_to_all(x, dim):
    # Split `dim` into TP blocks, send block j to rank j, concatenate what arrives along `dim`.
    received = [torch.empty_like(p) for p in x.chunk(TP, dim=dim)]
    dist.all_to_all(received, list(x.chunk(TP, dim=dim)))
    return torch.cat(received, dim=dim)


class VocabParallelEmbedding(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.rows = vocab // TP
        self.weight = nn.Parameter(torch.empty(self.rows, hidden))
        self.vocab = vocab

    def forward(self, input_ids):
        ids = my_chunk(torch.arange(self.vocab), dim=0)
        one_hot = (input_ids.reshape(-1, 1) == ids).float()
        out = (one_hot @ self.weight).view(*input_ids.shape, -1)
        return reduce_scatter(out, dim=1) if SP else all_reduce(out)


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x


class ColumnParallelLinear(nn.Linear):
    def __init__(self, d_in, d_out):
        super().__init__(d_in, d_out // TP, bias=False)

    def forward(self, x):
        return F.linear(x, self.weight)


class RowParallelLinear(nn.Linear):
    def __init__(self, d_in, d_out):
        super().__init__(d_in // TP, d_out, bias=False)

    def forward(self, x):
        out = F.linear(x, self.weight)
        return reduce_scatter(out, dim=1) if SP else all_reduce(out)


def rotary_tables(positions, head_dim, theta):
    if SP:  # the tables of this rank's sequence shard, gathered below
        positions = my_chunk(positions, dim=1)
    inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2).float() / head_dim))
    freqs = positions.float()[:, :, None] * inv_freq[None, None, :]
    emb = torch.cat((freqs, freqs), dim=-1)
    if SP:
        emb = all_gather(emb, dim=1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def apply_rotary(x, cos, sin):
    return x * cos[:, :, None, :] + rotate_half(x) * sin[:, :, None, :]


def repeat_kv(x, groups):
    b, n, s, d = x.shape
    x = x[:, :, None, :, :].expand(b, n, groups, s, d)
    return x.reshape(b, n * groups, s, d)


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads, self.head_dim = cfg.heads // TP, cfg.head_dim
        # KV heads are split like the query heads while TP divides them, else replicated.
        self.kv_replicated = TP > cfg.kv_heads
        self.kv_heads = cfg.kv_heads if self.kv_replicated else cfg.kv_heads // TP
        self.groups = cfg.heads // cfg.kv_heads
        self.scale = cfg.head_dim**-0.5
        self.theta = cfg.rope_theta
        self.q_proj = ColumnParallelLinear(cfg.hidden, cfg.heads * cfg.head_dim)
        kv_width = cfg.kv_heads * cfg.head_dim * (TP if self.kv_replicated else 1)
        self.k_proj = ColumnParallelLinear(cfg.hidden, kv_width)
        self.v_proj = ColumnParallelLinear(cfg.hidden, kv_width)
        self.o_proj = RowParallelLinear(cfg.heads * cfg.head_dim, cfg.hidden)

    def forward(self, x, positions, mask, cache=None):
        if SP:
            x = all_gather(x, dim=1)
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.heads, self.head_dim)
        k = self.k_proj(x).view(b, s, self.kv_heads, self.head_dim)
        v = self.v_proj(x).view(b, s, self.kv_heads, self.head_dim)
        cos, sin = rotary_tables(positions, self.head_dim, self.theta)
        q = apply_rotary(q, cos, sin).transpose(1, 2)
        k = apply_rotary(k, cos, sin).transpose(1, 2)
        v = v.transpose(1, 2)
        if cache is not None:
            k = torch.cat((cache[0], k), dim=2)
            v = torch.cat((cache[1], v), dim=2)
        k = repeat_kv(k, self.groups)
        v = repeat_kv(v, self.groups)
        if self.kv_replicated:
            k, v = my_chunk(k, dim=1), my_chunk(v, dim=1)
        scores = torch.matmul(q, k.transpose(2, 3))
        scores = scores * self.scale
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        probs = F.softmax(scores, dim=-1)
        out = torch.matmul(probs, v)
        out = out.transpose(1, 2).reshape(b, s, -1)
        return self.o_proj(out)


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gate_proj = ColumnParallelLinear(cfg.hidden, cfg.ffn)
        self.up_proj = ColumnParallelLinear(cfg.hidden, cfg.ffn)
        self.down_proj = RowParallelLinear(cfg.ffn, cfg.hidden)

    def forward(self, x):
        if SP:
            x = all_gather(x, dim=1)
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class MoE(nn.Module):
    """Top-1 mixture of experts, expert parallel: each rank holds experts // TP experts and
    routes its own block of the sequence; all_to_all carries every expert its tokens from all
    ranks, and a second all_to_all carries the outputs back to the tokens' ranks."""

    def __init__(self, cfg):
        super().__init__()
        self.experts = cfg.experts // TP
        self.router = nn.Linear(cfg.hidden, cfg.experts, bias=False)
        self.w_gate = nn.Parameter(torch.empty(self.experts, cfg.hidden, cfg.ffn))
        self.w_up = nn.Parameter(torch.empty(self.experts, cfg.hidden, cfg.ffn))
        self.w_down = nn.Parameter(torch.empty(self.experts, cfg.ffn, cfg.hidden))

    def forward(self, x):
        if TP > 1 and not SP:
            x = my_chunk(x, dim=1)  # each rank routes its own block of the sequence
        b, s, h = x.shape
        logits = self.router(x)
        top = logits == logits.max(dim=-1, keepdim=True).values
        gates = torch.where(top, F.softmax(logits, dim=-1), 0.0).permute(2, 0, 1)
        routed = top.float().permute(2, 0, 1)[..., None] * x[None]  # [experts, b, s, h]
        if TP > 1:  # this rank's experts get their tokens from every rank, in sequence order
            routed = all_to_all(routed.reshape(TP, self.experts, b, s, h), dim=0)
            routed = routed.permute(1, 2, 0, 3, 4).reshape(self.experts, b, TP * s, h)
        gate = torch.einsum("ebsh,ehf->ebsf", routed, self.w_gate)
        up = torch.einsum("ebsh,ehf->ebsf", routed, self.w_up)
        out = torch.einsum("ebsf,efh->ebsh", F.silu(gate) * up, self.w_down)
        if TP > 1:  # the outputs go back to the tokens' ranks, in expert order
            out = all_to_all(out.reshape(self.experts, b, TP, s, h), dim=2)
            out = out.permute(2, 0, 1, 3, 4).reshape(TP * self.experts, b, s, h)
        out = (gates[..., None] * out).sum(0)
        return all_gather(out, dim=1) if TP > 1 and not SP else out


class DecoderLayer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.input_layernorm = RMSNorm(cfg.hidden, cfg.rms_eps)
        self.self_attn = Attention(cfg)
        self.post_attention_layernorm = RMSNorm(cfg.hidden, cfg.rms_eps)
        self.mlp = MoE(cfg) if cfg.experts else MLP(cfg)

    def forward(self, x, positions, mask, cache=None):
        residual = x
        x = self.self_attn(self.input_layernorm(x), positions, mask, cache)
        x = residual + x
        residual = x
        x = self.mlp(self.post_attention_layernorm(x))
        return residual + x


class LlamaModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed_tokens = VocabParallelEmbedding(cfg.vocab, cfg.hidden)
        self.layers = nn.ModuleList(DecoderLayer(cfg) for _ in range(cfg.layers))
        self.norm = RMSNorm(cfg.hidden, cfg.rms_eps)


class LlamaForCausalLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.model = LlamaModel(cfg)
        self.lm_head = ColumnParallelLinear(cfg.hidden, cfg.vocab)

    def forward(self, input_ids, position_ids=None, caches=None):
        b, s = input_ids.shape
        if position_ids is None:  # prefill: causal attention over the prompt
            steps = torch.arange(s)
            positions = steps[None, :].expand(b, s)
            mask = steps[:, None] >= steps[None, :]
        else:  # decode: one token per sequence at position_ids [b, 1], over its cache and itself
            positions = position_ids
            past = torch.arange(caches[0][0].shape[2])[None, :] < position_ids
            mask = torch.cat((past, torch.ones(b, 1, dtype=torch.bool)), dim=1)[:, None, None, :]
        x = self.model.embed_tokens(input_ids)
        for i, layer in enumerate(self.model.layers):
            x = layer(x, positions, mask, None if caches is None else caches[i])
        x = self.model.norm(x)
        if SP:
            x = all_gather(x, dim=1)  # the whole sequence for the vocab-parallel head
        logits = self.lm_head(x)
        return all_gather(logits, dim=-1)
)PY";

}  // namespace

std::string_view model_source() { return kModelPy.substr(1); }  // without the first newline

int64_t model_line(std::string_view snippet) {
  // Looked up for every emitted instruction: remember each snippet's line.
  static std::mutex mutex;
  static std::unordered_map<std::string, int64_t> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto [at, inserted] = cache.try_emplace(std::string(snippet), 0);
  if (!inserted) return at->second;
  const std::string_view text = model_source();
  const size_t pos = text.find(snippet);
  if (pos == std::string_view::npos) return 0;
  int64_t line = 1;
  for (size_t i = 0; i < pos; ++i) line += text[i] == '\n';
  at->second = line;
  return line;
}

}  // namespace scalify::modelgen
