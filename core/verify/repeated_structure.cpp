#include "verify/repeated_structure.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

namespace scalify::verify {

namespace {

constexpr size_t kMinPeriod = 8;  ///< a block shorter than this is no layer
/// A program smaller than this is checked whole: cutting it would save nothing, and a part's
/// bindings name only the parameters it reads.
constexpr size_t kMinInstructions = 256;
constexpr size_t kPeriodsTried = 8;  ///< the most common distances between look-alikes

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/// Each instruction's type, hashed (by instruction id).
std::vector<uint64_t> type_hashes(const ir::Computation& c) {
  const std::hash<std::string> text_hash;
  std::vector<uint64_t> out(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    out[i] = text_hash(c[static_cast<ir::InstrId>(i)].type.to_string(false));
  }
  return out;
}

/// What each instruction of `seq` looks like, its name aside: opcode, type and operand count.
std::vector<uint64_t> shapes_of(const ir::Computation& c, const std::vector<ir::InstrId>& seq,
                                const std::vector<uint64_t>& types) {
  std::vector<uint64_t> out(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) {
    const ir::Instruction& x = c[seq[i]];
    out[i] = mix(mix(static_cast<uint64_t>(x.opcode), types[static_cast<size_t>(seq[i])]),
                 x.operands.size());
  }
  return out;
}

/// `shapes` with each instruction's operands too, for blocks of `period` instructions: an
/// operand at most a period back by how far back it is (the same in every repetition), any
/// other (a parameter, a value made once before the layers, such as a mask) by its type.
std::vector<uint64_t> look_alikes(const ir::Computation& c, const std::vector<ir::InstrId>& seq,
                                  const std::vector<int64_t>& at,
                                  const std::vector<uint64_t>& types,
                                  const std::vector<uint64_t>& shapes, size_t period) {
  std::vector<uint64_t> out(seq.size());
  for (size_t i = 0; i < seq.size(); ++i) {
    uint64_t h = shapes[i];
    for (ir::InstrId o : c[seq[i]].operands) {
      const int64_t k = at[static_cast<size_t>(o)];
      const auto back = static_cast<uint64_t>(static_cast<int64_t>(i) - k);
      h = k >= 0 && back <= period ? mix(h, back) : mix(h, ~types[static_cast<size_t>(o)]);
    }
    out[i] = h;
  }
  return out;
}

/// The distances between consecutive instructions of one shape that are most common (at least
/// kMinPeriod, at most half the sequence): the candidate lengths of a layer.
std::vector<size_t> candidate_periods(const std::vector<uint64_t>& sig) {
  std::unordered_map<uint64_t, size_t> last;
  std::unordered_map<size_t, size_t> count;
  for (size_t i = 0; i < sig.size(); ++i) {
    const auto [seen, fresh] = last.try_emplace(sig[i], i);
    if (fresh) continue;
    const size_t gap = i - seen->second;
    seen->second = i;
    if (gap >= kMinPeriod && 2 * gap <= sig.size()) ++count[gap];
  }
  std::vector<std::pair<size_t, size_t>> by_count(count.begin(), count.end());
  std::sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  std::vector<size_t> out;
  for (size_t k = 0; k < by_count.size() && k < kPeriodsTried; ++k)
    out.push_back(by_count[k].first);
  return out;
}

}  // namespace

std::vector<Part> partition_by_repetition(const ir::Module& m) {
  const ir::Computation& c = m.entry();
  const auto order = c.topological_order();
  if (!order) return {};
  std::vector<ir::InstrId> seq;
  std::vector<int64_t> at(c.size(), -1);  // position in seq; -1 for parameters
  for (ir::InstrId id : *order) {
    if (c[id].opcode == ir::Opcode::kParameter) continue;
    at[static_cast<size_t>(id)] = static_cast<int64_t>(seq.size());
    seq.push_back(id);
  }
  const size_t n = seq.size();
  if (n < kMinInstructions) return {};
  const std::vector<uint64_t> types = type_hashes(c);
  const std::vector<uint64_t> shapes = shapes_of(c, seq, types);

  // The longest periodic run: [start, start + length + period) repeats with `period`.
  size_t best_period = 0, best_start = 0, best_cover = 0;
  std::vector<uint64_t> sig;  // look-alikes for the best period
  for (size_t p : candidate_periods(shapes)) {
    std::vector<uint64_t> here = look_alikes(c, seq, at, types, shapes, p);
    bool better = false;
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      run = here[i] == here[i + p] ? run + 1 : 0;
      const size_t cover = (run + p) / p * p;  // whole repetitions in the run so far
      if (run > 0 && cover >= 2 * p &&
          (cover > best_cover || (cover == best_cover && p < best_period))) {
        best_period = p;
        best_start = i + 1 - run;
        best_cover = cover;
        better = true;
      }
    }
    if (better) sig = std::move(here);
  }
  if (best_period == 0) return {};
  const size_t p = best_period;
  // Cut where the fewest values cross: crossing[k] counts the values made before position k
  // and read at or after it.
  std::vector<int64_t> crossing(n + 1, 0);
  std::vector<size_t> last_use(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (ir::InstrId o : c[seq[i]].operands) {
      const int64_t k = at[static_cast<size_t>(o)];
      if (k >= 0) last_use[static_cast<size_t>(k)] = std::max(last_use[static_cast<size_t>(k)], i);
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (last_use[i] <= i) continue;
    ++crossing[i + 1];
    --crossing[last_use[i] + 1];
  }
  for (size_t k = 1; k <= n; ++k) crossing[k] += crossing[k - 1];
  const size_t end = best_start + best_cover;  // the run's whole repetitions end here
  size_t cut = best_start;
  for (size_t k = best_start; k < best_start + p && k < n; ++k) {
    if (crossing[k] < crossing[cut]) cut = k;
  }
  // Shifted to `cut`, the repetitions that still fit; the periodic run extends p - 1 past `end`
  // at most, so shifting may lose one.
  size_t run_end = end;
  while (run_end < n && run_end >= p && sig[run_end] == sig[run_end - p]) ++run_end;
  const size_t blocks = (run_end - cut) / p;
  if (blocks < 2) return {};

  std::vector<Part> parts;
  auto part = [&](int64_t key, size_t from, size_t to, std::string label) {
    if (from >= to) return;
    Part q;
    q.key = key;
    q.label = std::move(label);
    q.by_structure = true;
    q.members.assign(seq.begin() + static_cast<std::ptrdiff_t>(from),
                     seq.begin() + static_cast<std::ptrdiff_t>(to));
    parts.push_back(std::move(q));
  };
  part(Part::kPrologue, 0, cut, "prologue");
  for (size_t b = 0; b < blocks; ++b) {
    part(static_cast<int64_t>(b), cut + b * p, cut + (b + 1) * p, "block " + std::to_string(b));
  }
  part(Part::kEpilogue, cut + blocks * p, n, "epilogue");
  return parts;
}

}  // namespace scalify::verify
