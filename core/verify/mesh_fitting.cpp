#include "verify/mesh_fitting.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "verify/bijection.h"

namespace scalify::verify {

namespace {

/// At most this many distinct meshes are tried (each costs a pass over the annotations).
constexpr size_t kMaxCandidates = 24;

/// A tiled annotation and the rank of the value it annotates (tuple elements one by one).
struct Annotation {
  const ir::Sharding* sharding = nullptr;
  int64_t rank = 0;
  const ir::Instruction* instr = nullptr;
};

void collect(const ir::Sharding& s, const ir::Type& type, const ir::Instruction& instr,
             std::vector<Annotation>& out) {
  if (s.kind == ir::Sharding::Kind::kTiled && type.is_array()) {
    out.push_back({&s, type.rank(), &instr});
  } else if (s.kind == ir::Sharding::Kind::kTuple && type.is_tuple()) {
    const auto& elements = type.elements();
    for (size_t e = 0; e < s.elements.size() && e < elements.size(); ++e) {
      collect(s.elements[e], elements[e], instr, out);
    }
  }
}

/// An all-reduce, whose groups are sets (collectives.cpp reads them so too).
bool is_all_reduce(const ir::Instruction& instr) {
  const ir::Opcode op = instr.async_wrapped ? *instr.async_wrapped : instr.opcode;
  return op == ir::Opcode::kAllReduce || op == ir::Opcode::kAllReduceStart;
}

/// How well `mesh` reads the program: each annotation that is a layout on it counts twice, each
/// collective whose groups are mesh axes once.
size_t fits(const Mesh& mesh, const std::vector<Annotation>& annotations,
            const std::vector<const ir::Instruction*>& grouped) {
  size_t n = 0;
  for (const Annotation& a : annotations) {
    n += layout_from_sharding(*a.sharding, a.rank, mesh, nullptr).has_value() ? 2 : 0;
  }
  for (const ir::Instruction* c : grouped) {
    n += mesh.axes_of(*c->replica_groups(), !is_all_reduce(*c)) ? 1 : 0;
  }
  return n;
}

/// Names for a mesh of `k` axes: `tp` alone; `dp,tp`; `dp,fsdp,tp`; `dp,fsdp,sp,tp`; beyond
/// that numbered.
std::vector<std::string> axis_names(size_t k) {
  switch (k) {
    case 1:
      return {"tp"};
    case 2:
      return {"dp", "tp"};
    case 3:
      return {"dp", "fsdp", "tp"};
    case 4:
      return {"dp", "fsdp", "sp", "tp"};
    default: {
      std::vector<std::string> names;
      for (size_t a = 0; a < k; ++a) names.push_back("a" + std::to_string(a));
      return names;
    }
  }
}

Mesh mesh_of_sizes(const std::vector<int64_t>& sizes) {
  const std::vector<std::string> names = axis_names(sizes.size());
  std::vector<MeshAxis> axes;
  for (size_t a = 0; a < sizes.size(); ++a) axes.push_back({names[a], sizes[a]});
  return Mesh(std::move(axes));
}

/// The meshes of `n` devices an annotation's tile grid is made of: its tile dims above 1 as
/// axes, major to minor as the devices step along them (read in the iota order: `<=[2,4]`,
/// `<=[4,2]T(1,0)`), and row-major in the order of its device list.
std::vector<Mesh> grid_meshes(const ir::Sharding& s, const std::vector<int64_t>& list) {
  const std::vector<int64_t>& tiles = s.tile_dims;
  std::vector<int64_t> stride(tiles.size(), 1);
  for (size_t k = tiles.size(); k-- > 1;) stride[k - 1] = stride[k] * tiles[k];
  std::vector<size_t> dims;
  for (size_t k = 0; k < tiles.size(); ++k) {
    if (tiles[k] > 1) dims.push_back(k);
  }
  if (dims.size() < 2) return {};
  std::vector<int64_t> sizes;
  for (size_t k : dims) sizes.push_back(tiles[k]);
  std::vector<Mesh> out;
  if (auto listed = mesh_of_sizes(sizes).with_device_order(list)) out.push_back(*listed);
  // The step in device number one tile along each dim.
  std::vector<int64_t> step;
  for (size_t k : dims) step.push_back(list[static_cast<size_t>(stride[k])] - list[0]);
  std::vector<size_t> by_step(dims.size());
  std::iota(by_step.begin(), by_step.end(), 0);
  std::sort(by_step.begin(), by_step.end(), [&](size_t a, size_t b) { return step[a] > step[b]; });
  std::vector<int64_t> stepped;
  for (size_t i : by_step) stepped.push_back(sizes[i]);
  if (stepped != sizes) out.push_back(mesh_of_sizes(stepped));
  return out;
}

}  // namespace

Mesh fit_mesh(const Mesh& mesh, const ir::Module& dist, std::string* why) {
  if (mesh.device_count() <= 1) return mesh;
  std::vector<Annotation> annotations;
  std::vector<const ir::Instruction*> grouped;
  for (const ir::Computation& c : dist.computations) {
    for (const ir::Instruction& instr : c.instructions) {
      if (const ir::Sharding* s = instr.sharding()) collect(*s, instr.type, instr, annotations);
      const ir::ReplicaGroups* groups = instr.replica_groups();
      if (groups && !groups->groups.empty()) grouped.push_back(&instr);
    }
  }
  const size_t n = static_cast<size_t>(mesh.device_count());
  std::set<std::string> tried{mesh.to_string()};
  Mesh best = mesh;
  size_t best_fits = fits(mesh, annotations, grouped);
  const Annotation* source = nullptr;
  auto consider = [&](const Mesh& candidate, const Annotation& a) {
    if (tried.size() >= kMaxCandidates || !tried.insert(candidate.to_string()).second) return;
    const size_t f = fits(candidate, annotations, grouped);
    if (f > best_fits) {
      best = candidate;
      best_fits = f;
      source = &a;
    }
  };
  for (const Annotation& a : annotations) {
    std::vector<int64_t> list = a.sharding->device_list();
    if (list.size() != n) continue;
    if (auto ordered = mesh.with_device_order(list)) consider(*ordered, a);
    if (mesh.rank() == 1) {
      for (const Mesh& m : grid_meshes(*a.sharding, list)) consider(m, a);
    }
  }
  if (why && source) {
    *why = best.to_string() + " as " + source->instr->name +
           "'s sharding=" + source->sharding->to_string() + " lays out the devices";
  }
  return best;
}

}  // namespace scalify::verify
