// The JSON form of a CheckResult (DESIGN.md, "Interfaces": `scalify check --json`), and back:
// the part memo's cache and saved sessions (core/store/session_file.h) keep results this way.
#pragma once

#include <string_view>

#include "support/expected.h"
#include "support/json.h"
#include "verify/check_result.h"

namespace scalify::verify {

/// What to_json writes beyond the interface's keys.
struct JsonOptions {
  /// "matches": every distributed node proven to hold a reference node ({"dist", "ref",
  /// "layout"}), what the window colours. Large on a big program, so `check --json` leaves it
  /// out.
  bool matches = false;
};

/// One object: verdict, mesh, bijection, goals, assumptions, unmatched, divergence (null when
/// equivalent), notes, stats; with options.matches, matches. Everything a CheckResult holds is
/// written, so that result_from_json gives it back.
///
///   to_json(result)["verdict"].as_string() == "equivalent";
json::Value to_json(const CheckResult& result, const JsonOptions& options = {});

/// The inverse of to_json: the result an object written by to_json holds (without "matches",
/// none). A missing key, a value of the wrong kind or a layout that does not read on the
/// object's mesh is an error naming the key (`goals[2].text: 'shard(1,pp)' is not a layout on
/// the mesh tp=2`); `file_name` labels it.
///
///   auto back = result_from_json(to_json(r, {.matches = true}), "session.scalify");
///   back->divergence->dist_node == r.divergence->dist_node;
Expected<CheckResult> result_from_json(const json::Value& value,
                                       std::string_view file_name = "<result>");

/// A layout as the JSON fields of DESIGN.md: {"layout": "shard", "dim": 1, "axis": "tp"} for
/// one non-replicated axis, {"layout": "rep"}, or {"layout": "shard(0,dp)+partial(sum,tp)"};
/// always with "text", the layout's text form.
json::Object layout_fields(const Layout& layout, const Mesh& mesh);

}  // namespace scalify::verify
