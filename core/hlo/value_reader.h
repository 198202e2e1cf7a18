// Readers for the values inside an HLO instruction: types, attribute values, metadata,
// shardings and device lists. Internal to core/hlo; errors are thrown as ReadError.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "hlo/cursor.h"
#include "ir/attributes.h"
#include "ir/metadata.h"
#include "ir/type.h"

namespace scalify::hlo {

/// Types already read in one text, by their exact spelling: a module repeats the same few types
/// (every operand of a torch-xla dump, every loop-carried tuple of a JAX dump), and a hit costs a
/// hash of the text instead of a parse and its allocations.
using TypeCache = std::unordered_map<std::string_view, ir::Type>;

/// `f32[8,128]{1,0}`, `(s32[], token[])`, `bf16[<=4]`. A layout is read only when '{' follows
/// ']' directly (in a signature `-> f32[] {` the brace opens the body). With a cache, a type
/// spelled as before is not read again.
ir::Type read_type(Cursor& c, int depth = 0, TypeCache* cache = nullptr);

/// The value after `key=`, of the kind attr_kind_of(key) names.
ir::AttrValue read_attr_value(Cursor& c, std::string_view key);

/// `{op_type="…" op_name="…" source_line=3 …}`.
ir::Metadata read_metadata(Cursor& c);

/// `{replicated}`, `{devices=[2,1]0,1 last_tile_dim_replicate}`, `{{…}, {…}}`, …
ir::Sharding read_sharding(Cursor& c, int depth = 0);

/// `[2,4]<=[8]` or `[4,2]<=[2,4]T(1,0)` (the cursor is at the first '['), validated.
ir::IotaDevices read_iota_devices(Cursor& c);

/// `{{0,1},{2,3}}`, `{}` or the iota form.
ir::ReplicaGroups read_replica_groups(Cursor& c);

}  // namespace scalify::hlo
