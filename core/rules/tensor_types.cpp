// Typing instances of tensor rule sides as HLO's shape inference would (tensor_term.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "ir/opcode.h"
#include "rules/tensor_term.h"

namespace scalify::rules::check {
namespace {

using egraph::AttrValue;
using List = std::vector<int64_t>;

/// A reason why an instance does not type-check; travels to type_side's caller.
struct TypeError {
  std::string why;
  bool undefined = false;
};

[[noreturn]] void fail(std::string why) { throw TypeError{std::move(why)}; }
[[noreturn]] void undefined(std::string why) { throw TypeError{std::move(why), true}; }

std::string show(const ir::Type& t) { return t.to_string(false); }

std::string show(const List& l) { return egraph::to_string(AttrValue(l)); }

// ---- the operators the checker knows, and their attributes ----

struct OpSpec {
  std::string_view name;
  std::array<std::string_view, 4> required;
  std::array<std::string_view, 2> optional;
};

constexpr std::array kOps = {
    OpSpec{"compare", {"direction"}, {}},
    OpSpec{"select", {}, {}},
    OpSpec{"convert", {"type"}, {}},
    OpSpec{"transpose", {"dimensions"}, {}},
    OpSpec{"reshape", {"shape"}, {}},
    OpSpec{"broadcast", {"shape", "dimensions"}, {}},
    OpSpec{"slice", {"start_indices", "limit_indices", "strides"}, {}},
    OpSpec{"concatenate", {"dimensions"}, {}},
    OpSpec{"dot",
           {"lhs_contracting_dims", "rhs_contracting_dims"},
           {"lhs_batch_dims", "rhs_batch_dims"}},
    OpSpec{"reduce", {"dimensions", "to_apply"}, {}},
    OpSpec{"reverse", {"dimensions"}, {}},
    OpSpec{"custom-call", {"custom_call_target"}, {"backend_config"}},
};

/// Unary and binary elementwise operators (by ir::opcode_family) take no attributes.
std::optional<ir::OpcodeFamily> elementwise_family(std::string_view op) {
  const auto code = ir::parse_opcode(op);
  if (!code) return std::nullopt;
  const ir::OpcodeFamily f = ir::opcode_family(*code);
  if (f == ir::OpcodeFamily::kUnary || f == ir::OpcodeFamily::kBinary) return f;
  return std::nullopt;
}

const OpSpec* find_op(std::string_view op) {
  for (const OpSpec& s : kOps) {
    if (s.name == op) return &s;
  }
  return nullptr;
}

constexpr std::array<std::string_view, 2> kIdentityTargets = {"AwsNeuronTransferWithStaticRing",
                                                              "Sharding"};
constexpr std::string_view kRmsNorm = "AwsNeuronRmsNorm";
constexpr std::array<std::string_view, 6> kReducers = {"add",     "multiply", "maximum",
                                                       "minimum", "and",      "or"};
constexpr std::array<std::string_view, 6> kDirections = {"EQ", "NE", "LT", "LE", "GT", "GE"};

// ---- typing an instance ----

const AttrValue* find_attr(const egraph::Attrs& attrs, std::string_view key) {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

/// The instance of one application: its operator, typed operands and evaluated attributes.
struct App {
  const TNode& node;
  const std::vector<Typed>& args;
  const egraph::Attrs& attrs;

  std::string who() const { return node.op; }

  const ir::Type& arg(size_t i) const { return args[i].type; }
  void arity(size_t n) const {
    if (args.size() != n) {
      fail(who() + " takes " + std::to_string(n) + " operand" + (n == 1 ? "" : "s") + ", not " +
           std::to_string(args.size()));
    }
  }
  const List& list(std::string_view key) const {
    const AttrValue* v = find_attr(attrs, key);
    const List* l = v ? std::get_if<List>(v) : nullptr;
    if (!l) fail(who() + ": :" + std::string(key) + " must be a list of integers");
    return *l;
  }
  const List* optional_list(std::string_view key) const {
    return find_attr(attrs, key) ? &list(key) : nullptr;
  }
  std::string word(std::string_view key) const {
    const AttrValue* v = find_attr(attrs, key);
    const std::string* s = v ? std::get_if<std::string>(v) : nullptr;
    if (!s) fail(who() + ": :" + std::string(key) + " must be a word");
    return *s;
  }
  int64_t integer(std::string_view key) const {
    const AttrValue* v = find_attr(attrs, key);
    if (v) {
      if (const int64_t* i = std::get_if<int64_t>(v)) return *i;
      if (const std::string* s = std::get_if<std::string>(v)) {
        int64_t x = 0;
        size_t used = 0;
        for (char c : *s) {
          if (c < '0' || c > '9' || x > (int64_t{1} << 40)) break;
          x = x * 10 + (c - '0');
          ++used;
        }
        if (used == s->size() && used > 0) return x;
      }
    }
    fail(who() + ": :" + std::string(key) + " must be an integer (or its decimal digits)");
  }
  /// Checks that every entry of `dims` is a dimension of a rank-`rank` value, each once.
  void dims_in_range(const List& dims, int64_t rank, std::string_view what) const {
    std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)), false);
    for (int64_t d : dims) {
      if (d < 0 || d >= rank) {
        fail(who() + ": " + std::string(what) + " " + show(dims) + " is out of range for rank " +
             std::to_string(rank));
      }
      if (seen[static_cast<size_t>(d)]) {
        fail(who() + ": " + std::string(what) + " " + show(dims) + " repeats " + std::to_string(d));
      }
      seen[static_cast<size_t>(d)] = true;
    }
  }
};

