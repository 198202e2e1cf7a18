// Random instances of a rule's left-hand side for the numeric rule checker: operand types and
// attribute values chosen top-down from a result type, so that most instances type-check (the
// operands of an add get one shape, a dot's contracting dimensions one size, a concatenation's
// parts sum to its result, …). The instance is then typed by type_side, which has the last
// word: sampling is a heuristic, never trusted.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string_view>

#include "rules/tensor_term.h"

namespace scalify::rules::check {

/// Random numbers that depend only on the seed (not on the standard library's distributions).
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}
  /// A uniform integer of [lo, hi] (lo when hi < lo).
  int64_t uniform(int64_t lo, int64_t hi);
  /// True with probability p.
  bool chance(double p);
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

/// The seed of one rule direction's own stream: from the run's seed and the direction's name
/// only, so that a result depends neither on the other rules of the file nor on where it is.
uint64_t stream_seed(uint64_t seed, std::string_view name);

/// A random array type of `dtype`: rank 0 to 3, dimensions 1 to 4.
ir::Type random_type(Rng& rng, ir::DType dtype = ir::DType::kF32);

/// Binds the variables of `side` that `b` leaves unbound, working down from a result of type
/// `want` (random when nullopt). Operands default to f32.
///
///   // side (transpose ?x :dimensions ?p), want f32[3,2]:
///   // ?p = [1 0] (a random permutation of rank 2), ?x : f32[2,3]
///   sample_side(side, f32_3x2, b, rng);
void sample_side(const TNode& side, const std::optional<ir::Type>& want, Binding& b, Rng& rng);

}  // namespace scalify::rules::check
