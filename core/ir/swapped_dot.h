// The same dot with its operands the other way round, for normal forms in which two programs
// that multiply the same values in either order (x·W and the transpose of W^T·x^T) meet.
#pragma once

#include <optional>
#include <vector>

#include "ir/module.h"

namespace scalify::ir {

/// `dot(rhs, lhs)` with the dimension numbers exchanged: its result holds the batch dims, then
/// the rhs's free dims, then the lhs's, and `back` (a transpose's `dimensions`) moves them into
/// the order `dot` gives. nullopt when `dot` is no dot of two arrays with dims that pair up.
///
///   // d = f32[4,6] dot(f32[4,8] x, f32[8,6] w),
///   //     lhs_contracting_dims={1}, rhs_contracting_dims={0}
///   auto s = swapped_dot(d, x_type, w_type);
///   s->dot.type == f32[6,4];
///   s->dot.dims_attr("lhs_contracting_dims") == {0};
///   s->back == {1, 0};  // transpose(dot(w, x), {1,0}) == dot(x, w)
struct SwappedDot {
  Instruction dot;
  std::vector<int64_t> back;
};
std::optional<SwappedDot> swapped_dot(const Instruction& dot, const Type& lhs, const Type& rhs);

/// swapped_dot() when the rhs has more free elements than the lhs, else nullopt: the normal
/// order of a dot's operands. It depends on the product only (the free sizes of its operands do
/// not change when the operands are swapped or transposed), so two programs that compute one
/// product in either order write it alike.
///
///   // dot(f32[4,8] x, f32[8,6] w): x has 4 free elements, w 6
///   to_normal_order(d, x_type, w_type)->dot.type == f32[6,4]
std::optional<SwappedDot> to_normal_order(const Instruction& dot, const Type& lhs, const Type& rhs);

}  // namespace scalify::ir
