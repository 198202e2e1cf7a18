#include "ir/module.h"

#include <algorithm>
#include <functional>

namespace scalify::ir {

const Attribute* Instruction::attr(std::string_view key) const {
  for (const Attribute& a : attrs) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

std::string Instruction::opcode_text() const {
  if (!async_wrapped) return std::string(opcode_name(opcode));
  const char* suffix = opcode == Opcode::kAsyncStart    ? "-start"
                       : opcode == Opcode::kAsyncUpdate ? "-update"
                                                        : "-done";
  return std::string(opcode_name(*async_wrapped)) + suffix;
}

const DimList& Instruction::dims_attr(std::string_view key) const {
  static const DimList kEmpty;
  const DimList* d = get<DimList>(key);
  return d ? *d : kEmpty;
}

bool operator==(const Instruction& a, const Instruction& b) {
  return a.name == b.name && a.opcode == b.opcode && a.async_wrapped == b.async_wrapped &&
         a.type == b.type && a.operands == b.operands && a.attrs == b.attrs &&
         a.metadata == b.metadata && a.literal == b.literal &&
         a.parameter_number == b.parameter_number && a.called == b.called;
}

std::vector<InstrId> Computation::parameters() const {
  std::vector<InstrId> params;
  for (size_t i = 0; i < instructions.size(); ++i) {
    const Instruction& instr = instructions[i];
    if (instr.opcode != Opcode::kParameter || instr.parameter_number < 0) continue;
    const auto n = static_cast<size_t>(instr.parameter_number);
    if (params.size() <= n) params.resize(n + 1, -1);
    params[n] = static_cast<InstrId>(i);
  }
  return params;
}

namespace {
size_t name_hash(std::string_view name) { return std::hash<std::string_view>{}(name); }
uint32_t tag_of(size_t hash) { return static_cast<uint32_t>(hash >> 32); }
}  // namespace

size_t Computation::probe(std::string_view wanted, size_t hash) const {
  const size_t mask = slots_.size() - 1;
  const uint32_t tag = tag_of(hash);
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot slot = slots_[i];
    if (slot.id < 0) return i;
    if (slot.tag == tag && instructions[static_cast<size_t>(slot.id)].name == wanted) return i;
  }
}

void Computation::rehash(size_t slot_count) {
  slots_.assign(slot_count, Slot{});
  for (size_t i = 0; i < instructions.size(); ++i) {
    const size_t hash = name_hash(instructions[i].name);
    slots_[probe(instructions[i].name, hash)] = {static_cast<InstrId>(i), tag_of(hash)};
  }
}

void Computation::reserve(size_t n) {
  instructions.reserve(n);
  size_t slots = 16;
  while (slots < 2 * n) slots *= 2;
  if (slots > slots_.size()) rehash(slots);
}

std::optional<InstrId> Computation::find(std::string_view wanted) const {
  if (slots_.empty()) return std::nullopt;
  const InstrId id = slots_[probe(wanted, name_hash(wanted))].id;
  if (id < 0) return std::nullopt;
  return id;
}

std::optional<InstrId> Computation::add(Instruction instr) {
  if (2 * (instructions.size() + 1) > slots_.size())
    rehash(std::max<size_t>(16, 2 * slots_.size()));
  const size_t hash = name_hash(instr.name);
  const size_t slot = probe(instr.name, hash);
  if (slots_[slot].id >= 0) return std::nullopt;
  const auto id = static_cast<InstrId>(instructions.size());
  instructions.push_back(std::move(instr));
  slots_[slot] = {id, tag_of(hash)};
  return id;
}

std::optional<std::vector<InstrId>> Computation::topological_order() const {
  // Iterative DFS post-order from each instruction in text order; 0 = new, 1 = open, 2 = done.
  const size_t n = instructions.size();
  std::vector<uint8_t> state(n, 0);
  std::vector<InstrId> order;
  order.reserve(n);
  std::vector<std::pair<InstrId, size_t>> stack;
  for (size_t start = 0; start < n; ++start) {
    if (state[start]) continue;
    stack.emplace_back(static_cast<InstrId>(start), 0);
    state[start] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const auto& ops = instructions[static_cast<size_t>(id)].operands;
      if (next < ops.size()) {
        const InstrId op = ops[next++];
        if (state[static_cast<size_t>(op)] == 1) return std::nullopt;
        if (state[static_cast<size_t>(op)] == 0) {
          state[static_cast<size_t>(op)] = 1;
          stack.emplace_back(op, 0);
        }
        continue;
      }
      state[static_cast<size_t>(id)] = 2;
      order.push_back(id);
      stack.pop_back();
    }
  }
  return order;
}

bool operator==(const Computation& a, const Computation& b) {
  return a.name == b.name && a.is_entry == b.is_entry && a.root == b.root && a.attrs == b.attrs &&
         a.instructions == b.instructions;
}

