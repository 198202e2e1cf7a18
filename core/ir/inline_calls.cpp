#include "ir/inline_calls.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/integer_fold.h"

namespace scalify::ir {
namespace {

constexpr int kMaxDepth = 64;
/// Loops are unrolled up to this many iterations, and while the program stays below this size.
constexpr int64_t kMaxTripCount = 4096;
constexpr size_t kMaxInstructions = 2'000'000;

/// The computation `key` names (`body=`, `condition=`, or entry `index` of
/// `branch_computations={…}`), or nullptr.
const Computation* callee(const Module& m, const Instruction& x, std::string_view key,
                          size_t index = 0) {
  const std::optional<CompId> id = called_computation(m, x, key, index);
  return id ? &m.computations[static_cast<size_t>(*id)] : nullptr;
}

bool is_call(const Module& m, const Instruction& x) {
  return (x.opcode == Opcode::kCall || x.opcode == Opcode::kFusion) && x.called.size() == 1 &&
         x.called[0] >= 0 && static_cast<size_t>(x.called[0]) < m.computations.size();
}

bool flattenable(const Module& m, const Instruction& x) {
  return is_call(m, x) || x.opcode == Opcode::kWhile || x.opcode == Opcode::kConditional;
}

/// A copy (or optimisation barrier) of a tuple: its elements, unchanged.
bool passes_tuple(const Computation& c, const Instruction& x) {
  return (x.opcode == Opcode::kCopy || x.opcode == Opcode::kOptimizationBarrier) &&
         x.operands.size() == 1 && c[x.operands[0]].type.is_tuple();
}

/// An element taken out of a tuple built in the same computation (a nested tuple, say).
bool forwards_element(const Computation& c, const Instruction& x) {
  return x.opcode == Opcode::kGetTupleElement && x.operands.size() == 1 &&
         (c[x.operands[0]].opcode == Opcode::kTuple || passes_tuple(c, c[x.operands[0]]));
}

/// A conditional's branches in selector order; empty when one is missing.
std::vector<const Computation*> branches(const Module& m, const Instruction& x) {
  std::vector<const Computation*> out;
  for (CompId id : branch_computations(m, x))
    out.push_back(&m.computations[static_cast<size_t>(id)]);
  return out;
}

/// What is known of a value while folding a loop counter: an integer scalar made of constants,
/// or the elements of a tuple.
struct Known {
  std::optional<IntScalar> scalar;
  std::vector<Known> elements;
};

/// `c`'s root folded on `args` (one per parameter): the integer scalars made of constants.
/// Calls inside `c` are not followed (what they return is unknown).
Known fold(const Computation& c, const std::vector<Known>& args) {
  const auto order = c.topological_order();
  if (!order || c.root < 0) return {};
  std::vector<Known> k(c.size());
  std::vector<std::optional<IntScalar>> operands;
  for (InstrId id : *order) {
    const Instruction& x = c[id];
    Known& out = k[static_cast<size_t>(id)];
    if (x.opcode == Opcode::kParameter) {
      if (!c.is_entry && x.parameter_number >= 0 &&
          static_cast<size_t>(x.parameter_number) < args.size()) {
        out = args[static_cast<size_t>(x.parameter_number)];
      }
    } else if (x.opcode == Opcode::kTuple) {
      for (InstrId o : x.operands) out.elements.push_back(k[static_cast<size_t>(o)]);
    } else if (x.opcode == Opcode::kGetTupleElement) {
      const auto* index = x.get<int64_t>("index");
      const Known& t = k[static_cast<size_t>(x.operands.at(0))];
      if (index && *index >= 0 && static_cast<size_t>(*index) < t.elements.size()) {
        out = t.elements[static_cast<size_t>(*index)];
      }
    } else {
      operands.clear();
      for (InstrId o : x.operands) operands.push_back(k[static_cast<size_t>(o)].scalar);
      out.scalar = fold_integer(x, operands);
    }
  }
  return k[static_cast<size_t>(c.root)];
}

/// How many times a `while` runs from `state`: its condition must fold to a constant on every
/// iteration (a counter made of constants). nullopt when it does not, or runs more than `limit`
/// times.
std::optional<int64_t> trip_count(const Computation& condition, const Computation& body,
                                  Known state, int64_t limit) {
  for (int64_t n = 0; n <= limit; ++n) {
    const Known go = fold(condition, {state});
    if (!go.scalar) return std::nullopt;
    if (go.scalar->value == 0) return n;
    state = fold(body, {state});
  }
  return std::nullopt;
}

/// A value of the computation being emitted: an instruction already written, or a tuple whose
/// elements are kept apart (a loop's state, a tuple read only by get-tuple-element), written out
/// only where something needs the tuple itself.
struct Val {
  InstrId id = -1;  ///< in the output; -1 for a tuple kept apart
  bool split = false;
  std::vector<Val> elements;  ///< split: the tuple's elements
  std::string name;           ///< split: the name it gets if written
  Type type;                  ///< split: the tuple's type
};

class Inliner {
 public:
  explicit Inliner(const Module& m) : m_(m) {}

