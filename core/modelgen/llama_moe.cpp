// The expert-parallel mixture of experts (`--experts N`, model.py's MoE): top-1 routing, each
// rank's experts fed by an all-to-all that carries every token to its expert's rank, and a
// second all-to-all that carries the outputs back; the planted moe-no-transpose bug.
#include <limits>

#include "modelgen/llama_writer.h"

namespace scalify::modelgen {

HloValue LlamaWriter::moe(int64_t i, const HloValue& input) {
  const std::string scope = layer_scope(i) + ".mlp";
  const int64_t experts = o_.experts, local = experts / tp_, H = m_.hidden, F = m_.ffn;
  // Without sequence parallelism every rank holds the whole sequence and routes its block.
  const bool split = tp_ > 1 && !sp_;
  HloValue x = input;
  if (split) {
    at(scope, "x = my_chunk(x, dim=1)  # each rank routes its own block of the sequence");
    x = my_chunk(x, 1);
  }
  const int64_t b = x.dim(0), s = x.dim(1);

  at(scope + ".router", "logits = self.router(x)");
  const HloValue router = param(scope + ".router.weight", DType::kF32, {experts, H}, -1);
  const HloValue logits = b_.dot(x, router, {}, {}, {2}, {1});  // [b, s, experts]
  at(scope, "top = logits == logits.max(dim=-1, keepdim=True).values");
  const HloValue max =
      b_.broadcast(b_.reduce(logits, -std::numeric_limits<double>::infinity(), {2}, "maximum"),
                   logits.dims, {0, 1});
  const HloValue top = b_.compare(logits, max, "EQ");
  at(scope, "gates = torch.where(top, F.softmax(logits, dim=-1), 0.0).permute(2, 0, 1)");
  const HloValue e = b_.unary("exponential", b_.binary("subtract", logits, max));
  const HloValue probs =
      b_.binary("divide", e, b_.broadcast(b_.reduce(e, 0.0, {2}, "add"), e.dims, {0, 1}));
  const HloValue gates =
      b_.transpose(b_.select(top, probs, b_.splat(0.0, probs)), {2, 0, 1});  // [experts, b, s]

  at(scope, "routed = top.float().permute(2, 0, 1)[..., None] * x[None]  # [experts, b, s, h]");
  const std::vector<int64_t> routed_dims{experts, b, s, H};
  const HloValue mask = b_.transpose(b_.convert(top, DType::kF32), {2, 0, 1});
  HloValue routed = b_.binary("multiply", b_.broadcast(mask, routed_dims, {0, 1, 2}),
                              b_.broadcast(x, routed_dims, {1, 2, 3}));
  if (tp_ > 1) {
    at(scope, "routed = all_to_all(routed.reshape(TP, self.experts, b, s, h), dim=0)");
    routed = b_.all_to_all(b_.reshape(routed, {tp_, local, b, s, H}), 0);
    at(scope, "routed = routed.permute(1, 2, 0, 3, 4).reshape(self.experts, b, TP * s, h)");
    // moe-no-transpose: the source rank, in front, merged straight into the sequence.
    if (!bug_at(BugKind::kMoeNoTranspose, i)) routed = b_.transpose(routed, {1, 2, 0, 3, 4});
    routed = b_.reshape(routed, {local, b, tp_ * s, H});
  }

  // This rank's experts, batched: [local, b, seq, ·].
  const std::string_view gate_line =
      R"(gate = torch.einsum("ebsh,ehf->ebsf", routed, self.w_gate))";
  at(scope, gate_line);
  const HloValue w_gate = param(scope + ".w_gate", DType::kF32, {experts, H, F}, 0);
  const HloValue gate = b_.dot(routed, w_gate, {0}, {0}, {3}, {1});
  at(scope, R"(up = torch.einsum("ebsh,ehf->ebsf", routed, self.w_up))");
  const HloValue w_up = param(scope + ".w_up", DType::kF32, {experts, H, F}, 0);
  const HloValue up = b_.dot(routed, w_up, {0}, {0}, {3}, {1});
  at(scope, R"(out = torch.einsum("ebsf,efh->ebsh", F.silu(gate) * up, self.w_down))");
  const HloValue silu = b_.binary("multiply", gate, b_.unary("logistic", gate));
  const HloValue act = b_.binary("multiply", silu, up);
  const HloValue w_down = param(scope + ".w_down", DType::kF32, {experts, F, H}, 0);
  HloValue out = b_.dot(act, w_down, {0}, {0}, {3}, {1});
  if (tp_ > 1) {
    at(scope, "out = all_to_all(out.reshape(self.experts, b, TP, s, h), dim=2)");
    out = b_.all_to_all(b_.reshape(out, {local, b, tp_, s, H}), 2);
    at(scope, "out = out.permute(2, 0, 1, 3, 4).reshape(TP * self.experts, b, s, h)");
    out = b_.reshape(b_.transpose(out, {2, 0, 1, 3, 4}), {experts, b, s, H});
  }

  at(scope, "out = (gates[..., None] * out).sum(0)");
  const HloValue weighted = b_.binary("multiply", b_.broadcast(gates, out.dims, {0, 1, 2}), out);
  out = b_.reduce(weighted, 0.0, {0}, "add");  // [b, s, H]
  if (split) {
    at(scope, "return all_gather(out, dim=1) if TP > 1 and not SP else out");
    out = b_.all_gather(out, 1);
  }
  return out;
}

}  // namespace scalify::modelgen
