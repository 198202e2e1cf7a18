// Per-device values of the integer scalars a distributed program computes from its device
// number (partition-id, replica-id), for re-checking `dynamic-slice(x, offset(partition-id))`
// as each rank's shard of x, and `select(partition-id == c, x, 0)` as a part of a sum. The proof
// checker's own small evaluator, apart from the checker's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/module.h"

namespace scalify::proofcheck {

/// The value of scalar instruction `id` of `module`'s ENTRY on each of `devices` devices, when
/// it follows from the device number and constants by arithmetic the evaluator knows
/// (constant, partition-id, replica-id, a parameter named partition-id, convert, reshape,
/// bitcast, add, subtract, multiply, divide, remainder, minimum, maximum, a one-element
/// dynamic-slice of a constant table, and compare, 1 where it holds and 0 elsewhere); nullopt
/// otherwise.
///
///   // pid = u32[] partition-id(); c = s32[] constant(128); o = s32[] multiply(convert(pid), c)
///   device_values(m, o, 2) == std::vector<int64_t>{0, 128}
std::optional<std::vector<int64_t>> device_values(const ir::Module& module, ir::InstrId id,
                                                  int64_t devices);

}  // namespace scalify::proofcheck
