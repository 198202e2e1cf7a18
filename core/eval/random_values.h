// Random values of a given HLO type, for checking rewrite rules numerically.
#pragma once

#include <random>

#include "eval/value.h"
#include "ir/type.h"

namespace scalify::eval {

/// A random value of `type`: floats uniform in [-2, 2] but never exactly 0 (so that divisions
/// and logarithms of random operands stay finite more often), signed integers in [-3, 3],
/// unsigned ones in [0, 5] (both clipped to the type's range: u1 is 0 or 1), pred 0 or 1; tuples
/// element by element; a token is the empty tuple. Complex types (which the interpreter does not
/// evaluate) get real numbers. The numbers depend only on the engine's output, not on the
/// standard library, so a seed gives the same value everywhere.
///
///   std::mt19937_64 rng(42);
///   Value v = random_value(ir::Type::array(ir::DType::kF32, {2, 3}), rng);
///   v.tensor().dims == std::vector<int64_t>{2, 3};   // six numbers in [-2, 2]
Value random_value(const ir::Type& type, std::mt19937_64& rng);

}  // namespace scalify::eval
