// A dot of two operands that both hold blocks along one mesh axis, read as a dot batched over
// the blocks, of which each rank computes its own: tensor-parallel attention with one head per
// rank contracts the rank's head (a block of the hidden dim) for its scores, and multiplies its
// head's probabilities (a block of queries × heads) by its head's values (a block of the hidden
// dim), the head dim, of size 1 on the rank, dropped from its shapes. For a contraction the
// partial sum over the whole dim is true as well (propagation.cpp) but not what the reference
// computes; this reading is. See propagation_internal.h.
#include <algorithm>

#include "verify/propagation_internal.h"

namespace scalify::verify::detail {

namespace {

/// `dims` with dim `d` split into (n, dims[d] / n), n major.
std::vector<int64_t> split_dim(std::vector<int64_t> dims, int64_t d, int64_t n) {
  const auto at = static_cast<size_t>(d);
  const int64_t block = dims[at] / n;
  dims[at] = n;
  dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(at) + 1, block);
  return dims;
}

/// A dim list after dim `d` is split in two: later dims move up by one; `d` itself names the
/// block (the minor part) when `block` is set, the block index otherwise.
ir::DimList shifted(const ir::DimList& dims, int64_t d, bool block) {
  ir::DimList out;
  for (int64_t k : dims) out.push_back(k > d || (k == d && block) ? k + 1 : k);
  return out;
}

void set_dims(ir::Instruction& instr, const std::string& key, ir::DimList value) {
  for (ir::Attribute& a : instr.attrs) {
    if (a.key == key) {
      a.value = std::move(value);
      return;
    }
  }
  instr.attrs.push_back(ir::Attribute{key, std::move(value), {}});
}

}  // namespace

std::vector<Lift> lift_blockwise_dot(const ir::Instruction& instr, std::span<const OperandView> ops,
                                     const Mesh& mesh) {
  if (instr.opcode != ir::Opcode::kDot || ops.size() != 2) return {};
  const ir::DimList &lb = instr.dims_attr("lhs_batch_dims"),
                    &rb = instr.dims_attr("rhs_batch_dims");
  const ir::DimList &lc = instr.dims_attr("lhs_contracting_dims"),
                    &rc = instr.dims_attr("rhs_contracting_dims");
  // One axis shards both operands, evenly; every other axis replicates both.
  std::optional<size_t> axis;
  for (size_t a = 0; a < mesh.rank(); ++a) {
    const AxisLayout &l = ops[0].layout.axes[a], &r = ops[1].layout.axes[a];
    if (l.is_rep() && r.is_rep()) continue;
    if (axis || !l.is_shard() || !r.is_shard() || l.full >= 0 || r.full >= 0) return {};
    axis = a;
  }
  if (!axis) return {};
  const int32_t ld = ops[0].layout.axes[*axis].dim, rd = ops[1].layout.axes[*axis].dim;
  auto index = [](const ir::DimList& l, int64_t d) {
    return static_cast<size_t>(std::find(l.begin(), l.end(), d) - l.begin());
  };
  auto free_position = [](const ir::DimList& batch, const ir::DimList& contract, int64_t d) {
    int64_t before = 0;  // free dims before d
    for (int64_t k = 0; k < d; ++k) {
      if (std::find(batch.begin(), batch.end(), k) == batch.end() &&
          std::find(contract.begin(), contract.end(), k) == contract.end()) {
        ++before;
      }
    }
    return before;
  };
  // Each operand's blocks lie along a free or a contracted dim (not a batch dim, which the
  // ordinary rules carry); two contracted ones must be one contraction.
  const bool lcontracted = index(lc, ld) < lc.size(), rcontracted = index(rc, rd) < rc.size();
  if (index(lb, ld) < lb.size() || index(rb, rd) < rb.size()) return {};
  if (lcontracted && rcontracted && index(lc, ld) != index(rc, rd)) return {};
  const int64_t n = mesh.size(*axis);
  const auto nb = static_cast<int64_t>(lb.size());
  const int64_t rank = instr.type.rank();
  // Where the blocks may merge in the result: the dim a free block part lands on (one lift
  // each), else the dim after the blocks.
  std::vector<int64_t> targets;
  const int64_t lfree = ops[0].ref_type.rank() - nb - static_cast<int64_t>(lc.size());
  if (!lcontracted) targets.push_back(nb + free_position(lb, lc, ld));
  if (!rcontracted) targets.push_back(nb + lfree + free_position(rb, rc, rd));
  if (targets.empty() && nb < rank) targets.push_back(nb);
  Lift base;
  base.term = Lift::Term::kBlockwise;
  base.rule = "factor:dot";
  base.split = {ir::Type::array(ops[0].ref_type.dtype(), split_dim(ops[0].ref_type.dims(), ld, n)),
                ir::Type::array(ops[1].ref_type.dtype(), split_dim(ops[1].ref_type.dims(), rd, n))};
  base.ref_instr = instr;
  ir::DimList lbatch = shifted(lb, ld, false), rbatch = shifted(rb, rd, false);
  lbatch.push_back(ld);
  rbatch.push_back(rd);
  set_dims(base.ref_instr, "lhs_batch_dims", lbatch);
  set_dims(base.ref_instr, "rhs_batch_dims", rbatch);
  set_dims(base.ref_instr, "lhs_contracting_dims", shifted(lc, ld, true));
  set_dims(base.ref_instr, "rhs_contracting_dims", shifted(rc, rd, true));
  // The batched result: batch dims, the blocks, then the free dims as before.
  std::vector<int64_t> batched = instr.type.dims();
  batched.insert(batched.begin() + nb, n);
  base.ref_instr.type = ir::Type::array(instr.type.dtype(), batched);
  std::vector<Lift> lifts;
  for (int64_t t : targets) {
    Lift l = base;
    // Move the blocks next to dim t (batched numbering t + 1), then merge them into it.
    for (int64_t k = 0; k <= rank; ++k) {
      if (k == nb) continue;
      if (k == t + 1) l.block_order.push_back(nb);
      l.block_order.push_back(k);
    }
    std::vector<int64_t> merged = instr.type.dims();
    merged[static_cast<size_t>(t)] *= n;
    l.ref_type = ir::Type::array(instr.type.dtype(), merged);
    l.layout = Layout::on(mesh, *axis, AxisLayout::shard(static_cast<int32_t>(t)));
    lifts.push_back(std::move(l));
  }
  return lifts;
}

}  // namespace scalify::verify::detail
