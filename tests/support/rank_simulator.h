// Test support: runs a distributed HLO program on every rank at once with the reference
// interpreter (which has no ranks), doing partition-id and the collectives between the ranks,
// so that generated pairs can be compared numerically with their reference.
#pragma once

#include <cstdint>
#include <vector>

#include "eval/value.h"
#include "ir/module.h"
#include "modelgen/llama_generator.h"
#include "support/expected.h"

namespace scalify::test {

/// The ENTRY result of every rank. `args[r]` are rank r's parameters. Collectives combine the
/// ranks of each replica group (device ids), or all ranks when none are written, and reduce
/// with add; a collective-permute passes values along its source-target pairs.
Expected<std::vector<eval::Value>> simulate_ranks(
    const ir::Module& module, int64_t ranks, const std::vector<std::vector<eval::Value>>& args);

/// Random reference arguments for a generated pair (ids below the vocabulary, the decode
/// position within the cache, weights around zero), from `seed`.
std::vector<eval::Value> reference_arguments(const std::vector<modelgen::ParameterInfo>& params,
                                             int64_t vocab, int64_t position, uint64_t seed);

/// Rank r's share of the reference arguments: replicated ones whole, split ones their chunk
/// along the shard dim (padded with zeros when uneven).
std::vector<std::vector<eval::Value>> shard_arguments(
    const std::vector<modelgen::ParameterInfo>& params, const std::vector<eval::Value>& ref,
    int64_t ranks);

}  // namespace scalify::test
