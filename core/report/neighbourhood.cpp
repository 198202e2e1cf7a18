#include "report/neighbourhood.h"

#include <algorithm>
#include <deque>
#include <map>

namespace scalify::report {

Neighbourhood neighbourhood(const ir::Module& m, std::string_view name, int up, size_t max_nodes) {
  Neighbourhood out;
  const ir::Computation& c = m.entry();
  const auto center = c.find(name);
  if (!center) return out;
  std::vector<std::vector<ir::InstrId>> users(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    for (ir::InstrId o : c.instructions[i].operands) {
      users[static_cast<size_t>(o)].push_back(static_cast<ir::InstrId>(i));
    }
  }
  // Breadth first, nearest first: operands up to `up` hops, then the readers of the center.
  std::map<ir::InstrId, int> distance{{*center, 0}};
  std::deque<ir::InstrId> queue{*center};
  while (!queue.empty() && distance.size() < max_nodes) {
    const ir::InstrId id = queue.front();
    queue.pop_front();
    if (distance[id] >= up) continue;
    for (ir::InstrId o : c[id].operands) {
      if (distance.size() >= max_nodes) break;
      if (distance.emplace(o, distance[id] + 1).second) queue.push_back(o);
    }
  }
  for (ir::InstrId u : users[static_cast<size_t>(*center)]) {
    if (distance.size() >= max_nodes) break;
    distance.emplace(u, 1);
  }
  std::map<ir::InstrId, size_t> index;  // ids in program order
  for (const auto& [id, d] : distance) {
    index.emplace(id, out.nodes.size());
    const ir::Instruction& instr = c[id];
    out.nodes.push_back(
        {instr.name, instr.opcode_text() + "  " + instr.type.to_string(false), id == *center});
  }
  for (const auto& [id, i] : index) {
    for (ir::InstrId o : c[id].operands) {
      const auto from = index.find(o);
      if (from != index.end()) out.edges.emplace_back(from->second, i);
    }
  }
  std::sort(out.edges.begin(), out.edges.end());
  out.edges.erase(std::unique(out.edges.begin(), out.edges.end()), out.edges.end());
  return out;
}

}  // namespace scalify::report
