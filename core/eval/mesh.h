// Values across a simulated mesh axis of n ranks: what the layouts mean (a value replicated,
// split along a dim, or held as n partial values) and what the collectives do between ranks.
// The interpreter has no ranks; the numeric rule checker and the tests' rank simulator give it
// one value per rank and do the communication here.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eval/value.h"
#include "support/expected.h"

namespace scalify::eval::mesh {

/// Concatenation of `parts` along `dim` (same rank, equal dims elsewhere).
///   concatenate({Tensor{{1}, {1}}, Tensor{{2}, {2, 3}}}, 0) == Tensor{{3}, {1, 2, 3}}
Tensor concatenate(std::span<const Tensor> parts, int64_t dim);

/// Entries [start, start + size) of `x` along `dim`, zeros past its end (a padded last shard).
///   chunk(Tensor{{3}, {1, 2, 3}}, 0, 2, 2) == Tensor{{2}, {3, 0}}
Tensor chunk(const Tensor& x, int64_t dim, int64_t start, int64_t size);

/// The n equal blocks of `X` along `dim`, block r for rank r; an error when the dim is out of
/// range or does not divide by n.
Expected<std::vector<Tensor>> split(const Tensor& X, int64_t dim, int64_t n);

/// How the partial values of ranks combine: `Partial(x, X, axis, op)` and a collective's reducer.
enum class Reduction : uint8_t { kSum, kMean, kMax, kMin, kProduct };

/// The reduction a word names: a layout's (`sum`, `mean`, `max`, `min`, `product`) or a
/// reducer's (`add`, `maximum`, `minimum`, `multiply`); nullopt for any other word.
std::optional<Reduction> reduction_named(std::string_view word);
const char* to_string(Reduction r);

/// The elementwise combination of `parts` (equal shapes): their sum, mean, max, min or product.
Tensor combine(std::span<const Tensor> parts, Reduction op);

/// What one distributed value holds on each rank, relative to a reference value X.
///   Rep:             x[r] = X
///   Shard(dim):      X = concatenate(x[0], …, x[n-1]) along dim
///   Partial(op):     X = combine(x[0], …, x[n-1]) by op
struct Layout {
  enum class Kind : uint8_t { kRep, kShard, kPartial };
  Kind kind = Kind::kRep;
  int64_t dim = 0;                 ///< kShard
  Reduction op = Reduction::kSum;  ///< kPartial
};
std::string to_string(const Layout& l);

/// Random per-rank values that hold `X` in layout `l` on `n` ranks: copies, the n blocks along
/// the dim (an error when the dim does not divide by n), or n random values that combine to X
/// (for max and min, one rank holds X and the others at most / at least X elementwise).
///
///   std::mt19937_64 rng(1);
///   auto x = distribute(Tensor{{4}, {1, 2, 3, 4}}, {Layout::Kind::kShard, 0}, 2, rng);
///   (*x)[1] == Tensor{{2}, {3, 4}}
Expected<std::vector<Tensor>> distribute(const Tensor& X, const Layout& l, int64_t n,
                                         std::mt19937_64& rng);

/// The reference value that per-rank values `x` hold in layout `l`: rank 0's value for Rep
/// (an error when the ranks differ beyond the tolerance), the concatenation, or the combination.
Expected<Tensor> collect(std::span<const Tensor> x, const Layout& l, double rtol, double atol);

/// Whether `x` holds `X` in layout `l`; otherwise false and `why` says where it does not.
bool holds(std::span<const Tensor> x, const Tensor& X, const Layout& l, double rtol, double atol,
           std::string* why = nullptr);

/// The collectives over all n ranks of one axis, each returning every rank's result.
/// all-reduce: every rank gets combine(x); all-gather: every rank gets the concatenation along
/// `dim`; reduce-scatter: rank r gets block r of combine(x) along `dim` (which must divide by
/// n); all-to-all: rank r splits its value into n blocks along `split_dim`, sends block j to
/// rank j, and concatenates what it receives along `concat_dim` in rank order.
std::vector<Tensor> all_reduce(std::span<const Tensor> x, Reduction op);
std::vector<Tensor> all_gather(std::span<const Tensor> x, int64_t dim);
Expected<std::vector<Tensor>> reduce_scatter(std::span<const Tensor> x, int64_t dim, Reduction op);
Expected<std::vector<Tensor>> all_to_all(std::span<const Tensor> x, int64_t split_dim,
                                         int64_t concat_dim);

}  // namespace scalify::eval::mesh
