// What the user pinned in the bijection table: for some distributed parameters, the reference
// parameter they hold and the layout relating them. Carried into the check as the spec that
// `scalify check --spec` reads (verify/spec.h), so the window and the command line pin
// bindings the same way.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "ir/module.h"
#include "verify/layout.h"
#include "verify/mesh.h"
#include "verify/spec.h"

namespace scalify::views {

/// One pinned binding: `ref` is the reference parameter's name, or nullopt when the
/// distributed parameter has no counterpart (the spec's `"ref": null`).
struct ParameterOverride {
  std::optional<std::string> ref;
  verify::Layout layout;
  friend bool operator==(const ParameterOverride&, const ParameterOverride&) = default;
};

/// The overrides by distributed parameter name, in name order.
///
///   BijectionOverrides o;
///   o.set("p3.4", {"p3.4", *verify::Layout::parse("partial(sum,tp)", mesh)});
///   verify::Spec spec = o.to_spec(mesh);      // one "parameters" entry
///   o.misfit(ref, dist, mesh);                // "" when check() accepts it
class BijectionOverrides {
 public:
  bool empty() const { return by_dist_.empty(); }
  size_t size() const { return by_dist_.size(); }
  /// The override of `dist`, or nullptr.
  const ParameterOverride* find(const std::string& dist) const;
  void set(const std::string& dist, ParameterOverride value);
  /// false when `dist` had none.
  bool erase(const std::string& dist);
  void clear() { by_dist_.clear(); }

  /// The spec that pins these bindings, its layouts read against `mesh` (the mesh itself is
  /// left to inference, as for a spec file without "mesh").
  verify::Spec to_spec(const verify::Mesh& mesh) const;
  /// The overrides a spec pins (the inverse of to_spec, for a saved session): each parameter
  /// entry by name, with its reference parameter and layout, or "ref": null. A spec that says
  /// more than the table can show (parameters by number, a reference without a layout, outputs)
  /// is an error.
  static Expected<BijectionOverrides> from_spec(const verify::Spec& spec);
  /// Why the check would refuse these overrides on the two programs (an unknown parameter, a
  /// reference parameter bound twice, a layout that does not relate the two types), as one
  /// sentence; "" when it accepts them.
  std::string misfit(const ir::Module& ref, const ir::Module& dist, const verify::Mesh& mesh) const;

  friend bool operator==(const BijectionOverrides&, const BijectionOverrides&) = default;

 private:
  std::map<std::string, ParameterOverride> by_dist_;
};

}  // namespace scalify::views
