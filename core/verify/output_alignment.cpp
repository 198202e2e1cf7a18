#include "verify/output_alignment.h"

#include "verify/bijection.h"

namespace scalify::verify {

namespace {

std::vector<ir::Type> output_types(const ir::Module& m) {
  const ir::Computation& c = m.entry();
  const ir::Type& t = c[c.root].type;
  return t.is_tuple() ? t.elements() : std::vector<ir::Type>{t};
}

/// How well a distributed output of type `d` may stand for a reference output of type `r`:
/// 2 for the same shape, 1 for a shard of it, nullopt when it cannot.
std::optional<int> fit(const ir::Type& r, const ir::Type& d, const Mesh& mesh) {
  if (!r.is_array() || !d.is_array() || r.dtype() != d.dtype() || r.rank() != d.rank()) {
    return std::nullopt;
  }
  if (r.dims() == d.dims()) return 2;
  if (!shape_layouts(d.dims(), r.dims(), mesh).empty()) return 1;
  return std::nullopt;
}

}  // namespace

std::vector<OutputBinding> infer_output_bindings(const ir::Module& ref, const ir::Module& dist,
                                                 const Mesh& mesh) {
  const std::vector<ir::Type> r = output_types(ref), d = output_types(dist);
  bool by_position = r.size() == d.size();
  for (size_t i = 0; by_position && i < r.size(); ++i)
    by_position = fit(r[i], d[i], mesh).has_value();
  if (by_position) return {};
  const std::vector<int> aligned = align_parameters(
      r.size(), d.size(), [&](size_t ri, size_t di) { return fit(r[ri], d[di], mesh); });
  std::vector<OutputBinding> out(r.size());
  for (size_t i = 0; i < r.size(); ++i) out[i].ref_index = static_cast<int64_t>(i);
  for (size_t di = 0; di < aligned.size(); ++di) {
    if (aligned[di] >= 0)
      out[static_cast<size_t>(aligned[di])].dist_index = static_cast<int64_t>(di);
  }
  return out;
}

}  // namespace scalify::verify
