// The proof checker's layout rules for the indexing ops (step_kernel.h): slices, pads,
// reversals, dynamic slices and updates, gathers and scatters of sharded values.
#include <algorithm>

#include "proofcheck/step_kernel.h"

namespace scalify::proofcheck::detail {

StepCheck Kernel::slice() {
  const auto* ranges = s_.instr.get<std::vector<ir::SliceRange>>("slice");
  if (!ranges) return refuse("a slice without its ranges");
  std::vector<ir::SliceRange> ref_ranges = *ranges;
  const ir::Type& local = s_.dist.entry()[s_.instr.operands[0]].type;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout& p = operand(0, a);
    if (!(p == q)) return refuse(said(0, a) + " but " + claim(a));
    if (!p.is_shard()) continue;
    const auto d = static_cast<size_t>(p.dim);
    const ir::SliceRange whole{0, local.dim(p.dim), 1};
    if (d >= ranges->size() || !((*ranges)[d] == whole)) {
      return refuse(said(0, a) + " and the slice cuts dimension " + std::to_string(d) +
                    ": each rank would take a piece of its own shard");
    }
    ref_ranges[d] = {0, term(0).type.dim(p.dim), 1};
  }
  ir::Instruction as_reference = s_.instr;
  for (ir::Attribute& attr : as_reference.attrs) {
    if (attr.key == "slice") attr.value = ref_ranges;
  }
  return {make({s_.terms[0]}, &as_reference), ""};
}

StepCheck Kernel::concatenate() {
  const ir::DimList& dims = s_.instr.dims_attr("dimensions");
  if (dims.size() != 1) return refuse("a concatenate without one dimension");
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    for (size_t i = 0; i < s_.instr.operands.size(); ++i) {
      if (!(operand(i, a) == q)) return refuse(said(i, a) + " but " + claim(a));
    }
    if (q.is_shard() && q.dim == dims[0]) {
      return refuse("the concatenate joins along dimension " + std::to_string(q.dim) +
                    ", which each operand holds only a shard of");
    }
  }
  std::vector<TermId> args(s_.terms.begin(), s_.terms.end());
  return {make(std::move(args)), ""};
}

StepCheck Kernel::scatter() {
  if (s_.instr.operands.size() != 3) return unsupported("a scatter of several operands");
  const ir::DimList& window = s_.instr.dims_attr("update_window_dims");
  // Batching dims, like inserted ones, have no window dim in the update.
  ir::DimList inserted = s_.instr.dims_attr("inserted_window_dims");
  const ir::DimList& batching = s_.instr.dims_attr("input_batching_dims");
  inserted.insert(inserted.end(), batching.begin(), batching.end());
  const ir::DimList& scattered = s_.instr.dims_attr("scatter_dims_to_operand_dims");
  const ir::Computation& c = s_.dist.entry();
  const ir::Type& local = c[s_.instr.operands[0]].type;
  const ir::Type& updates = c[s_.instr.operands[2]].type;
  auto has = [](const ir::DimList& l, int64_t v) {
    return std::find(l.begin(), l.end(), v) != l.end();
  };
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!operand(1, a).is_rep()) return refuse(said(1, a) + ": the indices must be rep");
    if (q.is_rep()) {
      if (!operand(0, a).is_rep() || !operand(2, a).is_rep()) {
        return refuse("the operand and updates must be rep for " + claim(a));
      }
      continue;
    }
    if (!q.is_shard() || q.zero_pad) return refuse("a scatter does not give " + claim(a));
    if (!(operand(0, a) == q)) return refuse(said(0, a) + " but " + claim(a));
    if (has(inserted, q.dim) || has(scattered, q.dim)) {
      return refuse("the scatter places updates along dimension " + std::to_string(q.dim));
    }
    // The update dim holding operand dim q.dim: the window dims in operand order.
    size_t k = 0;
    for (int64_t j = 0; j < q.dim; ++j) k += has(inserted, j) ? 0 : 1;
    if (k >= window.size()) return refuse("a scatter without that window dim");
    const auto u = static_cast<int32_t>(window[k]);
    const AxisLayout& pu = operand(2, a);
    if (!(pu.is_shard() && pu.dim == u && pu.full == q.full) ||
        updates.dim(u) != local.dim(q.dim)) {
      return refuse(said(2, a) + ": the updates must cover dimension " + std::to_string(q.dim) +
                    " whole, sharded alike");
    }
  }
  std::vector<TermId> args(s_.terms.begin(), s_.terms.end());
  return {make(std::move(args)), ""};
}

