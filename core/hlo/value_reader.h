// Readers for the values inside an HLO instruction: types, attribute values, metadata,
// shardings and device lists. Internal to core/hlo; errors are thrown as ReadError.
#pragma once

#include <string_view>

#include "hlo/cursor.h"
#include "ir/attributes.h"
#include "ir/metadata.h"
#include "ir/type.h"

namespace scalify::hlo {

/// `f32[8,128]{1,0}`, `(s32[], token[])`, `bf16[<=4]`. A layout is read only when '{' follows
/// ']' directly (in a signature `-> f32[] {` the brace opens the body).
ir::Type read_type(Cursor& c, int depth = 0);

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