std::optional<CompId> Module::find_computation(std::string_view wanted) const {
  for (size_t i = 0; i < computations.size(); ++i) {
    if (computations[i].name == wanted) return static_cast<CompId>(i);
  }
  return std::nullopt;
}

std::optional<CompId> called_computation(const Module& m, const Instruction& instr,
                                         std::string_view key, size_t index) {
  const auto* refs = instr.get<ComputationRefs>(key);
  if (!refs || index >= refs->names.size()) return std::nullopt;
  return m.find_computation(refs->names[index]);
}

std::optional<InstrId> first_output_effect(const Computation& comp) {
  for (InstrId id = 0; id < static_cast<InstrId>(comp.size()); ++id) {
    const Instruction& instr = comp[id];
    // A custom call marked with a side effect that returns values is, in real dumps, a
    // compiler annotation (ShardBarrierFrom, Sharding): the effect is the one that returns none.
    const bool* marked = instr.get<bool>("custom_call_has_side_effect");
    if (instr.opcode == Opcode::kOutfeed || instr.opcode == Opcode::kSend ||
        instr.opcode == Opcode::kSendDone ||
        (instr.opcode == Opcode::kCustomCall && marked && *marked &&
         carries_no_values(instr.type))) {
      return id;
    }
  }
  return std::nullopt;
}

std::vector<CompId> branch_computations(const Module& m, const Instruction& instr) {
  std::vector<std::optional<CompId>> found;
  if (const auto* refs = instr.get<ComputationRefs>("branch_computations")) {
    for (size_t i = 0; i < refs->names.size(); ++i) {
      found.push_back(called_computation(m, instr, "branch_computations", i));
    }
  } else {
    found = {called_computation(m, instr, "true_computation"),
             called_computation(m, instr, "false_computation")};
  }
  std::vector<CompId> out;
  for (const auto& id : found) {
    if (!id) return {};
    out.push_back(*id);
  }
  return out;
}

const Attribute* Module::attr(std::string_view key) const {
  for (const Attribute& a : attrs) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

int64_t Module::num_partitions() const {
  const Attribute* a = attr("num_partitions");
  const int64_t* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
  return v ? *v : 1;
}

int64_t Module::replica_count() const {
  const Attribute* a = attr("replica_count");
  const int64_t* v = a ? std::get_if<int64_t>(&a->value) : nullptr;
  return v ? *v : 1;
}

size_t Module::instruction_count() const {
  size_t n = 0;
  for (const Computation& c : computations) n += c.size();
  return n;
}

bool operator==(const Module& a, const Module& b) {
  return a.name == b.name && a.attrs == b.attrs && a.entry_id == b.entry_id &&
         a.computations == b.computations;
}

std::string first_difference(const Module& a, const Module& b) {
  if (a.name != b.name) return "module name '" + a.name + "' vs '" + b.name + "'";
  if (!(a.attrs == b.attrs)) return "module header attributes differ";
  if (a.entry_id != b.entry_id) return "entry computation differs";
  if (a.computations.size() != b.computations.size()) return "number of computations differs";
  for (size_t c = 0; c < a.computations.size(); ++c) {
    const Computation& ca = a.computations[c];
    const Computation& cb = b.computations[c];
    const std::string where = "computation '" + ca.name + "'";
    if (ca.name != cb.name || ca.is_entry != cb.is_entry || ca.root != cb.root ||
        !(ca.attrs == cb.attrs)) {
      return where + ": header or root differs";
    }
    if (ca.size() != cb.size()) return where + ": number of instructions differs";
    for (size_t i = 0; i < ca.size(); ++i) {
      const Instruction& x = ca.instructions[i];
      const Instruction& y = cb.instructions[i];
      if (x == y) continue;
      std::string what = where + ", instruction '" + x.name + "': ";
      if (x.name != y.name) return what + "name vs '" + y.name + "'";
      if (x.opcode != y.opcode) return what + "opcode";
      if (!(x.type == y.type))
        return what + "type " + x.type.to_string() + " vs " + y.type.to_string();
      if (x.operands != y.operands) return what + "operands";
      if (!(x.metadata == y.metadata)) return what + "metadata";
      if (x.literal != y.literal) return what + "literal";
      for (size_t k = 0; k < std::min(x.attrs.size(), y.attrs.size()); ++k) {
        if (!(x.attrs[k] == y.attrs[k])) {
          return what + "attribute " + x.attrs[k].key + "=" +
                 attr_value_to_string(x.attrs[k].value) + " vs " + y.attrs[k].key + "=" +
                 attr_value_to_string(y.attrs[k].value);
        }
      }
      return what + "attributes";
    }
  }
  return "";
}

}  // namespace scalify::ir
