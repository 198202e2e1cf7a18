#include "views/graph_model.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "verify/partition.h"

namespace scalify::views {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

GraphModel::GraphModel(std::shared_ptr<const ir::Module> module) : module_(std::move(module)) {
  const ir::Computation& entry = module_->entry();
  overview_ = entry.size() > kDetailLimit;
  if (!overview_) {
    std::set<std::pair<int, int>> seen;
    for (size_t i = 0; i < entry.size(); ++i) {
      const ir::Instruction& instr = entry[static_cast<ir::InstrId>(i)];
      top_.nodes.push_back(node_of(instr));
      for (ir::InstrId o : instr.operands) {
        if (seen.insert({o, static_cast<int>(i)}).second) {
          top_.edges.emplace_back(o, static_cast<int>(i));
        }
      }
    }
    return;
  }

  // Groups: the checker's own layer parts, so that the boxes are what it checks part by part.
  constexpr int64_t kUnassigned = INT64_MIN;
  group_.assign(entry.size(), kUnassigned);
  const std::vector<verify::Part> parts = verify::partition_layers(*module_);
  for (const verify::Part& part : parts) {
    for (ir::InstrId id : part.members) group_[static_cast<size_t>(id)] = part.key;
    labels_[part.key] = part.label;
  }
  if (parts.empty()) {  // no layers the checker recognises: scopes alone, the rest in one box
    for (size_t i = 0; i < entry.size(); ++i) {
      const auto layer = verify::layer_of(entry[static_cast<ir::InstrId>(i)].metadata.op_name);
      group_[i] = layer.value_or(kPrologue);
    }
  }
  // Parameters belong to no part: show each in the group of its first user.
  for (size_t i = 0; i < entry.size(); ++i) {
    for (ir::InstrId o : entry[static_cast<ir::InstrId>(i)].operands) {
      if (group_[static_cast<size_t>(o)] == kUnassigned && group_[i] != kUnassigned) {
        group_[static_cast<size_t>(o)] = group_[i];
      }
    }
  }
  for (size_t i = 0; i < entry.size(); ++i) {
    if (group_[i] == kUnassigned) group_[i] = kPrologue;
    members_[group_[i]].push_back(static_cast<ir::InstrId>(i));
  }

  std::map<int64_t, int> index;  // ordered: prologue, layers by number, epilogue
  for (const auto& [key, members] : members_) index[key] = 0;
  for (auto& [key, i] : index) {
    i = static_cast<int>(top_.nodes.size());
    ViewNode n;
    n.name = group_title(key);
    n.shape = std::to_string(members_[key].size()) + " instructions";
    n.is_group = true;
    n.group = key;
    top_.nodes.push_back(std::move(n));
  }
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < entry.size(); ++i) {
    const int to = index[group_[i]];
    for (ir::InstrId o : entry[static_cast<ir::InstrId>(i)].operands) {
      const int from = index[group_[static_cast<size_t>(o)]];
      if (from != to && seen.insert({from, to}).second) top_.edges.emplace_back(from, to);
    }
  }
  top_.edges = without_implied_edges(top_.nodes.size(), top_.edges);
}

std::vector<std::pair<int, int>> without_implied_edges(
    size_t node_count, const std::vector<std::pair<int, int>>& edges) {
  std::vector<std::vector<int>> successors(node_count);
  for (const auto& [from, to] : edges) successors[static_cast<size_t>(from)].push_back(to);
  // reach[n]: the nodes reachable from n (depth-first; groups are few, so n^2 bits are cheap).
  std::vector<std::vector<bool>> reach(node_count, std::vector<bool>(node_count, false));
  for (size_t start = 0; start < node_count; ++start) {
    std::vector<int> stack(successors[start].begin(), successors[start].end());
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      if (reach[start][static_cast<size_t>(n)]) continue;
      reach[start][static_cast<size_t>(n)] = true;
      for (int next : successors[static_cast<size_t>(n)]) stack.push_back(next);
    }
  }
  std::vector<std::pair<int, int>> kept;
  for (const auto& [from, to] : edges) {
    bool implied = false;
    for (int via : successors[static_cast<size_t>(from)]) {
      if (via != to && via != from && reach[static_cast<size_t>(via)][static_cast<size_t>(to)]) {
        implied = true;
        break;
      }
    }
    if (!implied) kept.emplace_back(from, to);
  }
  return kept;
}

ViewGraph GraphModel::group_graph(int64_t key) const {
  ViewGraph out;
  const auto it = members_.find(key);
  if (it == members_.end()) return out;
  const ir::Computation& entry = module_->entry();
  std::unordered_map<ir::InstrId, int> index;
  for (ir::InstrId id : it->second) {
    index[id] = static_cast<int>(out.nodes.size());
    out.nodes.push_back(node_of(entry[id]));
  }
  std::set<std::pair<int, int>> seen;
  for (ir::InstrId id : it->second) {
    for (ir::InstrId o : entry[id].operands) {
      const auto from = index.find(o);
      if (from == index.end()) continue;  // a value from another group
      if (seen.insert({from->second, index[id]}).second) {
        out.edges.emplace_back(from->second, index[id]);
      }
    }
  }
  return out;
}

std::optional<int64_t> GraphModel::group_of(const std::string& name) const {
  if (!overview_) return std::nullopt;
  const auto id = module_->entry().find(name);
  if (!id) return std::nullopt;
  return group_[static_cast<size_t>(*id)];
}

std::vector<std::string> GraphModel::find(const std::string& text) const {
  std::vector<std::string> out;
  const std::string wanted = lower(text);
  if (wanted.empty()) return out;
  for (const ir::Instruction& instr : module_->entry().instructions) {
    for (const std::string& field :
         {instr.name, instr.opcode_text(), instr.metadata.op_name, instr.metadata.source_file}) {
      if (lower(field).find(wanted) != std::string::npos) {
        out.push_back(instr.name);
        break;
      }
    }
  }
  return out;
}

std::string GraphModel::group_title(int64_t key) const {
  if (auto it = labels_.find(key); it != labels_.end() && !it->second.empty()) return it->second;
  if (key == kPrologue) return "prologue";
  if (key == verify::Part::kEpilogue) return "epilogue";
  return "layer " + std::to_string(key);
}

ViewNode GraphModel::node_of(const ir::Instruction& instr) const {
  ViewNode n;
  n.name = instr.name;
  n.op = instr.opcode_text();
  n.shape = instr.type.to_string(false);
  n.op_name = instr.metadata.op_name;
  if (instr.metadata.has_source_site()) {
    n.source = instr.metadata.source_file + ":" + std::to_string(instr.metadata.source_line);
  }
  return n;
}

}  // namespace scalify::views
