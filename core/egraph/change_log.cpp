#include "egraph/change_log.h"

#include <algorithm>

namespace scalify::egraph {

std::vector<bool> ChangeLog::changed(const EGraph& g, size_t since) const {
  std::vector<bool> out(g.id_count(), false);
  for_each_touched(g, since, [&out](ClassId c) { out[c] = true; });
  return out;
}

std::vector<ClassId> ChangeLog::near(const EGraph& g, size_t since, uint32_t height) const {
  std::vector<bool> seen(g.id_count(), false);
  std::vector<ClassId> found, frontier;
  auto visit = [&](ClassId c) {
    if (seen[c]) return;
    seen[c] = true;
    found.push_back(c);
    frontier.push_back(c);
  };
  for_each_touched(g, since, visit);
  for (uint32_t step = 1; step < height && !frontier.empty(); ++step) {
    std::vector<ClassId> level;
    level.swap(frontier);
    for (ClassId c : level) g.for_each_parent_class(c, visit);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace scalify::egraph
