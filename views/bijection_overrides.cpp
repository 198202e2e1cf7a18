#include "views/bijection_overrides.h"

namespace scalify::views {

namespace {

constexpr const char* kLabel = "the bijection table";

}  // namespace

const ParameterOverride* BijectionOverrides::find(const std::string& dist) const {
  const auto it = by_dist_.find(dist);
  return it == by_dist_.end() ? nullptr : &it->second;
}

void BijectionOverrides::set(const std::string& dist, ParameterOverride value) {
  by_dist_[dist] = std::move(value);
}

bool BijectionOverrides::erase(const std::string& dist) { return by_dist_.erase(dist) > 0; }

verify::Spec BijectionOverrides::to_spec(const verify::Mesh& mesh) const {
  verify::Spec spec;
  spec.file = kLabel;
  spec.layout_mesh = mesh;
  uint32_t line = 0;
  for (const auto& [dist, o] : by_dist_) {
    verify::SpecParameter p;
    p.pos = {++line, 1};
    p.layout_pos = p.pos;
    p.dist.name = dist;
    p.dist.pos = p.pos;
    if (o.ref) {
      p.ref = verify::SpecParamRef{*o.ref, -1, p.pos};
      p.layout = o.layout;
    } else {
      p.no_ref = true;
    }
    spec.parameters.push_back(std::move(p));
  }
  return spec;
}

Expected<BijectionOverrides> BijectionOverrides::from_spec(const verify::Spec& spec) {
  BijectionOverrides out;
  for (const verify::SpecParameter& p : spec.parameters) {
    if (p.dist.name.empty()) {
      return spec.error_at(p.pos, "the bijection table pins parameters by name, not by number");
    }
    if (p.no_ref) {
      out.set(p.dist.name, {std::nullopt, verify::Layout::replicated(spec.layout_mesh.rank())});
    } else if (p.ref && !p.ref->name.empty() && p.layout) {
      out.set(p.dist.name, {p.ref->name, *p.layout});
    } else {
      return spec.error_at(p.pos,
                           "the bijection table pins a reference parameter by name and "
                           "its layout together");
    }
  }
  if (!spec.outputs.empty() || spec.strict) {
    return Diagnostic{spec.file, {}, "the bijection table pins no outputs and no strictness", ""};
  }
  return out;
}

std::string BijectionOverrides::misfit(const ir::Module& ref, const ir::Module& dist,
                                       const verify::Mesh& mesh) const {
  const std::optional<Diagnostic> error = verify::check_spec(to_spec(mesh), ref, dist, mesh);
  return error ? error->message : std::string();
}

}  // namespace scalify::views