ir::Type array(ir::DType t, List dims) { return ir::Type::array(t, std::move(dims)); }

void need_array(const App& a, size_t i) {
  if (!a.arg(i).is_array()) fail(a.who() + ": operand " + std::to_string(i) + " is not an array");
}

ir::Type type_elementwise(const App& a, ir::OpcodeFamily family) {
  if (family == ir::OpcodeFamily::kUnary) a.arity(1);
  if (family == ir::OpcodeFamily::kBinary && a.args.size() < 2) a.arity(2);
  // Numbers are scalars that the op broadcasts; the tensors must agree.
  std::optional<ir::Type> shape;
  for (const Typed& t : a.args) {
    if (t.node->kind == TNode::Kind::kNumber) continue;
    if (!shape) {
      shape = t.type;
    } else if (!(t.type == *shape)) {
      fail(a.who() + ": operands " + show(*shape) + " and " + show(t.type) + " differ");
    }
  }
  return shape ? *shape : a.arg(0);
}

ir::Type type_compare(const App& a) {
  a.arity(2);
  const std::string dir = a.word("direction");
  if (std::find(kDirections.begin(), kDirections.end(), dir) == kDirections.end()) {
    fail("compare: :direction must be EQ, NE, LT, LE, GT or GE, not " + dir);
  }
  const ir::Type t = type_elementwise(a, ir::OpcodeFamily::kBinary);
  return array(ir::DType::kPred, t.dims());
}

ir::Type type_select(const App& a) {
  a.arity(3);
  const ir::Type& p = a.arg(0);
  if (p.dtype() != ir::DType::kPred) fail("select: the first operand must be pred");
  std::optional<ir::Type> value;
  for (size_t i = 1; i < 3; ++i) {
    if (a.args[i].node->kind == TNode::Kind::kNumber) continue;
    if (value && !(a.arg(i) == *value)) fail("select: the two values' types differ");
    value = a.arg(i);
  }
  ir::Type out = value ? *value : a.arg(1);
  if (p.rank() != 0 && p.dims() != out.dims()) {
    if (value) fail("select: the predicate " + show(p) + " and values " + show(out) + " differ");
    out = array(out.dtype(), p.dims());
  }
  return out;
}

ir::Type type_convert(const App& a) {
  a.arity(1);
  need_array(a, 0);
  const std::string name = a.word("type");
  const auto dtype = ir::parse_dtype(name);
  if (!dtype) fail("convert: unknown element type '" + name + "'");
  return array(*dtype, a.arg(0).dims());
}

ir::Type type_transpose(const App& a) {
  a.arity(1);
  need_array(a, 0);
  const ir::Type& x = a.arg(0);
  const List& p = a.list("dimensions");
  if (static_cast<int64_t>(p.size()) != x.rank()) {
    fail("transpose: :dimensions " + show(p) + " is not a permutation of the rank-" +
         std::to_string(x.rank()) + " operand " + show(x));
  }
  a.dims_in_range(p, x.rank(), ":dimensions");
  List dims;
  for (int64_t d : p) dims.push_back(x.dim(d));
  return array(x.dtype(), dims);
}

