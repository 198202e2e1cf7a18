// A Spec written back as the JSON text that parse_spec reads (verify/spec.h): how the window
// keeps its bijection overrides in a saved session.
#pragma once

#include "support/json.h"
#include "verify/spec.h"

namespace scalify::verify {

/// The spec as the object of a spec file: "mesh" (the spec's own; else, when it states a
/// layout, the mesh its layouts were read against, so that the text reads back on its own),
/// "parameters" (by name or number; "ref": null for no counterpart; layouts as text),
/// "outputs" and "strict", each only when the spec has it.
///
///   Spec s = *parse_spec(R"({"parameters": [{"dist": "w", "layout": "shard(1,tp)"}]})", "s",
///                        &tp2);
///   spec_to_json(s).dump() ==
///       R"({"mesh":{"tp":2},"parameters":[{"dist":"w","layout":"shard(1,tp)"}]})";
json::Value spec_to_json(const Spec& spec);

}  // namespace scalify::verify
