// The interpreter's driver: arguments, the walk over a computation, limits and the dispatch of
// each opcode to its family's implementation.
#include "eval/evaluator.h"

#include <optional>

#include "eval/internal.h"
#include "eval/literal.h"

namespace scalify::eval {
namespace detail {
namespace {

using ir::Opcode;

Diagnostic error_at(const Run& run, SourcePos pos, std::string message) {
  return Diagnostic{run.options.file_name, pos, std::move(message), ""};
}

/// Elements of every array in `t` (tuples summed); nullopt on overflow or an unbounded
/// dimension.
std::optional<int64_t> element_count(const ir::Type& t) {
  if (t.is_tuple()) {
    int64_t sum = 0;
    for (const ir::Type& e : t.elements()) {
      const std::optional<int64_t> n = element_count(e);
      if (!n || __builtin_add_overflow(sum, *n, &sum)) return std::nullopt;
    }
    return sum;
  }
  if (!t.is_array()) return 0;
  int64_t n = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  }
  return n;
}

/// Ops that pass their first operand through unchanged.
Result identity(const Op& op) {
  if (op.arity() == 0) return op.error("expects an operand");
  return op.operands[0];
}

Result dispatch(const Op& op) {
  const Opcode code = op.inst.opcode;
  if (ir::is_collective(code)) {
    return op.unsupported(
        "collectives are not evaluated by the single-device interpreter (they need the ranks)");
  }
  switch (code) {
    case Opcode::kParameter:
      return op.error("a parameter has no value outside of evaluate()");
    case Opcode::kConstant: {
      Result r = parse_literal(op.inst.literal, op.type());
      if (!r) return op.error("constant: " + r.error().message);
      return r;
    }
    case Opcode::kCopy:
    case Opcode::kOptimizationBarrier:
    case Opcode::kAddDependency:
    case Opcode::kDomain:
      return identity(op);
    case Opcode::kCompare:
      return eval_compare(op);
    case Opcode::kConvert:
      return eval_convert(op);
    case Opcode::kSelect:
      return eval_select(op);
    case Opcode::kClamp:
      return eval_clamp(op);
    case Opcode::kIsFinite:
      return eval_is_finite(op);
    case Opcode::kIota:
      return eval_iota(op);
    case Opcode::kBroadcast:
      return eval_broadcast(op);
    case Opcode::kReshape:
      return eval_reshape(op);
    case Opcode::kBitcast:
      return eval_bitcast(op);
    case Opcode::kTranspose:
      return eval_transpose(op);
    case Opcode::kSlice:
      return eval_slice(op);
    case Opcode::kDynamicSlice:
      return eval_dynamic_slice(op);
    case Opcode::kDynamicUpdateSlice:
      return eval_dynamic_update_slice(op);
    case Opcode::kConcatenate:
      return eval_concatenate(op);
    case Opcode::kPad:
      return eval_pad(op);
    case Opcode::kReverse:
      return eval_reverse(op);
    case Opcode::kGetDimensionSize:
      return eval_get_dimension_size(op);
    case Opcode::kDot:
      return eval_dot(op);
    case Opcode::kConvolution:
      return eval_convolution(op);
    case Opcode::kReduce:
      return eval_reduce(op);
    case Opcode::kReduceWindow:
      return eval_reduce_window(op);
    case Opcode::kGather:
      return eval_gather(op);
    case Opcode::kScatter:
      return eval_scatter(op);
    case Opcode::kTuple:
      return eval_tuple(op);
    case Opcode::kGetTupleElement:
      return eval_get_tuple_element(op);
    case Opcode::kCall:
    case Opcode::kFusion:
      return eval_call(op);
    case Opcode::kMap:
      return eval_map(op);
    case Opcode::kWhile:
      return eval_while(op);
    case Opcode::kConditional:
      return eval_conditional(op);
    case Opcode::kCustomCall:
      return eval_custom_call(op);
    case Opcode::kAfterAll:
      return Value::tuple({});  // a token
    case Opcode::kPartitionId:
    case Opcode::kReplicaId:
      return op.unsupported("its value depends on the rank");
    case Opcode::kAsyncStart:
    case Opcode::kAsyncUpdate:
    case Opcode::kAsyncDone:
      return op.unsupported("async wrappers are not evaluated");
    default:
      break;
  }
  switch (ir::opcode_family(code)) {
    case ir::OpcodeFamily::kUnary:
      return eval_unary(op);
    case ir::OpcodeFamily::kBinary:
      return eval_binary(op);
    default:
      return op.unsupported();
  }
}

/// Checks the operands, runs the op and checks its result against the declared type.
Result evaluate_op(const Op& op) {
  if (++op.run.steps > op.run.options.max_steps) {
    return op.error("the evaluation exceeded its limit of " +
                    std::to_string(op.run.options.max_steps) + " instruction evaluations");
  }
  if (op.operands.size() != op.inst.operands.size()) {
    return op.error("is given " + std::to_string(op.operands.size()) + " operand values but has " +
                    std::to_string(op.inst.operands.size()) + " operands");
  }
  for (size_t i = 0; i < op.arity(); ++i) {
    const ir::InstrId id = op.inst.operands[i];
    if (id < 0 || static_cast<size_t>(id) >= op.comp.size()) {
      return op.error("operand " + std::to_string(i) + " is not an instruction of its computation");
    }
    if (!matches(op.operands[i], op.operand_type(i))) {
      return op.error("operand " + std::to_string(i) + " has shape " +
                      describe(op.operands[i], op.operand_type(i)) + " but '" + op.comp[id].name +
                      "' is declared " + op.operand_type(i).to_string(false));
    }
  }
  const std::optional<int64_t> count = element_count(op.type());
  if (!count) {
    return op.error("cannot evaluate a result of type " + op.type().to_string(false) +
                    " (unbounded dynamic or overflowing dimensions)");
  }
  if (*count > op.run.options.max_elements) {
    return op.error("the result " + op.type().to_string(false) + " has " + std::to_string(*count) +
                    " elements, more than the interpreter's limit of " +
                    std::to_string(op.run.options.max_elements));
  }
  Result r = dispatch(op);
  if (r && !matches(*r, op.type())) {
    return op.error("evaluates to shape " + describe(*r, op.type()) + " but is declared " +
                    op.type().to_string(false));
  }
  return r;
}

}  // namespace

bool matches(const Value& v, const ir::Type& t) {
  if (t.is_tuple()) {
    if (!v.is_tuple() || v.elements().size() != t.elements().size()) return false;
    for (size_t i = 0; i < t.elements().size(); ++i) {
      if (!matches(v.elements()[i], t.elements()[i])) return false;
    }
    return true;
  }
  if (!t.is_array()) return v.is_tuple() && v.elements().empty();  // a token
  return !v.is_tuple() && v.tensor().dims == t.dims() &&
         static_cast<int64_t>(v.tensor().data.size()) == v.tensor().element_count();
}

std::string describe(const Value& v, const ir::Type& t) {
  if (v.is_tuple()) {
    std::string out = "(";
    for (size_t i = 0; i < v.elements().size(); ++i) {
      if (i) out += ", ";
      const bool typed = t.is_tuple() && i < t.elements().size();
      out += describe(v.elements()[i], typed ? t.elements()[i] : ir::Type::token());
    }
    return out + ")";
  }
  const std::string_view dtype = t.is_array() ? ir::dtype_name(t.dtype()) : "";
  return std::string(dtype) + v.tensor().shape_string();
}

Result run_computation(Run& run, const ir::Computation& comp, std::span<const Value> args) {
  if (run.depth >= run.options.max_call_depth) {
    return error_at(run, comp.pos,
                    "calls nest deeper than " + std::to_string(run.options.max_call_depth) +
                        " levels (a recursive module?)");
  }
  const std::vector<ir::InstrId> params = comp.parameters();
  if (args.size() != params.size()) {
    return error_at(run, comp.pos,
                    "computation '" + comp.name + "' takes " + std::to_string(params.size()) +
                        " arguments but is given " + std::to_string(args.size()));
  }
  std::vector<std::optional<Value>> values(comp.size());
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i] < 0) {
      return error_at(run, comp.pos,
                      "computation '" + comp.name + "' has no parameter " + std::to_string(i));
    }
    const ir::Instruction& p = comp[params[i]];
    if (!matches(args[i], p.type)) {
      return error_at(run, p.pos,
                      "argument " + std::to_string(i) + " has shape " + describe(args[i], p.type) +
                          ", parameter '" + p.name + "' expects " + p.type.to_string(false));
    }
    values[static_cast<size_t>(params[i])] = args[i];
  }
  if (comp.root < 0 || static_cast<size_t>(comp.root) >= comp.size()) {
    return error_at(run, comp.pos, "computation '" + comp.name + "' has no ROOT");
  }
  const std::optional<std::vector<ir::InstrId>> order = comp.topological_order();
  if (!order) return error_at(run, comp.pos, "computation '" + comp.name + "' has a cycle");

  // Evaluate what the ROOT needs, operands before users; free each value after its last use.
  std::vector<bool> needed(comp.size(), false);
  std::vector<size_t> uses(comp.size(), 0);
  needed[static_cast<size_t>(comp.root)] = true;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    if (!needed[static_cast<size_t>(*it)]) continue;
    for (ir::InstrId o : comp[*it].operands) {
      if (o < 0 || static_cast<size_t>(o) >= comp.size()) continue;  // reported by evaluate_op
      needed[static_cast<size_t>(o)] = true;
      ++uses[static_cast<size_t>(o)];
    }
  }
  struct Nested {  // one level deeper for the instructions' calls, until this returns
    int& depth;
    explicit Nested(int& d) : depth(++d) {}
    ~Nested() { --depth; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
  } nested(run.depth);
  std::vector<Value> operands;
  for (ir::InstrId id : *order) {
    const auto at = static_cast<size_t>(id);
    const ir::Instruction& inst = comp[id];
    if (!needed[at] || inst.opcode == Opcode::kParameter) continue;
    operands.clear();
    for (ir::InstrId o : inst.operands) {
      if (o < 0 || static_cast<size_t>(o) >= comp.size() || !values[static_cast<size_t>(o)]) {
        return error_at(run, inst.pos, "'" + inst.name + "': an operand has no value");
      }
      operands.push_back(*values[static_cast<size_t>(o)]);
    }
    Result r = evaluate_op(Op{run, comp, inst, operands});
    if (!r) return r;
    values[at] = std::move(*r);
    for (ir::InstrId o : inst.operands) {
      if (--uses[static_cast<size_t>(o)] == 0 && o != comp.root) {
        values[static_cast<size_t>(o)].reset();
      }
    }
  }
  return std::move(*values[static_cast<size_t>(comp.root)]);
}

}  // namespace detail

Expected<Value> evaluate(const ir::Module& m, ir::CompId comp, std::span<const Value> args,
                         const EvalOptions& options) {
  detail::Run run{m, options};
  if (comp < 0 || static_cast<size_t>(comp) >= m.computations.size()) {
    return Diagnostic{options.file_name, {}, "no computation " + std::to_string(comp), ""};
  }
  return detail::run_computation(run, m.computations[static_cast<size_t>(comp)], args);
}

Expected<Value> evaluate_instruction(const ir::Module& m, const ir::Computation& c,
                                     const ir::Instruction& inst, std::span<const Value> operands,
                                     const EvalOptions& options) {
  detail::Run run{m, options};
  return detail::evaluate_op(detail::Op{run, c, inst, operands});
}

}  // namespace scalify::eval