StepCheck Kernel::pad() {
  const auto* config = s_.instr.get<ir::PaddingConfig>("padding");
  if (!config || s_.instr.operands.size() != 2) return refuse("a pad without its padding");
  if (auto no = indices_replicated(1)) return *no;
  const std::optional<double> v = term(1).splat;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!(operand(0, a) == q)) return refuse(said(0, a) + " but " + claim(a));
    if (q.is_shard()) {
      const ir::PadDim& d = (*config)[static_cast<size_t>(q.dim)];
      if (d.low != 0 || d.high != 0 || d.interior != 0) {
        return refuse("the pad widens dimension " + std::to_string(q.dim) +
                      ", which ranks hold blocks of");
      }
      if (q.zero_pad && v != 0.0) return refuse(claim(a) + " needs zeros in the padding");
    }
    if (q.is_partial() && q.op != ReduceOp::kMax && q.op != ReduceOp::kMin &&
        !(v == 0.0 && (q.op == ReduceOp::kSum || q.op == ReduceOp::kMean))) {
      return refuse(
          "padding a partial value with anything but 0 counts the padding on "
          "every rank");
    }
  }
  return {make({s_.terms[0], s_.terms[1]}), ""};
}

StepCheck Kernel::reverse() {
  const ir::DimList& dims = s_.instr.dims_attr("dimensions");
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!(operand(0, a) == q)) return refuse(said(0, a) + " but " + claim(a));
    if (q.is_shard() && std::find(dims.begin(), dims.end(), q.dim) != dims.end()) {
      return refuse("the reverse runs along dimension " + std::to_string(q.dim) +
                    ", which ranks hold blocks of");
    }
  }
  return {make({s_.terms[0]}), ""};
}

StepCheck Kernel::dynamic_slice() {
  if (auto no = indices_replicated(1)) return *no;
  const ir::Type& local = s_.dist.entry()[s_.instr.operands[0]].type;
  ir::Instruction as_reference = s_.instr;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!(operand(0, a) == q)) return refuse(said(0, a) + " but " + claim(a));
    if (!q.is_shard()) continue;
    if (s_.instr.type.dim(q.dim) != local.dim(q.dim)) {
      return refuse("the slice cuts dimension " + std::to_string(q.dim) +
                    ": each rank would take a piece of its own shard");
    }
    set_extent(as_reference, "dynamic_slice_sizes", q.dim, term(0).type.dim(q.dim));
  }
  std::vector<TermId> args(s_.terms.begin(), s_.terms.end());
  return {make(std::move(args), &as_reference), ""};
}

StepCheck Kernel::dynamic_update_slice() {
  if (s_.instr.operands.size() < 2) return refuse("an update without its value");
  if (auto no = indices_replicated(2)) return *no;
  const ir::Computation& c = s_.dist.entry();
  const ir::Type& local = c[s_.instr.operands[0]].type;
  const ir::Type& update = c[s_.instr.operands[1]].type;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (!(operand(0, a) == q) || !(operand(1, a) == q)) {
      return refuse(said(0, a) + " and " + said(1, a) + ": both must be " + claim(a));
    }
    if (q.is_shard() && update.dim(q.dim) != local.dim(q.dim)) {
      return refuse("the update covers part of dimension " + std::to_string(q.dim) +
                    ", which ranks hold blocks of");
    }
  }
  std::vector<TermId> args(s_.terms.begin(), s_.terms.end());
  return {make(std::move(args)), ""};
}