int64_t count(const List& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

void valid_shape(const App& a, const List& s) {
  for (int64_t d : s) {
    if (d < 0 || d > (int64_t{1} << 20)) fail(a.who() + ": :shape " + show(s) + " is not a shape");
  }
}

ir::Type type_reshape(const App& a) {
  a.arity(1);
  need_array(a, 0);
  const List& s = a.list("shape");
  valid_shape(a, s);
  if (count(s) != a.arg(0).element_count()) {
    fail("reshape: :shape " + show(s) + " does not have the " +
         std::to_string(a.arg(0).element_count()) + " elements of " + show(a.arg(0)));
  }
  return array(a.arg(0).dtype(), s);
}

ir::Type type_broadcast(const App& a) {
  a.arity(1);
  need_array(a, 0);
  const ir::Type& x = a.arg(0);
  const List& s = a.list("shape");
  const List& d = a.list("dimensions");
  valid_shape(a, s);
  if (static_cast<int64_t>(d.size()) != x.rank()) {
    fail("broadcast: :dimensions " + show(d) + " does not map the rank-" +
         std::to_string(x.rank()) + " operand " + show(x));
  }
  a.dims_in_range(d, static_cast<int64_t>(s.size()), ":dimensions");
  for (size_t i = 0; i < d.size(); ++i) {
    if (s[static_cast<size_t>(d[i])] != x.dim(static_cast<int64_t>(i))) {
      fail("broadcast: operand " + show(x) + " does not fit :shape " + show(s) +
           " at :dimensions " + show(d));
    }
  }
  return array(x.dtype(), s);
}

ir::Type type_slice(const App& a) {
  a.arity(1);
  need_array(a, 0);
  const ir::Type& x = a.arg(0);
  const List& start = a.list("start_indices");
  const List& limit = a.list("limit_indices");
  const List& strides = a.list("strides");
  const size_t r = static_cast<size_t>(x.rank());
  if (start.size() != r || limit.size() != r || strides.size() != r) {
    fail("slice: the index lists must have one entry per dimension of " + show(x));
  }
  List dims;
  for (size_t i = 0; i < r; ++i) {
    if (start[i] < 0 || start[i] > limit[i] || limit[i] > x.dims()[i] || strides[i] < 1) {
      fail("slice: [" + std::to_string(start[i]) + ":" + std::to_string(limit[i]) + ":" +
           std::to_string(strides[i]) + "] does not fit dimension " + std::to_string(i) + " of " +
           show(x));
    }
    dims.push_back((limit[i] - start[i] + strides[i] - 1) / strides[i]);
  }
  return array(x.dtype(), dims);
}

ir::Type type_concatenate(const App& a) {
  if (a.args.empty()) fail("concatenate needs operands");
  const List& d = a.list("dimensions");
  for (size_t i = 0; i < a.args.size(); ++i) need_array(a, i);
  const ir::Type& first = a.arg(0);
  if (d.size() != 1) fail("concatenate: :dimensions must hold one dimension");
  a.dims_in_range(d, first.rank(), ":dimensions");
  List dims = first.dims();
  const size_t k = static_cast<size_t>(d[0]);
  for (size_t i = 1; i < a.args.size(); ++i) {
    const ir::Type& t = a.arg(i);
    bool fits = t.rank() == first.rank() && t.dtype() == first.dtype();
    for (size_t j = 0; fits && j < dims.size(); ++j) fits = j == k || t.dims()[j] == dims[j];
    if (!fits) {
      fail("concatenate: " + show(t) + " does not fit " + show(first) + " along dimension " +
           std::to_string(k));
    }
    dims[k] += t.dims()[k];
  }
  return array(first.dtype(), dims);
}

ir::Type type_dot(const App& a) {
  a.arity(2);
  need_array(a, 0);
  need_array(a, 1);
  const ir::Type& l = a.arg(0);
  const ir::Type& r = a.arg(1);
  if (l.dtype() != r.dtype()) fail("dot: operand element types differ");
  const List& lc = a.list("lhs_contracting_dims");
  const List& rc = a.list("rhs_contracting_dims");
  const List* lb = a.optional_list("lhs_batch_dims");
  const List* rb = a.optional_list("rhs_batch_dims");
  if (!lb != !rb) fail("dot: :lhs_batch_dims and :rhs_batch_dims come together");
  const List none;
  const List& lbd = lb ? *lb : none;
  const List& rbd = rb ? *rb : none;
  if (lc.size() != rc.size() || lbd.size() != rbd.size()) {
    fail("dot: the lhs and rhs dimension lists differ in length");
  }
  List lall = lbd, rall = rbd;
  lall.insert(lall.end(), lc.begin(), lc.end());
  rall.insert(rall.end(), rc.begin(), rc.end());
  a.dims_in_range(lall, l.rank(), "lhs batch and contracting dimensions");
  a.dims_in_range(rall, r.rank(), "rhs batch and contracting dimensions");
  for (size_t i = 0; i < lall.size(); ++i) {
    if (l.dim(lall[i]) != r.dim(rall[i])) {
      fail("dot: lhs dimension " + std::to_string(lall[i]) + " of " + show(l) +
           " and rhs dimension " + std::to_string(rall[i]) + " of " + show(r) + " differ");
    }
  }
  List dims;
  for (int64_t d : lbd) dims.push_back(l.dim(d));
  for (int64_t i = 0; i < l.rank(); ++i) {
    if (std::find(lall.begin(), lall.end(), i) == lall.end()) dims.push_back(l.dim(i));
  }
  for (int64_t i = 0; i < r.rank(); ++i) {
    if (std::find(rall.begin(), rall.end(), i) == rall.end()) dims.push_back(r.dim(i));
  }
  return array(l.dtype(), dims);
}

ir::Type type_reduce(const App& a) {
  a.arity(2);
  need_array(a, 0);
  const ir::Type& x = a.arg(0);
  const List& d = a.list("dimensions");
  const std::string op = a.word("to_apply");
  if (std::find(kReducers.begin(), kReducers.end(), op) == kReducers.end()) {
    fail("reduce: :to_apply must be add, multiply, maximum, minimum, and or or, not " + op);
  }
  a.dims_in_range(d, x.rank(), ":dimensions");
  if (a.arg(1).rank() != 0 || a.arg(1).dtype() != x.dtype()) {
    fail("reduce: the initial value must be a scalar of " + show(x) + "'s element type");
  }
  List dims;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (std::find(d.begin(), d.end(), i) == d.end()) dims.push_back(x.dim(i));
  }
  return array(x.dtype(), dims);
}

