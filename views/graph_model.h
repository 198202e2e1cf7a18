// What a graph pane shows, built from a module's ENTRY: every instruction for a small program;
// for a big one, an overview with one box per layer (`op_name` scopes, verify/partition.h) whose
// instructions are shown, on demand, as a graph of their own.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/module.h"

namespace scalify::views {

/// One box of a view graph: an instruction, or a group (a layer) of instructions.
struct ViewNode {
  std::string name;       ///< the instruction's name; a group's title ("layer 17")
  std::string op;         ///< the opcode text; empty for a group
  std::string shape;      ///< "f32[8,128]"; a group's instruction count
  std::string op_name;    ///< metadata op_name
  std::string source;     ///< metadata "file:line", or empty
  bool is_group = false;  ///< a collapsed layer: double-click shows its instructions
  int64_t group = 0;      ///< the group's key (GraphModel::group_key)
};

/// Nodes and edges (indices into nodes).
struct ViewGraph {
  std::vector<ViewNode> nodes;
  std::vector<std::pair<int, int>> edges;
};

/// The view graphs of one module. Cheap to query once built; immutable, so it can be shared
/// with worker threads.
///
///   GraphModel g(std::make_shared<const ir::Module>(std::move(module)));
///   ViewGraph top = g.top();          // every instruction, or one box per layer
///   if (g.is_overview()) ViewGraph l = g.group_graph(top.nodes[3].group);
class GraphModel {
 public:
  /// Programs with more ENTRY instructions than this start as an overview of layers.
  static constexpr size_t kDetailLimit = 400;
  /// The key of the group before the first layer (and of everything when nothing is scoped).
  static constexpr int64_t kPrologue = -1;

  explicit GraphModel(std::shared_ptr<const ir::Module> module);

  const ir::Module& module() const { return *module_; }

  bool is_overview() const { return overview_; }
  /// What the pane shows first: every instruction, or the overview.
  const ViewGraph& top() const { return top_; }
  /// The instructions of one group as a graph (edges between them only); empty if unknown.
  ViewGraph group_graph(int64_t key) const;
  /// The group an instruction belongs to; nullopt for an unknown name or a detailed model.
  std::optional<int64_t> group_of(const std::string& name) const;
  /// The names of the instructions whose name, opcode, op_name or source file contains `text`
  /// (case-insensitive), in program order.
  std::vector<std::string> find(const std::string& text) const;
  /// A group's title: "prologue", "layer 17", "iteration 3 of while.2", "epilogue".
  std::string group_title(int64_t key) const;

 private:
  ViewNode node_of(const ir::Instruction& instr) const;

  std::shared_ptr<const ir::Module> module_;
  bool overview_ = false;
  ViewGraph top_;
  std::vector<int64_t> group_;  ///< per instruction id, its group key (overview only)
  std::unordered_map<int64_t, std::vector<ir::InstrId>> members_;
  std::unordered_map<int64_t, std::string> labels_;  ///< the checker's part labels, by key
};

/// `edges` without those implied by a longer path (u → v when u → w → … → v): the overview
/// shows the order of the layers; a value every layer reads (RoPE tables, a mask) would
/// otherwise draw one long edge per layer, which `dot` is slow to route and nobody can read.
///
///   without_implied_edges(3, {{0, 1}, {1, 2}, {0, 2}}) == {{0, 1}, {1, 2}}
std::vector<std::pair<int, int>> without_implied_edges(
    size_t node_count, const std::vector<std::pair<int, int>>& edges);

}  // namespace scalify::views
