// ENode: an operator applied to e-classes, the unit the e-graph stores once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "egraph/union_find.h"

namespace scalify::egraph {

/// An interned operator name (see SymbolTable).
using Symbol = uint32_t;

/// `op(children…)` with an attribute payload: an id the caller interns for whatever makes two
/// applications of `op` differ besides their operands (dimensions, slice windows, a constant's
/// value…). The engine compares payload ids only, so it is independent of the op set.
///
///   ENode add{sym_add, 0, {x, y}};   // add(x, y)
struct ENode {
  Symbol op = 0;
  uint32_t payload = 0;
  std::vector<ClassId> children;

  friend bool operator==(const ENode&, const ENode&) = default;
};

struct ENodeHash {
  size_t operator()(const ENode& n) const {
    // FNV-1a style mixing over the fields; children order matters.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(n.op);
    mix(n.payload);
    for (ClassId c : n.children) mix(c);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

}  // namespace scalify::egraph