  /// Emits `c`'s instructions into out_, with `args` standing for its parameters; returns the
  /// value its root computes, or nullopt when it cannot be inlined.
  std::optional<Val> emit(const Computation& c, const std::vector<Val>& args,
                          const std::string& prefix, int depth) {
    if (depth > kMaxDepth) return std::nullopt;
    const auto order = c.topological_order();
    if (!order || c.root < 0) return std::nullopt;
    std::vector<Val> now(c.size());  // c's ids → values of out_
    const auto val = [&](InstrId o) -> Val& { return now[static_cast<size_t>(o)]; };
    for (InstrId id : *order) {
      const Instruction& x = c[id];
      Val& here = now[static_cast<size_t>(id)];
      if (c.is_entry && x.opcode == Opcode::kParameter && !renumbered_.empty()) {
        here = entry_parameter(x);
        continue;
      }
      if (!c.is_entry && x.opcode == Opcode::kParameter) {
        if (x.parameter_number < 0 || static_cast<size_t>(x.parameter_number) >= args.size()) {
          return std::nullopt;
        }
        here = args[static_cast<size_t>(x.parameter_number)];
        continue;
      }
      if (x.opcode == Opcode::kTuple) {
        here.split = true;
        here.name = prefix + x.name;
        here.type = x.type;
        for (InstrId o : x.operands) here.elements.push_back(val(o));
        continue;
      }
      if (x.opcode == Opcode::kGetTupleElement && x.operands.size() == 1) {
        const auto* index = x.get<int64_t>("index");
        const Val& t = val(x.operands[0]);
        if (t.split && index && *index >= 0 && static_cast<size_t>(*index) < t.elements.size()) {
          here = t.elements[static_cast<size_t>(*index)];
          changed_ = true;
          continue;
        }
      }
      if (passes_tuple(c, x) && val(x.operands[0]).split) {
        here = val(x.operands[0]);
        changed_ = true;
        continue;
      }
      std::vector<Val> operands;
      for (InstrId o : x.operands) operands.push_back(val(o));
      if (std::optional<const Computation*> body = inlined_body(x, operands)) {
        if (!*body) return std::nullopt;
        const std::vector<Val> body_args =
            x.opcode == Opcode::kConditional ? std::vector<Val>{operands[taken_ + 1]} : operands;
        auto root = emit(**body, body_args, prefix + x.name + ".", depth + 1);
        if (!root) return std::nullopt;
        here = std::move(*root);
        continue;
      }
      if (x.opcode == Opcode::kWhile && x.operands.size() == 1) {
        if (const auto n = unrollable(x, operands[0])) {
          Val state = operands[0];
          ++control_depth_;
          for (int64_t k = 0; k < *n; ++k) {
            auto next = emit(*callee(m_, x, "body"), {state},
                             prefix + x.name + ".iter" + std::to_string(k) + ".", depth + 1);
            if (!next) return std::nullopt;
            state = std::move(*next);
          }
          --control_depth_;
          here = std::move(state);
          control_flow_ = true;
          continue;
        }
      }
      here.id = write(x, operands, prefix);
      if (here.id < 0) return std::nullopt;
    }
    return now[static_cast<size_t>(c.root)];
  }

  /// ENTRY parameters numbered anew so that each element of a tuple parameter (of arrays) is
  /// a parameter of its own, `NAME.I`. False when there is no such parameter.
  bool split_tuple_parameters(const Computation& entry) {
    std::vector<std::pair<int64_t, InstrId>> params;
    bool any = false;
    for (InstrId id = 0; id < static_cast<InstrId>(entry.size()); ++id) {
      const Instruction& x = entry[id];
      if (x.opcode != Opcode::kParameter) continue;
      params.emplace_back(x.parameter_number, id);
      any = any || splits(x.type);
    }
    if (!any) return false;
    std::sort(params.begin(), params.end());
    int64_t next = 0;
    for (const auto& [number, id] : params) {
      renumbered_[number] = next;
      next += splits(entry[id].type) ? static_cast<int64_t>(entry[id].type.elements().size()) : 1;
    }
    changed_ = true;
    return true;
  }

