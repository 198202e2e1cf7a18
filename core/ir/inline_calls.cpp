#include "ir/inline_calls.h"

#include <string>
#include <vector>

namespace scalify::ir {
namespace {

bool inlinable(const Module& m, const Instruction& x) {
  return (x.opcode == Opcode::kCall || x.opcode == Opcode::kFusion) && x.called.size() == 1 &&
         x.called[0] >= 0 && static_cast<size_t>(x.called[0]) < m.computations.size();
}

class Inliner {
 public:
  explicit Inliner(const Module& m) : m_(m) {}

  /// Emits `c`'s instructions into out_, with `args` standing for its parameters; returns the id
  /// of the value its root computes, or nullopt when it cannot be inlined.
  std::optional<InstrId> emit(const Computation& c, const std::vector<InstrId>& args,
                              const std::string& prefix, int depth) {
    if (depth > 64) return std::nullopt;
    const auto order = c.topological_order();
    if (!order) return std::nullopt;
    std::vector<InstrId> now(c.size(), -1);  // c's ids → out_'s ids
    for (InstrId id : *order) {
      const Instruction& x = c[id];
      if (!c.is_entry && x.opcode == Opcode::kParameter) {
        if (x.parameter_number < 0 || static_cast<size_t>(x.parameter_number) >= args.size()) {
          return std::nullopt;
        }
        now[static_cast<size_t>(id)] = args[static_cast<size_t>(x.parameter_number)];
        continue;
      }
      std::vector<InstrId> operands;
      for (InstrId o : x.operands) operands.push_back(now[static_cast<size_t>(o)]);
      if (inlinable(m_, x)) {
        const Computation& body = m_.computations[static_cast<size_t>(x.called[0])];
        const auto root = emit(body, operands, prefix + x.name + ".", depth + 1);
        if (!root) return std::nullopt;
        now[static_cast<size_t>(id)] = *root;
        continue;
      }
      Instruction copy = x;
      copy.operands = std::move(operands);
      copy.name = unique(prefix + x.name);
      const auto added = out_.add(std::move(copy));
      if (!added) return std::nullopt;
      now[static_cast<size_t>(id)] = *added;
    }
    return c.root >= 0 ? std::optional(now[static_cast<size_t>(c.root)]) : std::nullopt;
  }

  Computation take() { return std::move(out_); }
  Computation& out() { return out_; }

 private:
  std::string unique(const std::string& name) const {
    if (!out_.find(name)) return name;
    for (int i = 1;; ++i) {
      std::string candidate = name + ".inl" + std::to_string(i);
      if (!out_.find(candidate)) return candidate;
    }
  }

  const Module& m_;
  Computation out_;
};

}  // namespace

std::optional<Module> inline_calls(const Module& m) {
  if (m.entry_id < 0) return std::nullopt;
  const Computation& entry = m.entry();
  bool any = false;
  for (const Instruction& x : entry.instructions) any = any || inlinable(m, x);
  if (!any) return std::nullopt;
  Inliner inliner(m);
  Computation& out = inliner.out();
  out.name = entry.name;
  out.is_entry = true;
  out.attrs = entry.attrs;
  out.pos = entry.pos;
  out.reserve(entry.size() * 2);
  const auto root = inliner.emit(entry, {}, "", 0);
  if (!root) return std::nullopt;
  Module flat = m;
  flat.entry() = inliner.take();
  flat.entry().root = *root;
  return flat;
}

}  // namespace scalify::ir
