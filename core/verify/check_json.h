// The JSON form of a CheckResult (DESIGN.md, "Interfaces": `scalify check --json`).
#pragma once

#include "support/json.h"
#include "verify/check_result.h"

namespace scalify::verify {

/// One object: verdict, mesh, bijection, goals, assumptions, unmatched, divergence (null when
/// equivalent), notes, stats.
///
///   to_json(result)["verdict"].as_string() == "equivalent";
json::Value to_json(const CheckResult& result);

/// A layout as the JSON fields of DESIGN.md: {"layout": "shard", "dim": 1, "axis": "tp"} for
/// one non-replicated axis, {"layout": "rep"}, or {"layout": "shard(0,dp)+partial(sum,tp)"}.
json::Object layout_fields(const Layout& layout, const Mesh& mesh);

}  // namespace scalify::verify
