#include "ir/swapped_dot.h"

#include <algorithm>
#include <numeric>

namespace scalify::ir {

std::optional<SwappedDot> swapped_dot(const Instruction& dot, const Type& lhs, const Type& rhs) {
  if (dot.opcode != Opcode::kDot || !dot.type.is_array() || !lhs.is_array() || !rhs.is_array()) {
    return std::nullopt;
  }
  const DimList& lb = dot.dims_attr("lhs_batch_dims");
  const DimList& lc = dot.dims_attr("lhs_contracting_dims");
  const DimList& rb = dot.dims_attr("rhs_batch_dims");
  const DimList& rc = dot.dims_attr("rhs_contracting_dims");
  const int64_t nb = static_cast<int64_t>(lb.size());
  const int64_t lfree = lhs.rank() - nb - static_cast<int64_t>(lc.size());
  const int64_t rfree =
      rhs.rank() - static_cast<int64_t>(rb.size()) - static_cast<int64_t>(rc.size());
  if (lb.size() != rb.size() || lc.size() != rc.size() || lfree < 0 || rfree < 0 ||
      dot.type.rank() != nb + lfree + rfree) {
    return std::nullopt;
  }
  SwappedDot out{dot, {}};
  // The dimension numbers exchanged; batch dims named only when there are some, as XLA does.
  struct Numbers {
    const char* key;
    const DimList* list;
    bool always;
  };
  const Numbers lists[] = {{"lhs_batch_dims", &rb, false},
                           {"rhs_batch_dims", &lb, false},
                           {"lhs_contracting_dims", &rc, true},
                           {"rhs_contracting_dims", &lc, true}};
  std::vector<Attribute> attrs;
  for (const Attribute& a : dot.attrs) {
    const bool numbered = std::any_of(std::begin(lists), std::end(lists),
                                      [&](const Numbers& l) { return a.key == l.key; });
    if (!numbered) attrs.push_back(a);
  }
  for (const Numbers& l : lists) {
    if (l.always || !l.list->empty()) attrs.push_back(Attribute{l.key, *l.list, {}});
  }
  out.dot.attrs = std::move(attrs);
  if (dot.operands.size() == 2) out.dot.operands = {dot.operands[1], dot.operands[0]};
  // The swapped result: batch, then the rhs's free dims, then the lhs's.
  const std::vector<int64_t>& dims = dot.type.dims();
  std::vector<int64_t> swapped(dims.begin(), dims.begin() + nb);
  swapped.insert(swapped.end(), dims.begin() + nb + lfree, dims.end());
  swapped.insert(swapped.end(), dims.begin() + nb, dims.begin() + nb + lfree);
  out.dot.type = Type::array(dot.type.dtype(), swapped);
  out.back.resize(static_cast<size_t>(nb));
  std::iota(out.back.begin(), out.back.end(), 0);
  for (int64_t k = 0; k < lfree; ++k) out.back.push_back(nb + rfree + k);
  for (int64_t k = 0; k < rfree; ++k) out.back.push_back(nb + k);
  return out;
}

std::optional<SwappedDot> to_normal_order(const Instruction& dot, const Type& lhs,
                                          const Type& rhs) {
  if (dot.opcode != Opcode::kDot || !lhs.is_array() || !rhs.is_array()) return std::nullopt;
  auto free_elements = [&](const Type& t, const DimList& batch, const DimList& contracting) {
    int64_t n = 1;
    for (int64_t k = 0; k < t.rank(); ++k) {
      const bool bound = std::find(batch.begin(), batch.end(), k) != batch.end() ||
                         std::find(contracting.begin(), contracting.end(), k) != contracting.end();
      if (!bound) n *= t.dim(k);
    }
    return n;
  };
  const int64_t l =
      free_elements(lhs, dot.dims_attr("lhs_batch_dims"), dot.dims_attr("lhs_contracting_dims"));
  const int64_t r =
      free_elements(rhs, dot.dims_attr("rhs_batch_dims"), dot.dims_attr("rhs_contracting_dims"));
  if (r <= l) return std::nullopt;
  return swapped_dot(dot, lhs, rhs);
}

}  // namespace scalify::ir
