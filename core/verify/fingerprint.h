// Canonical fingerprints of modules: equal for programs that differ only in instruction and
// computation names, numbering, metadata and frontend attributes, so that the 126 identical
// layers of a large model are recognised as one.
#pragma once

#include <string>

#include "ir/module.h"

namespace scalify::verify {

/// A 128-bit fingerprint (32 hex digits) of `m`'s ENTRY: opcodes, types, operands (by
/// position), attributes, literals, parameter numbers and the called computations' own
/// fingerprints; not names, metadata, frontend attributes or source positions.
///
///   fingerprint(layer_3) == fingerprint(layer_4)   // same code, other weights' names
std::string fingerprint(const ir::Module& m);

/// The fingerprint of one computation of `m` (the same canonical text, names ignored): two
/// computations with equal fingerprints compute the same function of their parameters.
///
///   // %cmp.1 { p0 = f32[] parameter(0)  p1 = f32[] parameter(1)  ROOT gt = compare(p0, p1) }
///   computation_fingerprint(m, cmp_1) == computation_fingerprint(other, cmp_7)  // same body
std::string computation_fingerprint(const ir::Module& m, ir::CompId comp);

/// A 128-bit hash of any text, as 32 hex digits.
std::string hash128(std::string_view text);

}  // namespace scalify::verify
