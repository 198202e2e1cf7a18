#include "verify/partition.h"

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>

#include "verify/repeated_structure.h"

namespace scalify::verify {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// The layer scopes' component names.
bool is_layer_word(std::string_view w) {
  return w == "layers" || w == "layer" || w == "h" || w == "blocks" || w == "block";
}

}  // namespace

std::optional<int64_t> layer_of(std::string_view op_name) {
  // Components are separated by '/' or '.'; the number follows the word after '.', '_' or '/'
  // (`layers.17`, `layers_17`, `layers/17`, `h_3`).
  size_t i = 0;
  while (i < op_name.size()) {
    size_t end = i;
    while (end < op_name.size() && op_name[end] != '/' && op_name[end] != '.' &&
           op_name[end] != '_') {
      ++end;
    }
    const std::string_view word = op_name.substr(i, end - i);
    const bool at_start = i == 0 || op_name[i - 1] == '/' || op_name[i - 1] == '.';
    if (at_start && is_layer_word(word) && end < op_name.size() && end + 1 < op_name.size() &&
        is_digit(op_name[end + 1])) {
      size_t k = end + 1;
      int64_t n = 0;
      while (k < op_name.size() && is_digit(op_name[k]) && n < (INT64_MAX - 9) / 10) {
        n = n * 10 + (op_name[k] - '0');
        ++k;
      }
      if (k == op_name.size() || op_name[k] == '/' || op_name[k] == '.' || op_name[k] == '_') {
        return n;
      }
    }
    i = end + 1;
  }
  return std::nullopt;
}

std::optional<std::pair<std::string_view, int64_t>> iteration_of(std::string_view name) {
  for (size_t at = name.find(".iter"); at != std::string_view::npos;
       at = name.find(".iter", at + 1)) {
    size_t k = at + 5;
    int64_t n = 0;
    while (k < name.size() && is_digit(name[k]) && n < (INT64_MAX - 9) / 10) {
      n = n * 10 + (name[k] - '0');
      ++k;
    }
    if (k > at + 5 && k < name.size() && name[k] == '.' && at > 0) {
      return std::pair{name.substr(0, at), n};
    }
  }
  return std::nullopt;
}

