// ENode: an operator applied to e-classes, the unit the e-graph stores once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "egraph/children.h"
#include "egraph/union_find.h"

namespace scalify::egraph {

/// An interned operator name (see Vocabulary).
using Symbol = uint32_t;

/// `op(children…)` with an attribute payload: an id the caller interns for whatever makes two
/// applications of `op` differ besides their operands (dimensions, slice windows, a constant's
/// value…). The engine compares payload ids only, so it is independent of the op set.
///
///   ENode add{sym_add, 0, {x, y}};   // add(x, y)
struct ENode {
  Symbol op = 0;
  uint32_t payload = 0;
  Children children;

  friend bool operator==(const ENode&, const ENode&) = default;
};

struct ENodeHash {
  size_t operator()(const ENode& n) const {
    // Multiply-xorshift mixing of each field; children order matters.
    uint64_t h = (uint64_t{n.op} << 32 | n.payload) * 0x9e3779b97f4a7c15ull;
    for (ClassId c : n.children) h = (h ^ (h >> 31) ^ c) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 33;  // a final avalanche, so that the low bits a table uses depend on every field
    h *= 0xff51afd7ed558ccdull;
    return static_cast<size_t>(h ^ (h >> 33));
  }
};

}  // namespace scalify::egraph
