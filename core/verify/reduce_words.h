// How a reduction is said in the checker's messages and captions.
#pragma once

#include <string_view>

#include "verify/layout.h"

namespace scalify::verify {

/// The verb for `op`, to be followed by what it reduces:
///
///   "`all-reduce` " + reduce_op_verb(ReduceOp::kMax) + " the ranks' values"
///   // "`all-reduce` takes the maximum of the ranks' values"
inline std::string_view reduce_op_verb(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum:
      return "sums";
    case ReduceOp::kMax:
      return "takes the maximum of";
    case ReduceOp::kMin:
      return "takes the minimum of";
    case ReduceOp::kProduct:
      return "multiplies";
    case ReduceOp::kMean:
      return "averages";
  }
  return "combines";
}

}  // namespace scalify::verify
