#include "eval/random_values.h"

#include <algorithm>
#include <cmath>

namespace scalify::eval {
namespace {

/// Uniform in [0, 1) from the top 53 bits of one draw.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

/// Uniform integer in [lo, hi] (hi - lo is tiny, so the modulo bias is negligible).
double integer_in(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  const auto span = static_cast<uint64_t>(hi - lo + 1);
  return static_cast<double>(lo + static_cast<int64_t>(rng() % span));
}

double random_element(ir::DType t, std::mt19937_64& rng) {
  if (t == ir::DType::kPred) return integer_in(rng, 0, 1);
  if (ir::is_integer(t)) {
    const int bits = ir::bit_width(t);
    if (ir::is_unsigned_int(t)) {
      const int64_t max = bits >= 8 ? 255 : (int64_t{1} << bits) - 1;
      return integer_in(rng, 0, std::min<int64_t>(5, max));
    }
    const int64_t half = bits >= 8 ? 128 : int64_t{1} << (bits - 1);
    return integer_in(rng, std::max<int64_t>(-3, -half), std::min<int64_t>(3, half - 1));
  }
  double x = 0;
  while (x == 0) x = -2.0 + 4.0 * unit(rng);
  return x;
}

}  // namespace

Value random_value(const ir::Type& type, std::mt19937_64& rng) {
  if (type.is_tuple()) {
    std::vector<Value> parts;
    parts.reserve(type.elements().size());
    for (const ir::Type& e : type.elements()) parts.push_back(random_value(e, rng));
    return Value::tuple(std::move(parts));
  }
  if (!type.is_array()) return Value::tuple({});
  Tensor t;
  for (int64_t d : type.dims()) t.dims.push_back(std::max<int64_t>(d, 0));
  const auto n = static_cast<size_t>(t.element_count());
  t.data.reserve(n);
  for (size_t i = 0; i < n; ++i) t.data.push_back(random_element(type.dtype(), rng));
  return t;
}

}  // namespace scalify::eval
