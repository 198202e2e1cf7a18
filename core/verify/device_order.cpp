#include "verify/device_order.h"

#include <algorithm>
#include <set>

#include "verify/bijection.h"

namespace scalify::verify {

namespace {

/// At most this many distinct device lists are tried (each costs a pass over the annotations).
constexpr size_t kMaxCandidates = 16;

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

/// How many of the annotations read as layouts and of the groups as mesh axes on `mesh`, an
/// annotation counting twice: it states which device holds which block, where a collective
/// may be the very bug being looked for.
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

}  // namespace

Mesh order_devices(const Mesh& mesh, const ir::Module& dist, std::string* why) {
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
  std::set<std::vector<int64_t>> tried;
  Mesh best = mesh;
  size_t best_fits = fits(mesh, annotations, grouped);
  const Annotation* source = nullptr;
  for (const Annotation& a : annotations) {
    if (tried.size() >= kMaxCandidates) break;
    std::vector<int64_t> order = a.sharding->device_list();
    if (order.size() != n || !tried.insert(order).second) continue;
    const std::optional<Mesh> candidate = mesh.with_device_order(std::move(order));
    if (!candidate || candidate->device_order().empty()) continue;  // not a permutation, or iota
    const size_t f = fits(*candidate, annotations, grouped);
    if (f > best_fits) {
      best = *candidate;
      best_fits = f;
      source = &a;
    }
  }
  if (why && source) {
    *why = "devices in the order of " + source->instr->name +
           "'s sharding=" + source->sharding->to_string();
  }
  return best;
}

}  // namespace scalify::verify
