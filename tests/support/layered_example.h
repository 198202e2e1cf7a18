// A small layered model for the partitioning tests: every layer is a Megatron MLP block with a
// residual, `h' = h + (h · A) · B`, A split by columns and B by rows over tp=2 (an all-reduce
// after B), each op scoped `model.layers.K/…` as torch-xla writes it.
#pragma once

#include <string>

namespace scalify::test {

struct LayeredExample {
  int layers = 3;
  int drop_all_reduce_at = -1;  ///< the layer whose all-reduce is missing (a planted bug)
  bool rename = false;          ///< other instruction names (numbering), the same program
};

/// The reference (tp = 1) or the per-rank program (tp = 2) as HLO text.
inline std::string layered_hlo(const LayeredExample& e, int tp) {
  const int H = 8, F = 16;
  const std::string f = std::to_string(F / tp);
  const std::string h = std::to_string(H);
  const std::string pre = e.rename ? "v" : "x";
  std::string params = "(p0: f32[4," + h + "]";
  std::string body = "  p0 = f32[4," + h + "] parameter(0)\n";
  std::string prev = "p0";
  int param = 1;
  for (int k = 0; k < e.layers; ++k) {
    const std::string K = std::to_string(k);
    const std::string scope = "metadata={op_name=\"model.layers." + K + ".mlp/aten__mm\"}";
    const std::string a = "pa" + K, b = "pb" + K;
    const std::string n = pre + K + "_";
    body += "  " + a + " = f32[" + h + "," + f + "] parameter(" + std::to_string(param++) + ")\n";
    body += "  " + b + " = f32[" + f + "," + h + "] parameter(" + std::to_string(param++) + ")\n";
    params += ", " + a + ": f32[" + h + "," + f + "], " + b + ": f32[" + f + "," + h + "]";
    body += "  " + n + "up = f32[4," + f + "] dot(" + prev + ", " + a +
            "), lhs_contracting_dims={1}, rhs_contracting_dims={0}, " + scope + "\n";
    body += "  " + n + "down = f32[4," + h + "] dot(" + n + "up, " + b +
            "), lhs_contracting_dims={1}, rhs_contracting_dims={0}, " + scope + "\n";
    std::string summed = n + "down";
    if (tp > 1 && e.drop_all_reduce_at != k) {
      summed = n + "sum";
      body += "  " + summed + " = f32[4," + h + "] all-reduce(" + n +
              "down), replica_groups={{0,1}}, to_apply=add, channel_id=" + std::to_string(k + 1) +
              ", " + scope + "\n";
    }
    body += "  " + n + "out = f32[4," + h + "] add(" + prev + ", " + summed + "), " + scope + "\n";
    prev = n + "out";
  }
  body += "  ROOT r = (f32[4," + h + "]) tuple(" + prev + ")\n";
  return "HloModule layered, num_partitions=" + std::to_string(tp) +
         "\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n  ROOT s = f32[] add(x, "
         "y)\n}\n\nENTRY main " +
         params + ") -> (f32[4," + h + "]) {\n" + body + "}\n";
}

}  // namespace scalify::test
