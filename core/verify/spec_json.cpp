#include "verify/spec_json.h"

namespace scalify::verify {

namespace {

json::Value param_ref(const SpecParamRef& p) {
  return p.name.empty() ? json::Value(p.number) : json::Value(p.name);
}

}  // namespace

json::Value spec_to_json(const Spec& spec) {
  bool has_layout = false;
  for (const SpecParameter& p : spec.parameters) has_layout = has_layout || p.layout;
  for (const SpecOutput& o : spec.outputs) has_layout = has_layout || o.layout;
  const Mesh& mesh = spec.mesh ? *spec.mesh : spec.layout_mesh;
  json::Object out;
  if (spec.mesh || (has_layout && mesh.rank() > 0)) {
    json::Object axes;
    for (const MeshAxis& a : mesh.axes()) axes[a.name] = a.size;
    out["mesh"] = std::move(axes);
    if (!mesh.device_order().empty()) {
      json::Array order;
      for (int64_t d : mesh.device_order()) order.push_back(d);
      out["mesh_devices"] = std::move(order);
    }
  }
  if (!spec.parameters.empty()) {
    json::Array parameters;
    for (const SpecParameter& p : spec.parameters) {
      json::Object j;
      j["dist"] = param_ref(p.dist);
      if (p.no_ref) {
        j["ref"] = nullptr;
      } else if (p.ref) {
        j["ref"] = param_ref(*p.ref);
      }
      if (p.layout) j["layout"] = p.layout->to_string(spec.layout_mesh);
      parameters.push_back(std::move(j));
    }
    out["parameters"] = std::move(parameters);
  }
  if (!spec.outputs.empty()) {
    json::Array outputs;
    for (const SpecOutput& o : spec.outputs) {
      json::Object j;
      j["ref_index"] = o.ref_index;
      j["dist_index"] = o.dist_index ? json::Value(*o.dist_index) : json::Value(nullptr);
      if (o.layout) j["layout"] = o.layout->to_string(spec.layout_mesh);
      outputs.push_back(std::move(j));
    }
    out["outputs"] = std::move(outputs);
  }
  if (spec.strict) out["strict"] = *spec.strict;
  return out;
}

}  // namespace scalify::verify