ir::Type type_reverse(const App& a) {
  a.arity(1);
  need_array(a, 0);
  a.dims_in_range(a.list("dimensions"), a.arg(0).rank(), ":dimensions");
  return a.arg(0);
}

ir::Type type_custom_call(const App& a) {
  const std::string target = a.word("custom_call_target");
  if (std::find(kIdentityTargets.begin(), kIdentityTargets.end(), target) !=
      kIdentityTargets.end()) {
    a.arity(1);
    if (find_attr(a.attrs, "backend_config")) fail(target + " takes no :backend_config");
    return a.arg(0);
  }
  if (target != kRmsNorm) {
    fail("custom-call: the checker knows no semantics for target '" + target + "'");
  }
  a.arity(3);
  for (size_t i = 0; i < 3; ++i) need_array(a, i);
  const ir::Type& x = a.arg(0);
  const int64_t axis = a.integer("backend_config");
  if (axis < 0 || axis >= x.rank()) {
    fail(target + ": axis " + std::to_string(axis) + " is not a dimension of " + show(x));
  }
  if (a.arg(1).rank() != 1 || a.arg(1).dim(0) != x.dim(axis) || a.arg(1).dtype() != x.dtype()) {
    fail(target + ": the weight must be a vector of dimension " + std::to_string(axis) + " of " +
         show(x));
  }
  if (a.arg(2).rank() != 0 || a.arg(2).dtype() != x.dtype()) {
    fail(target + ": epsilon must be a scalar of " + show(x) + "'s element type");
  }
  return x;
}

ir::Type type_apply(const App& a) {
  if (auto family = elementwise_family(a.node.op)) {
    if (!a.attrs.empty()) fail(a.who() + " takes no attributes");
    return type_elementwise(a, *family);
  }
  const OpSpec* spec = find_op(a.node.op);
  if (!spec) fail("'" + a.node.op + "' is not an HLO operator the checker knows");
  for (const auto& [key, value] : a.attrs) {
    const bool known =
        std::find(spec->required.begin(), spec->required.end(), key) != spec->required.end() ||
        std::find(spec->optional.begin(), spec->optional.end(), key) != spec->optional.end();
    if (!known || key.empty()) fail(a.who() + " has no attribute :" + key);
  }
  for (std::string_view key : spec->required) {
    if (!key.empty() && !find_attr(a.attrs, key)) {
      fail(a.who() + " needs :" + std::string(key));
    }
  }
  const std::string_view op = a.node.op;
  if (op == "compare") return type_compare(a);
  if (op == "select") return type_select(a);
  if (op == "convert") return type_convert(a);
  if (op == "transpose") return type_transpose(a);
  if (op == "reshape") return type_reshape(a);
  if (op == "broadcast") return type_broadcast(a);
  if (op == "slice") return type_slice(a);
  if (op == "concatenate") return type_concatenate(a);
  if (op == "dot") return type_dot(a);
  if (op == "reduce") return type_reduce(a);
  if (op == "reverse") return type_reverse(a);
  return type_custom_call(a);
}