std::vector<Part> partition_layers(const ir::Module& m) {
  const ir::Computation& comp = m.entry();
  const auto order = comp.topological_order();
  if (!order) return {};
  // Layer scopes when the metadata has them, else the iterations of unrolled loops: loop j's
  // iteration K is key j·2^20 + K (loops unroll at most 4096 times).
  constexpr int64_t kPerLoop = int64_t{1} << 20;
  bool scoped = false, iterated = false;
  for (const ir::Instruction& x : comp.instructions) {
    scoped = scoped || layer_of(x.metadata.op_name).has_value();
    const auto it = iteration_of(x.name);
    iterated = iterated || (it && it->second < kPerLoop);
  }
  // Neither names a layer: where the instructions repeat is all there is to go by.
  if (!scoped && !iterated) return partition_by_repetition(m);
  std::vector<std::string_view> loops;
  auto layer_key = [&](const ir::Instruction& x) -> std::optional<int64_t> {
    if (scoped) return layer_of(x.metadata.op_name);
    const auto it = iteration_of(x.name);
    if (!it || it->second >= kPerLoop) return std::nullopt;
    auto found = std::find(loops.begin(), loops.end(), it->first);
    if (found == loops.end()) found = loops.insert(loops.end(), it->first);
    return static_cast<int64_t>(found - loops.begin()) * kPerLoop + it->second;
  };
  // part[i]: the key of instruction i; nullopt while unknown. Parameters stay outside.
  std::vector<std::optional<int64_t>> key(comp.size());
  // Each instruction's users, in topological order: users_of[user_start[i], user_start[i + 1]).
  std::vector<size_t> user_start(comp.size() + 1, 0);
  for (const ir::Instruction& x : comp.instructions) {
    for (ir::InstrId o : x.operands) ++user_start[static_cast<size_t>(o) + 1];
  }
  for (size_t i = 0; i < comp.size(); ++i) user_start[i + 1] += user_start[i];
  std::vector<ir::InstrId> users_of(user_start.back());
  {
    std::vector<size_t> filled(user_start.begin(), user_start.end() - 1);
    for (ir::InstrId id : *order) {
      for (ir::InstrId o : comp[id].operands) users_of[filled[static_cast<size_t>(o)]++] = id;
    }
  }
  auto users = [&](ir::InstrId id) {
    const auto i = static_cast<size_t>(id);
    return std::span<const ir::InstrId>(users_of.data() + user_start[i],
                                        user_start[i + 1] - user_start[i]);
  };
  auto is_param = [&](ir::InstrId id) { return comp[id].opcode == ir::Opcode::kParameter; };
  // Scoped instructions first, then the unscoped ones after their operands' latest layer.
  for (ir::InstrId id : *order) {
    if (is_param(id)) continue;
    const auto layer = layer_key(comp[id]);
    if (layer) {
      key[static_cast<size_t>(id)] = *layer;
      continue;
    }
    std::optional<int64_t> latest;
    for (ir::InstrId o : comp[id].operands) {
      const auto k = key[static_cast<size_t>(o)];
      if (k && (!latest || *k > *latest)) latest = k;
    }
    key[static_cast<size_t>(id)] = latest;
  }
  // Leaves and values made from parameters alone join their first user's layer.
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    const ir::InstrId id = *it;
    if (is_param(id) || key[static_cast<size_t>(id)]) continue;
    std::optional<int64_t> first;
    for (ir::InstrId u : users(id)) {
      const auto k = key[static_cast<size_t>(u)];
      if (k && (!first || *k < *first)) first = k;
    }
    key[static_cast<size_t>(id)] = first ? *first : Part::kEpilogue;
  }
  std::map<int64_t, Part> parts;
  for (ir::InstrId id : *order) {
    if (is_param(id)) continue;
    const int64_t k = *key[static_cast<size_t>(id)];
    // Values flow forward only: a layer reading a later layer's value cannot be cut here.
    for (ir::InstrId o : comp[id].operands) {
      if (!is_param(o) && *key[static_cast<size_t>(o)] > k) return {};
    }
    Part& p = parts[k];
    p.key = k;
    p.members.push_back(id);
  }
  size_t layers = 0;
  for (const auto& [k, p] : parts) layers += (k != Part::kPrologue && k != Part::kEpilogue);
  if (layers < 2) return {};
  std::vector<Part> out;
  for (auto& [k, p] : parts) {
    if (k == Part::kPrologue || k == Part::kEpilogue) {
      p.label = k == Part::kPrologue ? "prologue" : "epilogue";
    } else if (scoped) {
      p.label = "layer " + std::to_string(k);
    } else {
      p.label = "iteration " + std::to_string(k % kPerLoop) + " of " +
                std::string(loops[static_cast<size_t>(k / kPerLoop)]);
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

/// Part `p` of `m` as a module; `part_of` and `last_reader` (the latest part reading each value)
/// are computed once for all parts. `local` maps the whole ENTRY's ids to the part's: all -1 on
/// entry and on return (one array for every part, so that no part pays for a map of its own).
PartModule extract_part(const ir::Module& m, const std::vector<Part>& parts, size_t p,
                        const std::vector<int>& part_of, const std::vector<int>& last_reader,
                        std::vector<ir::InstrId>& local) {
  const ir::Computation& whole = m.entry();
  const int self = static_cast<int>(p);
  PartModule out;
  out.module.name = m.name + ".part" + std::to_string(p);
  out.module.attrs = m.attrs;

  // The computations the part calls, transitively, renumbered.
  std::unordered_map<ir::CompId, ir::CompId> comp_ids;
  std::vector<ir::CompId> queue;
  auto want = [&](ir::CompId c) {
    if (comp_ids.emplace(c, static_cast<ir::CompId>(comp_ids.size())).second) queue.push_back(c);
  };
  for (ir::InstrId id : parts[p].members) {
    for (ir::CompId c : whole[id].called) want(c);
  }
  for (size_t i = 0; i < queue.size(); ++i) {
    for (const ir::Instruction& instr :
         m.computations[static_cast<size_t>(queue[i])].instructions) {
      for (ir::CompId c : instr.called) want(c);
    }
  }
  auto renumber = [&](ir::Instruction& instr) {
    for (ir::CompId& c : instr.called) c = comp_ids.at(c);
  };
  out.module.computations.resize(queue.size());
  for (ir::CompId c : queue) {
    ir::Computation copy = m.computations[static_cast<size_t>(c)];
    for (ir::Instruction& instr : copy.instructions) renumber(instr);
    out.module.computations[static_cast<size_t>(comp_ids.at(c))] = std::move(copy);
  }

  // The ENTRY: parameters for what it reads from outside, then its members.
  ir::Computation entry;
  entry.name = whole.name;
  entry.is_entry = true;
  entry.pos = whole.pos;
  entry.reserve(parts[p].members.size() + 16);
  auto at = [&](ir::InstrId o) -> ir::InstrId& { return local[static_cast<size_t>(o)]; };
  auto input = [&](ir::InstrId o) {
    if (at(o) >= 0) return;
    // A parameter keeps its attributes (a `sharding=` says how it is split); a value from
    // another part becomes a parameter of its name and type.
    ir::Instruction param;
    if (whole[o].opcode == ir::Opcode::kParameter) param = whole[o];
    param.name = whole[o].name;
    param.opcode = ir::Opcode::kParameter;
    param.type = whole[o].type;
    param.parameter_number = static_cast<int64_t>(out.inputs.size());
    param.metadata = whole[o].metadata;
    param.pos = whole[o].pos;
    param.operands.clear();
    param.called.clear();
    at(o) = *entry.add(std::move(param));
    out.inputs.push_back(o);
  };
  for (ir::InstrId id : parts[p].members) {
    for (ir::InstrId o : whole[id].operands) {
      if (part_of[static_cast<size_t>(o)] != self) input(o);
    }
  }
  for (ir::InstrId id : parts[p].members) {
    ir::Instruction copy = whole[id];
    for (ir::InstrId& o : copy.operands) o = at(o);
    renumber(copy);
    at(id) = *entry.add(std::move(copy));
  }
  // The outputs: the program's own ROOT, or a tuple of the values read after this part.
  if (part_of[static_cast<size_t>(whole.root)] == self) {
    out.has_root = true;
    entry.root = at(whole.root);
    const ir::Instruction& r = whole[whole.root];
    if (r.opcode == ir::Opcode::kTuple) {
      out.outputs = r.operands;
    } else {
      out.outputs = {whole.root};
    }
  } else {
    ir::Instruction root;
    root.name = whole.name + ".part" + std::to_string(p) + std::string(kPartOutputsSuffix);
    root.opcode = ir::Opcode::kTuple;
    std::vector<ir::Type> types;
    for (ir::InstrId id : parts[p].members) {
      if (last_reader[static_cast<size_t>(id)] <= self) continue;
      out.outputs.push_back(id);
      root.operands.push_back(at(id));
      types.push_back(whole[id].type);
    }
    root.type = ir::Type::tuple(std::move(types));
    entry.root = *entry.add(std::move(root));
  }
  out.module.entry_id = static_cast<ir::CompId>(out.module.computations.size());
  out.module.computations.push_back(std::move(entry));
  for (ir::InstrId id : out.inputs) at(id) = -1;
  for (ir::InstrId id : parts[p].members) at(id) = -1;
  return out;
}

}  // namespace

PartExtractor::PartExtractor(const ir::Module& m, const std::vector<Part>& parts)
    : module_(m), parts_(parts) {
  const ir::Computation& whole = m.entry();
  part_of_.assign(whole.size(), -1);
  last_reader_.assign(whole.size(), -1);
  for (size_t i = 0; i < parts.size(); ++i) {
    for (ir::InstrId id : parts[i].members) part_of_[static_cast<size_t>(id)] = static_cast<int>(i);
  }
  for (size_t i = 0; i < whole.size(); ++i) {
    for (ir::InstrId o : whole[static_cast<ir::InstrId>(i)].operands) {
      int& r = last_reader_[static_cast<size_t>(o)];
      r = std::max(r, part_of_[i]);
    }
  }
}

PartModule PartExtractor::extract(size_t p) const {
  // One map of whole ids to part ids per thread, all -1 between calls.
  thread_local std::vector<ir::InstrId> local;
  if (local.size() < part_of_.size()) local.resize(part_of_.size(), -1);
  return extract_part(module_, parts_, p, part_of_, last_reader_, local);
}

std::vector<PartModule> extract_parts(const ir::Module& m, const std::vector<Part>& parts) {
  const PartExtractor extractor(m, parts);
  std::vector<PartModule> out;
  out.reserve(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) out.push_back(extractor.extract(p));
  return out;
}

}  // namespace scalify::verify
