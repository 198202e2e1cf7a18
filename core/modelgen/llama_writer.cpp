// The model around the layers: inputs, the vocab-parallel embedding, the final norm and the
// vocab-parallel head; and the parallel building blocks every part uses.
#include "modelgen/llama_writer.h"

#include "modelgen/model_source.h"

namespace scalify::modelgen {

namespace {

std::string device_list(int64_t tp) {
  std::string s;
  for (int64_t d = 0; d < tp; ++d) s += (d ? "," : "") + std::to_string(d);
  return s;
}

}  // namespace

LlamaWriter::LlamaWriter(const GenOptions& options, bool reference)
    : o_(options),
      m_(options.model),
      tp_(reference ? 1 : options.tp),
      sp_(!reference && options.sp && options.tp > 1),
      bug_(reference ? std::nullopt : options.bug),
      b_("SyncTensorsGraph.llama_" + options.model.name, reference ? 1 : options.tp) {
  B_ = options.batch;
  S_ = options.decode ? 1 : options.seq;
  KV_ = options.decode ? options.seq + 1 : options.seq;
  T_ = B_ * S_;
  kv_replicated_ = tp_ > m_.kv_heads;
}

void LlamaWriter::at(const std::string& scope, std::string_view snippet) {
  b_.at({scope, model_line(snippet), {}});
}

bool LlamaWriter::bug_at(BugKind kind, int64_t layer) const {
  return bug_ && bug_->kind == kind && bug_->layer == layer;
}

std::string LlamaWriter::write() {
  at("model", "def forward(self, input_ids, position_ids=None, caches=None):");
  const HloValue ids = param("input_ids", DType::kS32, {B_, S_}, -1);
  if (o_.decode) positions_ = param("position_ids", DType::kS32, {B_, 1}, -1);
  shared_inputs();
  HloValue x = embed(ids);
  for (int64_t i = 0; i < m_.layers; ++i) x = layer(i, x);
  return b_.finish({lm_head(x)});
}

/// The positions of this step's tokens and the attention mask, shared by every layer.
void LlamaWriter::shared_inputs() {
  if (!o_.decode) {
    at("model", "steps = torch.arange(s)");
    const HloValue steps = b_.iota(DType::kS32, {S_}, 0);
    at("model", "positions = steps[None, :].expand(b, s)");
    positions_ = b_.broadcast(steps, {B_, S_}, {1});
    at("model", "mask = steps[:, None] >= steps[None, :]");
    const HloValue rows = b_.broadcast(steps, {S_, S_}, {0});
    const HloValue cols = b_.broadcast(steps, {S_, S_}, {1});
    mask_ = b_.compare(rows, cols, "GE");
    mask_dims_ = {2, 3};
    return;
  }
  const int64_t cached = KV_ - 1;
  at("model", "past = torch.arange(caches[0][0].shape[2])[None, :] < position_ids");
  const HloValue slots = b_.iota(DType::kS32, {B_, cached}, 1);
  const HloValue limit = b_.broadcast(b_.reshape(positions_, {B_}), {B_, cached}, {0});
  const HloValue past = b_.compare(slots, limit, "LT");
  at("model", "mask = torch.cat((past, torch.ones(b, 1, dtype=torch.bool)), dim=1)");
  const HloValue self = b_.broadcast(b_.constant(DType::kPred, 1), {B_, 1}, {});
  mask_ = b_.concatenate({past, self}, 1);
  mask_dims_ = {0, 3};
}

/// Vocab-parallel embedding as a one-hot product: each rank compares the ids with its own
/// slice of the vocabulary (ids outside it match nothing) and the partial rows are summed.
HloValue LlamaWriter::embed(const HloValue& ids) {
  const std::string scope = "model.embed_tokens";
  at(scope, "ids = my_chunk(torch.arange(self.vocab), dim=0)");
  HloValue vocab_ids = b_.iota(DType::kS32, {m_.vocab}, 0);
  if (tp_ > 1) {
    vocab_ids = my_chunk(vocab_ids, 0);
    // The planted bug: arange(rows) on every rank, the rank's offset forgotten.
    if (bug_ && bug_->kind == BugKind::kEmbedNoOffset) {
      vocab_ids = b_.iota(DType::kS32, vocab_ids.dims, 0);
    }
  }
  const int64_t rows = vocab_ids.dim(0);
  at(scope, "one_hot = (input_ids.reshape(-1, 1) == ids).float()");
  const HloValue flat = b_.reshape(ids, {T_});
  const HloValue eq = b_.compare(b_.broadcast(flat, {T_, rows}, {0}),
                                 b_.broadcast(vocab_ids, {T_, rows}, {1}), "EQ");
  const HloValue one_hot = b_.convert(eq, DType::kF32);
  const HloValue weight = param(scope + ".weight", DType::kF32, {m_.vocab, m_.hidden}, 0);
  at(scope, "out = (one_hot @ self.weight).view(*input_ids.shape, -1)");
  HloValue out = b_.dot(one_hot, weight, {}, {}, {1}, {0});
  out = b_.reshape(out, {B_, S_, m_.hidden});
  if (tp_ == 1) return out;
  at(scope, "return reduce_scatter(out, dim=1) if SP else all_reduce(out)");
  return row_parallel_sum(out);
}

/// The final norm and the vocab-parallel head; the logits are gathered along the vocabulary so
/// that the output has the reference's shape.
HloValue LlamaWriter::lm_head(const HloValue& x) {
  HloValue h = rms_norm("model.norm", x, false);
  if (sp_) {
    at("model", "x = all_gather(x, dim=1)  # the whole sequence");
    h = b_.all_gather(h, 1);
  }
  at("lm_head", "logits = self.lm_head(x)");
  const HloValue flat = b_.reshape(h, {T_, m_.hidden});
  HloValue logits = linear("lm_head", "logits = self.lm_head(x)", flat, {m_.vocab, m_.hidden}, 0);
  logits = b_.reshape(logits, {B_, S_, logits.dim(1)});
  if (tp_ == 1) return logits;
  at("lm_head", "return all_gather(logits, dim=-1)");
  return b_.all_gather(logits, 2);
}

HloValue LlamaWriter::param(std::string_view torch_name, DType dtype, std::vector<int64_t> dims,
                            int64_t shard_dim, int64_t block) {
  ParameterInfo info;
  info.torch_name = std::string(torch_name);
  info.ref_dims = dims;
  info.integer = dtype != DType::kF32;
  std::string sharding;
  if (tp_ > 1) {
    sharding = "{replicated}";
    if (shard_dim >= 0) {
      int64_t& d = dims[static_cast<size_t>(shard_dim)];
      const int64_t blocks = d / block;
      d = (blocks + tp_ - 1) / tp_ * block;  // uneven splits are padded at the end
      std::vector<int64_t> tiles(dims.size(), 1);
      tiles[static_cast<size_t>(shard_dim)] = tp_;
      sharding = "{devices=[";
      for (size_t i = 0; i < tiles.size(); ++i)
        sharding += (i ? "," : "") + std::to_string(tiles[i]);
      sharding += "]" + device_list(tp_) + "}";
    }
  }
  info.dist_dims = dims;
  info.shard_dim = tp_ > 1 ? shard_dim : -1;
  HloValue v = b_.parameter(dtype, std::move(dims), torch_name, sharding);
  info.name = v.name;
  params_.push_back(std::move(info));
  return v;
}

HloValue LlamaWriter::linear(const std::string& scope, std::string_view snippet, const HloValue& x,
                             std::vector<int64_t> dims, int64_t shard_dim, int64_t block) {
  at(scope, snippet);
  const HloValue weight = param(scope + ".weight", DType::kF32, std::move(dims), shard_dim, block);
  return b_.dot(x, weight, {}, {}, {1}, {1});
}

HloValue LlamaWriter::my_chunk(const HloValue& x, int64_t dim) {
  const SourceSite site = b_.site();
  at(site.scope, "return x.chunk(TP, dim=dim)[rank()]");
  const int64_t size = x.dim(static_cast<size_t>(dim)) / tp_;
  const HloValue rank = b_.convert(b_.partition_id(), DType::kS32);
  const HloValue offset = b_.binary("multiply", rank, b_.constant(DType::kS32, size));
  std::vector<HloValue> offsets;
  if (x.rank() > 1) {
    const HloValue zero = b_.constant(DType::kS32, 0);
    offsets.assign(static_cast<size_t>(x.rank()), zero);
  }
  offsets.resize(static_cast<size_t>(x.rank()));
  offsets[static_cast<size_t>(dim)] = offset;
  std::vector<int64_t> sizes = x.dims;
  sizes[static_cast<size_t>(dim)] = size;
  HloValue out = b_.dynamic_slice(x, offsets, std::move(sizes));
  b_.at(site);
  return out;
}

HloValue LlamaWriter::row_parallel_sum(const HloValue& x) {
  return sp_ ? b_.reduce_scatter(x, 1) : b_.all_reduce(x);
}

HloValue LlamaWriter::gather_sequence(const HloValue& x) {
  return sp_ && x.dim(1) != S_ ? b_.all_gather(x, 1) : x;
}

}  // namespace scalify::modelgen
