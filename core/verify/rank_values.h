// Integer scalars whose value depends only on the rank: `partition-id`, table lookups indexed by
// it, arithmetic and comparisons on them, evaluated for every device. XLA's SPMD partitioner slices
// a replicated value into shards with `dynamic-slice(x, offset(partition-id))`; these values are
// what lets the checker read such a slice as a shard.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/module.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// One value per device, in device order.
using PerDevice = std::vector<int64_t>;

/// The per-device values of every integer scalar (or one-element array) of `comp` computed from
/// partition-id / replica-id or a parameter named partition-id (ir/partition_id.h), and of every
/// comparison of such values (1 where it holds, 0 elsewhere); nullopt elsewhere, constants
/// included. Indexed by InstrId.
///
///   // pid = u32[] partition-id(); t = s32[2] constant({0, 64});
///   // o = s32[] reshape(s32[1] dynamic-slice(t, pid), dynamic_slice_sizes={1})
///   rank_values(comp, tp=2)[o] == PerDevice{0, 64}
/// `partition-id` is the device's number unless the header says the devices are replicas
/// (`replica_count` > 1, one partition: then it is 0); `replica-id` is the device's number only
/// when the header says so (replicas, one partition), 0 with partitions and one replica, and
/// unknown otherwise.
std::vector<std::optional<PerDevice>> rank_values(const ir::Module& module,
                                                  const ir::Computation& comp, const Mesh& mesh);

/// The values of the first `at_most` devices joined by ", ", for messages: "0, 64".
std::string per_device_text(const PerDevice& values, size_t at_most = 8);

}  // namespace scalify::verify
