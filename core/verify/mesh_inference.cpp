#include "verify/mesh_inference.h"

#include <algorithm>
#include <cmath>

#include "verify/bijection.h"
#include "verify/mesh_fitting.h"
#include "verify/term_bridge.h"

namespace scalify::verify {

namespace {

using ir::InstrId;
using ir::Instruction;

Mesh one_axis(int64_t size) { return Mesh({MeshAxis{"tp", size}}); }

bool is_collective_instr(const Instruction& instr) {
  return ir::is_collective(instr.opcode) ||
         (instr.async_wrapped && ir::is_collective(*instr.async_wrapped));
}

/// The collectives of every computation, with the devices they name.
struct CollectiveUse {
  const Instruction* instr = nullptr;
  int64_t max_device = -1;  ///< the largest device id named
  int64_t group_size = 0;   ///< the largest replica group (0: none given)
};

std::vector<CollectiveUse> collectives(const ir::Module& m) {
  std::vector<CollectiveUse> out;
  for (const ir::Computation& c : m.computations) {
    for (const Instruction& instr : c.instructions) {
      if (!is_collective_instr(instr)) continue;
      CollectiveUse use{&instr, -1, 0};
      if (const ir::ReplicaGroups* groups = instr.replica_groups()) {
        for (const auto& group : groups->groups) {
          use.group_size = std::max(use.group_size, static_cast<int64_t>(group.size()));
          for (int64_t d : group) use.max_device = std::max(use.max_device, d);
        }
      }
      if (const auto* pairs = instr.get<ir::SourceTargetPairs>("source_target_pairs")) {
        for (const auto& [source, target] : *pairs) {
          use.max_device = std::max({use.max_device, source, target});
        }
      }
      if (use.max_device >= 0) out.push_back(use);
    }
  }
  return out;
}

std::string groups_text(const Instruction& instr) {
  if (const ir::ReplicaGroups* groups = instr.replica_groups()) {
    if (groups->iota) return groups->iota->to_string();
    std::string out = "{";
    for (const auto& group : groups->groups) {
      out += out.size() > 1 ? ",{" : "{";
      for (size_t i = 0; i < group.size(); ++i) {
        if (i > 0) out += ',';
        out += std::to_string(group[i]);
      }
      out += "}";
    }
    return out + "}";
  }
  return "source_target_pairs";
}

std::optional<InferredMesh> from_collectives(const std::vector<CollectiveUse>& uses) {
  if (uses.empty()) return std::nullopt;
  const CollectiveUse* widest = &uses[0];
  int64_t n = 0, g = 0;
  for (const CollectiveUse& use : uses) {
    n = std::max(n, use.max_device + 1);
    if (use.group_size > g) {
      g = use.group_size;
      widest = &use;
    }
  }
  if (n <= 1) return std::nullopt;
  const std::string evidence =
      ": the replica groups of " + widest->instr->name + " (" + groups_text(*widest->instr) + ")";
  if (g > 1 && g < n && n % g == 0) {
    const Mesh two({MeshAxis{"dp", n / g}, MeshAxis{"tp", g}});
    bool fits = true;
    for (const CollectiveUse& use : uses) {
      const ir::ReplicaGroups* groups = use.instr->replica_groups();
      if (groups && !groups->groups.empty() && !two.axes_of(*groups)) fits = false;
    }
    if (fits)
      return InferredMesh{two,
                          two.to_string() + evidence + ", over " + std::to_string(n) + " devices"};
  }
  const Mesh mesh = one_axis(n);
  return InferredMesh{mesh, mesh.to_string() + evidence};
}

void sharding_devices(const ir::Sharding& s, int64_t& n) {
  if (s.kind == ir::Sharding::Kind::kTiled) {
    n = std::max(n, static_cast<int64_t>(s.device_list().size()));
  } else if (s.kind == ir::Sharding::Kind::kMaximal) {
    n = std::max(n, s.device + 1);
  }
  for (const ir::Sharding& e : s.elements) sharding_devices(e, n);
}

std::optional<InferredMesh> from_shardings(const ir::Module& m) {
  int64_t n = 0;
  std::string where;
  for (const ir::Computation& c : m.computations) {
    for (const Instruction& instr : c.instructions) {
      if (const ir::Sharding* s = instr.sharding()) {
        const int64_t before = n;
        sharding_devices(*s, n);
        if (n > before) where = instr.name + " (sharding=" + s->to_string() + ")";
      }
    }
  }
  if (n <= 1) return std::nullopt;
  const Mesh mesh = one_axis(n);
  return InferredMesh{mesh, mesh.to_string() + ": the devices of " + where};
}

std::optional<InferredMesh> from_shapes(const ir::Module& ref, const ir::Module& dist) {
  std::vector<ir::InstrId> rp, dp;
  for (ir::InstrId id : ref.entry().parameters()) {
    if (id >= 0) rp.push_back(id);
  }
  for (ir::InstrId id : dist.entry().parameters()) {
    if (id >= 0) dp.push_back(id);
  }
  const auto& R = ref.entry();
  const auto& D = dist.entry();
  // Pairs that could be one value split along some dims, whatever the split.
  const auto score = [&](size_t r, size_t d) -> std::optional<int> {
    const ir::Type& u = R[rp[r]].type;
    const ir::Type& t = D[dp[d]].type;
    if (!u.is_array() || !t.is_array() || u.dtype() != t.dtype() || u.rank() != t.rank()) {
      return t.compatible(u) ? std::optional<int>(120) : std::nullopt;
    }
    bool equal = true;
    for (int64_t k = 0; k < t.rank(); ++k) {
      if (t.dim(k) == u.dim(k)) continue;
      if (t.dim(k) <= 0 || t.dim(k) > u.dim(k)) return std::nullopt;
      equal = false;
    }
    int s = equal ? 120 : 110;
    if (R[rp[r]].name == D[dp[d]].name) s += 30;
    if (R[rp[r]].parameter_number == D[dp[d]].parameter_number) s += 1;
    return s;
  };
  const std::vector<int> match = align_parameters(rp.size(), dp.size(), score);
  std::vector<std::pair<int64_t, int64_t>> split;  // (dist extent, ref extent)
  std::vector<int64_t> ratios;
  std::string example;
  for (size_t d = 0; d < dp.size(); ++d) {
    if (match[d] < 0) continue;
    const ir::Type& t = D[dp[d]].type;
    const ir::Type& u = R[rp[static_cast<size_t>(match[d])]].type;
    if (!t.is_array() || !u.is_array() || t.rank() != u.rank()) continue;
    for (int64_t k = 0; k < t.rank(); ++k) {
      if (t.dim(k) == u.dim(k)) continue;
      split.emplace_back(t.dim(k), u.dim(k));
      if (u.dim(k) % t.dim(k) == 0) ratios.push_back(u.dim(k) / t.dim(k));
      if (example.empty()) {
        example = D[dp[d]].name + " " + t.to_string(false) + " against " +
                  R[rp[static_cast<size_t>(match[d])]].name + " " + u.to_string(false);
      }
    }
  }
  if (split.empty()) return std::nullopt;
  std::sort(ratios.begin(), ratios.end());
  int64_t n = 0;
  for (int64_t candidate : ratios) {
    const bool fits = std::all_of(split.begin(), split.end(),
                                  [&](const auto& p) { return p.first * candidate >= p.second; });
    if (fits) {
      n = candidate;
      break;
    }
  }
  if (n == 0) {
    for (const auto& [local, full] : split) n = std::max(n, (full + local - 1) / local);
  }
  if (n <= 1) return std::nullopt;
  const Mesh mesh = one_axis(n);
  return InferredMesh{mesh, mesh.to_string() + ": parameter shapes, e.g. " + example};
}

/// The evidence that `dist` is a program the SPMD partitioner has not run on yet (JAX's
/// `before_optimizations` dump, a module with `Sharding` custom calls): it communicates nothing,
/// and an entry parameter annotated as split over several devices still has the shape of the
/// reference parameter at its position. Its values are whole arrays, the annotations only ask
/// for a layout: it is one device's program. nullopt when any annotated split shows in a shape.
std::optional<std::string> unpartitioned(const ir::Module& ref, const ir::Module& dist,
                                         const std::vector<CollectiveUse>& uses) {
  if (!uses.empty()) return std::nullopt;
  const auto rp = ref.entry().parameters(), dp = dist.entry().parameters();
  if (rp.size() != dp.size()) return std::nullopt;
  std::optional<std::string> evidence;
  for (size_t k = 0; k < dp.size(); ++k) {
    if (rp[k] < 0 || dp[k] < 0) continue;
    const Instruction& d = dist.entry()[dp[k]];
    const ir::Type& r = ref.entry()[rp[k]].type;
    const ir::Sharding* s = d.sharding();
    if (!s || s->kind != ir::Sharding::Kind::kTiled || !d.type.is_array() || !r.is_array() ||
        d.type.rank() != r.rank() || static_cast<int64_t>(s->tile_dims.size()) < r.rank()) {
      continue;
    }
    for (int64_t dim = 0; dim < r.rank(); ++dim) {
      const int64_t tiles = s->tile_dims[static_cast<size_t>(dim)];
      // Split, the dim would hold ceil(extent / tiles) (padded shards): a split of an extent of
      // 1 cannot show, but one of 2 over 8 devices would leave 1.
      const int64_t split = tiles > 1 ? (r.dim(dim) + tiles - 1) / tiles : r.dim(dim);
      if (split == r.dim(dim)) continue;  // a split that cannot show
      if (d.type.dim(dim) != r.dim(dim)) return std::nullopt;
      if (!evidence) {
        evidence = d.name + " " + d.type.to_string(false) +
                   " is annotated sharding=" + s->to_string() +
                   " but has the shape of reference parameter " + ref.entry()[rp[k]].name;
      }
    }
  }
  return evidence;
}

/// Whether collective `instr` spans every device without naming them (`replica_groups={}`).
bool spans_unnamed_devices(const Instruction& instr) {
  if (!is_collective_instr(instr) || instr.get<ir::SourceTargetPairs>("source_target_pairs")) {
    return false;
  }
  const ir::ReplicaGroups& groups = instr.replica_groups_or_all();
  return !groups.iota && groups.groups.empty();
}

/// Whether `instr` sums over every device without naming them.
bool sums_over_all_devices(const Instruction& instr) {
  return (instr.opcode == ir::Opcode::kAllReduce || instr.opcode == ir::Opcode::kAllReduceStart) &&
         spans_unnamed_devices(instr);
}

/// N when `id` is a constant 1/N (an integer N of 2 or more) or is computed from one through
/// broadcasts, conversions and scalar products (`broadcast(multiply(lr, 0.5))`).
std::optional<int64_t> reciprocal_factor(const ir::Computation& c, ir::InstrId id, int depth) {
  const Instruction& instr = c[id];
  if (instr.opcode == ir::Opcode::kConstant) {
    const std::optional<double> v = scalar_value(instr);
    if (!v || !ir::is_float(instr.type.dtype()) || !(*v > 0 && *v <= 0.5)) return std::nullopt;
    const double n = std::round(1 / *v);
    if (std::abs(n * *v - 1) > 1e-6) return std::nullopt;
    return static_cast<int64_t>(n);
  }
  if (depth == 0) return std::nullopt;
  const bool passes = instr.opcode == ir::Opcode::kBroadcast ||
                      instr.opcode == ir::Opcode::kConvert ||
                      instr.opcode == ir::Opcode::kReshape ||
                      (instr.opcode == ir::Opcode::kMultiply && instr.type.element_count() == 1);
  if (!passes) return std::nullopt;
  for (ir::InstrId o : instr.operands) {
    if (auto n = reciprocal_factor(c, o, depth - 1)) return n;
  }
  return std::nullopt;
}

/// A sum over every device that nothing counts, scaled by 1/N right after (torch-xla's
/// `all_reduce(SUM, grads, scale=1.0 / world_size)` in data-parallel training): N devices.
std::optional<InferredMesh> from_mean_scale(const ir::Module& m) {
  for (const ir::Computation& c : m.computations) {
    // The sums and the elements taken from them, then a product with 1/N of either.
    std::vector<InstrId> summed(c.size(), -1);  // value -> the all-reduce it comes from
    for (size_t i = 0; i < c.size(); ++i) {
      const Instruction& instr = c.instructions[i];
      if (sums_over_all_devices(instr)) {
        summed[i] = static_cast<InstrId>(i);
      } else if ((instr.opcode == ir::Opcode::kGetTupleElement ||
                  instr.opcode == ir::Opcode::kAllReduceDone) &&
                 instr.operands.size() == 1) {
        summed[i] = summed[static_cast<size_t>(instr.operands[0])];
      }
    }
    for (const Instruction& instr : c.instructions) {
      if (instr.opcode != ir::Opcode::kMultiply || instr.operands.size() != 2) continue;
      for (size_t k = 0; k < 2; ++k) {
        const InstrId sum = summed[static_cast<size_t>(instr.operands[k])];
        if (sum < 0) continue;
        const auto n = reciprocal_factor(c, instr.operands[1 - k], 3);
        if (!n) continue;
        const Mesh mesh({MeshAxis{"dp", *n}});
        return InferredMesh{mesh, mesh.to_string() + ": " + c[sum].name +
                                      " sums over every device (replica_groups={}) and " +
                                      instr.name + " scales the sum by 1/" + std::to_string(*n) +
                                      " (a mean over " + std::to_string(*n) + " devices)"};
      }
    }
  }
  return std::nullopt;
}

/// The axes and sizes of the mesh (in the iota device order).
Expected<InferredMesh> infer_axes(const ir::Module& ref, const ir::Module& dist,
                                  std::string_view dist_file) {
  const int64_t partitions = dist.num_partitions(), replicas = dist.replica_count();
  const std::vector<CollectiveUse> uses = collectives(dist);
  if (const auto whole = unpartitioned(ref, dist, uses)) {
    return InferredMesh{Mesh(), "one device: DIST is not partitioned yet (" + *whole +
                                    "); its values are whole arrays, its annotations requests"};
  }
  if (partitions > 1 || replicas > 1) {
    InferredMesh out;
    if (partitions > 1 && replicas > 1) {
      out.mesh = Mesh({MeshAxis{"dp", replicas}, MeshAxis{"tp", partitions}});
      out.why = out.mesh.to_string() + ": replica_count=" + std::to_string(replicas) +
                " and num_partitions=" + std::to_string(partitions) + " in the header";
    } else {
      const bool by_partitions = partitions > 1;
      out.mesh = one_axis(by_partitions ? partitions : replicas);
      out.why = out.mesh.to_string() + ": " +
                (by_partitions ? "num_partitions=" : "replica_count=") +
                std::to_string(out.mesh.device_count()) + " in the header";
    }
    for (const CollectiveUse& use : uses) {
      if (use.max_device >= out.mesh.device_count()) {
        return Diagnostic{std::string(dist_file), use.instr->pos,
                          use.instr->name + " names device " + std::to_string(use.max_device) +
                              ", but the header gives " + std::to_string(out.mesh.device_count()) +
                              " devices",
                          ""};
      }
    }
    return out;
  }
  if (auto m = from_collectives(uses)) return *m;
  if (auto m = from_shardings(dist)) return *m;
  if (auto m = from_shapes(ref, dist)) return *m;
  if (auto m = from_mean_scale(dist)) return *m;
  // A collective over every device (`replica_groups={}`) that nothing counts.
  for (const ir::Computation& c : dist.computations) {
    for (const Instruction& instr : c.instructions) {
      if (!spans_unnamed_devices(instr)) continue;
      return InferredMesh{Mesh(), "one device: " + instr.name +
                                      " spans every device (replica_groups={}), but neither the "
                                      "header nor shardings nor shape ratios say how many there "
                                      "are: give them with --mesh (say dp=2)"};
    }
  }
  return InferredMesh{Mesh(),
                      "one device: no partitions, collectives, shardings or shape ratios say "
                      "otherwise"};
}

}  // namespace

Expected<InferredMesh> infer_mesh_explained(const ir::Module& ref, const ir::Module& dist,
                                            std::string_view dist_file) {
  Expected<InferredMesh> m = infer_axes(ref, dist, dist_file);
  if (!m) return m;
  std::string fitted;
  m->mesh = fit_mesh(m->mesh, dist, &fitted);
  if (!fitted.empty()) m->why += "; " + fitted;
  return m;
}

Expected<Mesh> infer_mesh(const ir::Module& ref, const ir::Module& dist,
                          std::string_view dist_file) {
  Expected<InferredMesh> m = infer_mesh_explained(ref, dist, dist_file);
  if (!m) return m.error();
  return m->mesh;
}

}  // namespace scalify::verify