  /// The value of ENTRY parameter `x` under split_tuple_parameters' numbering.
  Val entry_parameter(const Instruction& x) {
    Instruction p = x;
    p.parameter_number = renumbered_[x.parameter_number];
    if (!splits(x.type)) {
      p.name = unique(x.name);
      Val one;
      one.id = add(std::move(p));
      return one;
    }
    Val v;
    v.split = true;
    v.name = x.name;
    v.type = x.type;
    const Sharding* sharding = x.sharding();
    for (size_t i = 0; i < x.type.elements().size(); ++i) {
      Instruction e = p;
      e.type = x.type.elements()[i];
      e.name = unique(x.name + "." + std::to_string(i));
      e.parameter_number = p.parameter_number + static_cast<int64_t>(i);
      std::erase_if(e.attrs, [](const Attribute& a) { return a.key == "sharding"; });
      if (sharding && sharding->kind == Sharding::Kind::kTuple && i < sharding->elements.size()) {
        Attribute a;
        a.key = "sharding";
        a.value = Boxed<Sharding>(sharding->elements[i]);
        e.attrs.push_back(std::move(a));
      }
      Val element;
      element.id = add(std::move(e));
      v.elements.push_back(std::move(element));
    }
    return v;
  }

  /// A tuple of arrays: split into parameters of their own.
  static bool splits(const Type& t) {
    return t.is_tuple() && !t.elements().empty() &&
           std::all_of(t.elements().begin(), t.elements().end(),
                       [](const Type& e) { return e.is_array(); });
  }

  /// The instruction holding `v`, writing out a tuple kept apart (once per copy of the value).
  InstrId materialize(Val& v) {
    if (v.id >= 0 || !v.split) return v.id;
    Instruction t;
    t.opcode = Opcode::kTuple;
    t.name = unique(v.name);
    t.type = v.type;
    for (Val& e : v.elements) {
      const InstrId o = materialize(e);
      if (o < 0) return -1;
      t.operands.push_back(o);
    }
    v.id = add(std::move(t));
    return v.id;
  }

  bool changed() const { return changed_; }
  bool control_flow() const { return control_flow_; }
  Computation take() { return std::move(out_); }
  Computation& out() { return out_; }

 private:
  /// When `x` is a call or fusion, or a conditional whose selector is a constant: the body to
  /// inline in its place (nullptr when that body is missing). nullopt for anything else.
  std::optional<const Computation*> inlined_body(const Instruction& x, std::vector<Val>& operands) {
    if (is_call(m_, x)) {
      changed_ = true;
      return &m_.computations[static_cast<size_t>(x.called[0])];
    }
    if (x.opcode != Opcode::kConditional || operands.empty()) return std::nullopt;
    const std::vector<const Computation*> bs = branches(m_, x);
    const std::optional<IntScalar> selector = known(operands[0]).scalar;
    if (bs.empty() || !selector || operands.size() != bs.size() + 1) return std::nullopt;
    if (selector->dtype == DType::kPred) {
      taken_ = selector->value != 0 ? 0 : 1;  // true_computation first
    } else {
      // An index out of range takes the last branch, as in XLA.
      const bool in_range =
          selector->value >= 0 && static_cast<size_t>(selector->value) < bs.size();
      taken_ = in_range ? static_cast<size_t>(selector->value) : bs.size() - 1;
    }
    changed_ = control_flow_ = true;
    return bs[taken_];
  }

  /// The trip count of `x` (a while) from `init`, when it is known and small enough to unroll.
  std::optional<int64_t> unrollable(const Instruction& x, const Val& init) {
    const Computation* condition = callee(m_, x, "condition");
    const Computation* body = callee(m_, x, "body");
    if (!condition || !body) return std::nullopt;
    const auto n = trip_count(*condition, *body, known(init), kMaxTripCount);
    if (!n || out_.size() + static_cast<size_t>(*n) * body->size() > kMaxInstructions) {
      return std::nullopt;
    }
    changed_ = true;
    return n;
  }

  Known known(const Val& v) const {
    Known k;
    if (v.id >= 0) k.scalar = known_[static_cast<size_t>(v.id)];
    for (const Val& e : v.elements) k.elements.push_back(known(e));
    return k;
  }