/// The element type numbers take among `args`: the first operand that is not a number and not
/// a predicate, else `hint`.
ir::DType number_type(const std::vector<Typed>& args, ir::DType hint) {
  for (const Typed& t : args) {
    if (t.node && t.node->kind != TNode::Kind::kNumber && t.type.is_array() &&
        t.type.dtype() != ir::DType::kPred) {
      return t.type.dtype();
    }
  }
  return hint;
}

Typed type_node(const TNode& n, const Binding& b, ir::DType hint) {
  Typed out;
  out.node = &n;
  const BindingScope scope(b);
  switch (n.kind) {
    case TNode::Kind::kOperand: {
      if (!b.types[n.var]) fail("an operand variable has no type");
      out.type = *b.types[n.var];
      return out;
    }
    case TNode::Kind::kNumber: {
      const auto v = evaluate(n.value, scope);
      const double* d = v ? std::get_if<double>(&*v) : nullptr;
      const int64_t* i = v ? std::get_if<int64_t>(&*v) : nullptr;
      if (!d && !i) undefined("a constant's value is not a number");
      out.number = d ? *d : static_cast<double>(*i);
      out.type = array(hint, {});
      // As in the checker's e-graph: a number that is not an integer cannot stand for an
      // integer or pred value, so a rule that would build one there does not fire.
      if ((ir::is_integer(hint) || hint == ir::DType::kPred) &&
          out.number != std::trunc(out.number)) {
        undefined("the number " + std::to_string(out.number) + " in an " +
                  std::string(ir::dtype_name(hint)) + " position");
      }
      return out;
    }
    case TNode::Kind::kApply:
      break;
  }
  for (const auto& [key, expr] : n.attrs) {
    auto v = evaluate(expr, scope);
    if (!v) undefined(n.op + ": the value of :" + key + " is undefined for this instance");
    out.attrs.emplace_back(key, std::move(*v));
  }
  // Tensors first; then numbers, typed like their tensor siblings.
  out.args.resize(n.args.size());
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (n.args[i].kind != TNode::Kind::kNumber) out.args[i] = type_node(n.args[i], b, hint);
  }
  const ir::DType numbers = number_type(out.args, hint);
  for (size_t i = 0; i < n.args.size(); ++i) {
    if (n.args[i].kind == TNode::Kind::kNumber) out.args[i] = type_node(n.args[i], b, numbers);
  }
  out.type = type_apply(App{n, out.args, out.attrs});
  return out;
}

}  // namespace

std::variant<Typed, TypeFailure> type_side(const TNode& side, const Binding& b) {
  try {
    return type_node(side, b, ir::DType::kF32);
  } catch (const TypeError& e) {
    return TypeFailure{e.why, e.undefined};
  }
}
bool known_operator(std::string_view op) {
  return elementwise_family(op).has_value() || find_op(op) != nullptr;
}

std::variant<ir::Type, TypeFailure> type_application(std::string_view op,
                                                     std::span<const std::optional<ir::Type>> args,
                                                     const egraph::Attrs& attrs) {
  TNode node;
  node.op = std::string(op);
  std::vector<TNode> arg_nodes(args.size());
  std::vector<Typed> typed(args.size());
  const ir::DType numbers = [&] {
    for (const auto& t : args) {
      if (t && t->is_array() && t->dtype() != ir::DType::kPred) return t->dtype();
    }
    return ir::DType::kF32;
  }();
  for (size_t i = 0; i < args.size(); ++i) {
    arg_nodes[i].kind = args[i] ? TNode::Kind::kOperand : TNode::Kind::kNumber;
    typed[i].node = &arg_nodes[i];
    typed[i].type = args[i] ? *args[i] : array(numbers, {});
  }
  try {
    return type_apply(App{node, typed, attrs});
  } catch (const TypeError& e) {
    return TypeFailure{e.why, e.undefined};
  }
}

}  // namespace scalify::rules::check
