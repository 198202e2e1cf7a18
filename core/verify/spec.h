// The `--spec SPEC.json` file: the user's own statement of the mesh, of which distributed
// parameter stands for which reference parameter (and how), and of the output goals. What a
// spec says replaces what scalify would infer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"
#include "support/expected.h"
#include "verify/layout.h"
#include "verify/mesh.h"

namespace scalify::verify {

/// A parameter as a spec names it: by instruction name (without '%') or by parameter number.
struct SpecParamRef {
  std::string name;     ///< empty when given by number
  int64_t number = -1;  ///< -1 when given by name
  SourcePos pos;        ///< where the spec names it

  /// `p7.28` or `parameter 3`.
  std::string to_string() const;
  /// The ENTRY parameter it names in `entry`, or nullopt.
  std::optional<ir::InstrId> resolve(const ir::Computation& entry) const;
};

/// One entry of "parameters".
struct SpecParameter {
  SpecParamRef dist;
  std::optional<SpecParamRef> ref;  ///< absent: inferred (unless no_ref)
  bool no_ref = false;              ///< `"ref": null`: the parameter has no reference counterpart
  std::optional<Layout> layout;     ///< absent: inferred
  SourcePos pos;                    ///< the entry's '{'
  SourcePos layout_pos;             ///< the "layout" value
};

/// One entry of "outputs": element `ref_index` of the reference's ENTRY result (0 when the
/// result is not a tuple) relates by `layout` to element `dist_index` of the distributed one.
struct SpecOutput {
  int64_t ref_index = -1;
  std::optional<int64_t> dist_index;  ///< nullopt (`"dist_index": null`): no counterpart
  std::optional<Layout> layout;       ///< absent: inferred
  SourcePos pos;
  SourcePos layout_pos;
};

/// A parsed spec file. Every key is optional; unknown keys are errors (they are typos).
///
///   {"mesh": {"tp": 2},
///    "parameters": [
///      {"dist": "p7.28", "ref": "p7.28", "layout": "shard", "dim": 1, "axis": "tp"},
///      {"dist": "p16.30", "ref": "p16.30", "layout": "partial(sum,tp)"},
///      {"dist": 25, "layout": "shard(1,tp,pad 50257)"},
///      {"dist": "p3.4", "ref": null}],
///    "outputs": [{"ref_index": 0, "dist_index": 0, "layout": "shard(0,tp)"}],
///    "strict": false}
///
/// - "mesh": axis name to size, in mesh order (major first); `{}` is one device.
/// - "parameters": "dist" (required) and "ref" name a parameter by instruction name or number;
///   "ref": null says the distributed parameter has no counterpart; a missing "ref" or "layout"
///   is inferred. A layout is either the text of Layout::to_string (`rep`, `shard(1,tp)`,
///   `shard(0,tp,pad 50257)`, `partial(sum,tp)`, parts joined by '+') or structured:
///   `"layout": "shard", "dim": D, "axis": A [, "pad": FULL]`, `"layout": "partial", "axis": A
///   [, "op": "sum"]`, `"layout": "rep"`.
/// - "outputs": goals by result tuple index; "dist_index": null says the reference output has no
///   counterpart.
/// - "strict": fail when something has no counterpart.
struct Spec {
  std::string file;  ///< labels diagnostics
  std::string text;  ///< the file's text, for the lines shown in diagnostics
  std::optional<Mesh> mesh;
  SourcePos mesh_pos;
  /// The mesh the layouts were read against: `mesh`, else the caller's, else one device.
  Mesh layout_mesh;
  std::vector<SpecParameter> parameters;
  std::vector<SpecOutput> outputs;
  std::optional<bool> strict;

  /// A diagnostic at `pos` of this file, with its line.
  Diagnostic error_at(SourcePos pos, std::string message) const;
};

/// Parses a spec. Layouts are read against the spec's "mesh", or `mesh_if_absent` when the
/// spec has none (a layout naming an axis is then an error if that is null too).
///
///   auto spec = parse_spec(R"({"mesh": {"tp": 2}, "parameters": [{"dist": 7, "layout": "rep"}]})",
///                          "spec.json");
///   spec->parameters[0].dist.number == 7;
///
/// Errors point into the file: `spec.json:3:42: error: unknown axis 'pp' in layout
/// 'shard(1,pp)' (the mesh has tp)`.
Expected<Spec> parse_spec(std::string_view text, std::string_view file_name,
                          const Mesh* mesh_if_absent = nullptr);

/// Reads and parses the file at `path` (a diagnostic when it cannot be read).
Expected<Spec> read_spec(const std::string& path, const Mesh* mesh_if_absent = nullptr);

/// Checks a spec against the two programs and the mesh in use: every parameter it names
/// exists (and is named once), output indices are in range, the spec's mesh is `mesh`, and every
/// stated layout relates the two types (same element type; the distributed dims grown by the
/// layout are the reference dims). nullopt when all is well.
///
///   if (auto error = check_spec(*spec, ref, dist, mesh)) std::cerr << error->format();
///   // spec.json:4:15: error: the distributed program has no parameter 'p7.29'
std::optional<Diagnostic> check_spec(const Spec& spec, const ir::Module& ref,
                                     const ir::Module& dist, const Mesh& mesh);

/// Why `layout` cannot relate a distributed value of type `dist` to a reference value of type
/// `ref` (element types differ, or the distributed dims grown by the layout are not the
/// reference dims); "" when it does.
///
///   layout_misfit(shard(1,tp), f32[4096,2048], f32[4096,4096], tp=2) == "";
///   layout_misfit(rep, f32[4096,2048], f32[4096,4096], tp=2)
///       == "the layout makes f32[4096,2048] a f32[4096,2048], not f32[4096,4096]";
std::string layout_misfit(const Layout& layout, const ir::Type& dist, const ir::Type& ref,
                          const Mesh& mesh);

}  // namespace scalify::verify