StepCheck Kernel::gather() {
  if (s_.instr.operands.size() != 2) return unsupported("a gather of several operands");
  if (auto no = indices_replicated(1)) return *no;
  const ir::DimList& offset = s_.instr.dims_attr("offset_dims");
  // Batching dims, like collapsed ones, have no offset dim.
  ir::DimList collapsed = s_.instr.dims_attr("collapsed_slice_dims");
  const ir::DimList& batching = s_.instr.dims_attr("operand_batching_dims");
  collapsed.insert(collapsed.end(), batching.begin(), batching.end());
  const ir::DimList& index_map = s_.instr.dims_attr("start_index_map");
  const ir::DimList& sizes = s_.instr.dims_attr("slice_sizes");
  const ir::Type& local = s_.dist.entry()[s_.instr.operands[0]].type;
  auto has = [](const ir::DimList& l, int64_t v) {
    return std::find(l.begin(), l.end(), v) != l.end();
  };
  ir::Instruction as_reference = s_.instr;
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    const AxisLayout& p = operand(0, a);
    if (!p.is_shard()) {
      if (!(p == q)) return refuse(said(0, a) + " but " + claim(a));
      continue;
    }
    const auto d = static_cast<size_t>(p.dim);
    if (has(collapsed, p.dim) || has(index_map, p.dim) || d >= sizes.size() ||
        sizes[d] != local.dim(p.dim)) {
      return refuse(said(0, a) + ": the gather does not take dimension " + std::to_string(p.dim) +
                    " whole");
    }
    size_t k = 0;
    for (int64_t j = 0; j < p.dim; ++j) k += has(collapsed, j) ? 0 : 1;
    if (k >= offset.size() || !shard_is(q, static_cast<int32_t>(offset[k]), p.full, p.zero_pad)) {
      return refuse(said(0, a) + ": the gather keeps it as its dimension " +
                    (k < offset.size() ? std::to_string(offset[k]) : std::string("?")) + ", not " +
                    claim(a));
    }
    set_extent(as_reference, "slice_sizes", p.dim, term(0).type.dim(p.dim));
  }
  return {make({s_.terms[0], s_.terms[1]}, &as_reference), ""};
}

StepCheck Kernel::windowed(const std::string& op) {
  const size_t n = s_.instr.operands.size();
  const size_t values = op == "reduce-window" ? n / 2 : op == "select-and-scatter" ? 2 : n;
  if (auto no = indices_replicated(values)) return *no;  // init values
  const ir::DimList& sorted = s_.instr.dims_attr("dimensions");
  const auto* window = s_.instr.get<ir::Window>("window");
  auto crossed = [&](int32_t d) {
    if (op == "map") return false;
    if (op == "sort") return std::find(sorted.begin(), sorted.end(), d) != sorted.end();
    return !window || !window->unit(static_cast<size_t>(d));
  };
  for (size_t a = 0; a < s_.mesh.rank(); ++a) {
    const AxisLayout& q = claimed(a);
    if (q.is_partial()) return refuse(claim(a) + ": `" + op + "` is not linear");
    for (size_t i = 0; i < values; ++i) {
      if (!(operand(i, a) == q)) return refuse(said(i, a) + " but " + claim(a));
    }
    if (!q.is_shard()) continue;
    if (crossed(q.dim)) {
      return refuse("`" + op + "` moves values along dimension " + std::to_string(q.dim) +
                    ", which ranks hold blocks of");
    }
    if (q.zero_pad && op != "sort") {
      return refuse(claim(a) + " says the padding holds zeros, which `" + op + "` does not keep");
    }
  }
  return {make(std::vector<TermId>(s_.terms.begin(), s_.terms.end())), ""};
}

std::optional<StepCheck> Kernel::indices_replicated(size_t first) {
  for (size_t i = first; i < s_.instr.operands.size(); ++i) {
    if (!s_.layouts[i].is_rep()) {
      return refuse("operand " + std::to_string(i) + " (an index) is " +
                    s_.layouts[i].to_string(s_.mesh) + ": every rank must use the same");
    }
  }
  return std::nullopt;
}

void Kernel::set_extent(ir::Instruction& instr, const std::string& key, int32_t dim,
                        int64_t extent) {
  for (ir::Attribute& a : instr.attrs) {
    auto* list = std::get_if<ir::DimList>(&a.value);
    if (a.key == key && list && static_cast<size_t>(dim) < list->size()) {
      (*list)[static_cast<size_t>(dim)] = extent;
    }
  }
}

}  // namespace scalify::proofcheck::detail