  /// Writes a copy of `x` reading `operands`; its id, or -1.
  InstrId write(const Instruction& x, std::vector<Val>& operands, const std::string& prefix) {
    Instruction copy = x;
    copy.operands.clear();
    for (Val& o : operands) {
      const InstrId id = materialize(o);
      if (id < 0) return -1;
      copy.operands.push_back(id);
    }
    copy.name = unique(prefix + x.name);
    return add(std::move(copy));
  }

  /// Adds `x` to out_. Under control flow an integer scalar made of constants (a loop counter,
  /// an index computed from it) is written as the constant it is, so that both programs' loops
  /// index alike however they count.
  InstrId add(Instruction x) {
    std::vector<std::optional<IntScalar>> operands;
    for (InstrId o : x.operands) operands.push_back(known_[static_cast<size_t>(o)]);
    const std::optional<IntScalar> value = fold_integer(x, operands);
    if (value && control_depth_ > 0 && x.opcode != Opcode::kConstant) {
      x.opcode = Opcode::kConstant;
      x.operands.clear();
      x.attrs.clear();
      x.called.clear();
      x.literal = value->dtype == DType::kPred ? (value->value ? "true" : "false")
                                               : std::to_string(value->value);
    }
    const auto added = out_.add(std::move(x));
    if (!added) return -1;
    known_.push_back(value);
    return *added;
  }

  std::string unique(const std::string& name) const {
    if (!out_.find(name)) return name;
    for (int i = 1;; ++i) {
      std::string candidate = name + ".inl" + std::to_string(i);
      if (!out_.find(candidate)) return candidate;
    }
  }

  const Module& m_;
  Computation out_;
  std::vector<std::optional<IntScalar>> known_;  ///< out_'s integer scalars made of constants
  size_t taken_ = 0;                             ///< the branch inlined_body chose
  int control_depth_ = 0;                        ///< how many unrolled loops are being emitted
  bool changed_ = false;
  /// ENTRY parameter numbers, old to new, when tuple parameters are split.
  std::unordered_map<int64_t, int64_t> renumbered_;
  bool control_flow_ = false;
};

/// `c` without the instructions nothing reads (parameters stay): what unrolled loops leave of
/// their counters.
Computation without_dead_code(const Computation& c) {
  std::vector<bool> live(c.size(), false);
  std::vector<InstrId> stack{c.root};
  while (!stack.empty()) {
    const InstrId id = stack.back();
    stack.pop_back();
    if (live[static_cast<size_t>(id)]) continue;
    live[static_cast<size_t>(id)] = true;
    for (InstrId o : c[id].operands) stack.push_back(o);
  }
  Computation out;
  out.name = c.name;
  out.is_entry = c.is_entry;
  out.attrs = c.attrs;
  out.pos = c.pos;
  out.reserve(c.size());
  std::vector<InstrId> now(c.size(), -1);
  for (size_t i = 0; i < c.size(); ++i) {
    const Instruction& x = c.instructions[i];
    if (!live[i] && x.opcode != Opcode::kParameter) continue;
    Instruction copy = x;
    for (InstrId& o : copy.operands) o = now[static_cast<size_t>(o)];
    now[i] = *out.add(std::move(copy));
  }
  out.root = now[static_cast<size_t>(c.root)];
  return out;
}

}  // namespace

std::optional<Module> inline_calls(const Module& m) {
  if (m.entry_id < 0) return std::nullopt;
  const Computation& entry = m.entry();
  bool any = false;
  for (const Instruction& x : entry.instructions) {
    any = any || flattenable(m, x) || forwards_element(entry, x) || passes_tuple(entry, x);
  }
  Inliner inliner(m);
  any = inliner.split_tuple_parameters(entry) || any;
  if (!any) return std::nullopt;
  Computation& out = inliner.out();
  out.name = entry.name;
  out.is_entry = true;
  out.attrs = entry.attrs;
  out.pos = entry.pos;
  out.reserve(entry.size() * 2);
  auto root = inliner.emit(entry, {}, "", 0);
  if (!root || !inliner.changed()) return std::nullopt;
  const InstrId root_id = inliner.materialize(*root);
  if (root_id < 0) return std::nullopt;
  Module flat = m;
  flat.entry() = inliner.take();
  flat.entry().root = root_id;
  if (inliner.control_flow()) flat.entry() = without_dead_code(flat.entry());
  return flat;
}

}  // namespace scalify::ir
