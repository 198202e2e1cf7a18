// The neighbourhood of one node of a program: the nodes that feed it (a few hops up) and the
// nodes that read it (one hop down), as a small graph for a report's drawing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/module.h"

namespace scalify::report {

struct Neighbourhood {
  struct Node {
    std::string name;   ///< the instruction's name
    std::string label;  ///< "add  f32[8,16]"
    bool center = false;
  };
  std::vector<Node> nodes;                       ///< in the program's order
  std::vector<std::pair<size_t, size_t>> edges;  ///< operand → user, indices into nodes
};

/// The nodes of the entry computation of `m` within `up` operand hops of `name` and within one
/// user hop, at most `max_nodes` (the nearest first); empty when `name` is not in the entry.
///
///   Neighbourhood n = neighbourhood(dist, "tanh.12");
///   // tanh.12 (center), its operand and the operand's operands, and the nodes that read tanh.12
Neighbourhood neighbourhood(const ir::Module& m, std::string_view name, int up = 2,
                            size_t max_nodes = 24);

}  // namespace scalify::report
