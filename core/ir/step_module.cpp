// A computation run once as a program of its own (step_module.h).
#include "ir/step_module.h"

#include "ir/inline_calls.h"

namespace scalify::ir {

std::optional<Module> step_module(const Module& m, CompId step) {
  if (step < 0 || static_cast<size_t>(step) >= m.computations.size()) return std::nullopt;
  const Computation& body = m.computations[static_cast<size_t>(step)];
  const auto params = body.parameters();
  if (params.size() != 1 || params[0] < 0 || body.root < 0) return std::nullopt;
  const Type& state = body[params[0]].type;
  Computation entry;
  entry.name = m.entry().name;
  entry.is_entry = true;
  Instruction tuple;
  tuple.opcode = Opcode::kTuple;
  tuple.name = "state";
  tuple.type = state;
  const std::vector<Type> elements = state.is_tuple() ? state.elements() : std::vector<Type>{state};
  for (size_t i = 0; i < elements.size(); ++i) {
    if (!elements[i].is_array()) return std::nullopt;
    Instruction p;
    p.opcode = Opcode::kParameter;
    p.name = "state." + std::to_string(i);
    p.type = elements[i];
    p.parameter_number = static_cast<int64_t>(i);
    const auto id = entry.add(std::move(p));
    if (!id) return std::nullopt;
    tuple.operands.push_back(*id);
  }
  const auto t = state.is_tuple() ? entry.add(std::move(tuple)) : tuple.operands[0];
  if (!t) return std::nullopt;
  Instruction call;
  call.opcode = Opcode::kCall;
  call.name = "step";
  call.type = body[body.root].type;
  call.operands = {*t};
  Attribute to_apply;
  to_apply.key = "to_apply";
  to_apply.value = ComputationRefs{{body.name}};
  call.attrs.push_back(std::move(to_apply));
  call.called = {step};
  entry.root = *entry.add(std::move(call));
  Module out = m;
  out.computations[static_cast<size_t>(out.entry_id)] = std::move(entry);
  return inline_calls(out);
}

}  // namespace scalify::ir
