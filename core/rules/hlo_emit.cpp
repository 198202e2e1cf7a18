#include "rules/hlo_emit.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "ir/attributes.h"
#include "ir/opcode.h"

namespace scalify::rules::check {
namespace {

using egraph::AttrValue;
using List = std::vector<int64_t>;

std::string dims_text(const List& l) {
  std::string s = "{";
  for (size_t i = 0; i < l.size(); ++i) s += (i ? "," : "") + std::to_string(l[i]);
  return s + "}";
}

const AttrValue* find_attr(const egraph::Attrs& attrs, std::string_view key) {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

const List& list_attr(const Typed& t, std::string_view key) {
  static const List kNone;
  const AttrValue* v = find_attr(t.attrs, key);
  const List* l = v ? std::get_if<List>(v) : nullptr;
  return l ? *l : kNone;
}

std::string word_attr(const Typed& t, std::string_view key) {
  const AttrValue* v = find_attr(t.attrs, key);
  if (!v) return "";
  if (const std::string* s = std::get_if<std::string>(v)) return *s;
  return egraph::to_string(*v);
}

std::string literal(double x, ir::DType t) {
  if (t == ir::DType::kPred) return x != 0 ? "true" : "false";
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  if (ir::is_integer(t) || (std::trunc(x) == x && std::abs(x) < 1e15)) {
    return std::to_string(static_cast<long long>(std::llround(x)));
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

/// Operators that broadcast their number operands (numbers are scalars in rules).
bool broadcasts_numbers(const TNode& n) {
  if (n.op == "compare" || n.op == "select") return true;
  const auto code = ir::parse_opcode(n.op);
  return code && ir::is_elementwise(*code);
}

class Emitter {
 public:
  std::string emit(const Typed& t) {
    switch (t.node->kind) {
      case TNode::Kind::kOperand:
        return "%" + param_name(t.node->var);
      case TNode::Kind::kNumber:
        return line(t.type, "constant(" + literal(t.number, t.type.dtype()) + ")");
      case TNode::Kind::kApply:
        break;
    }
    std::vector<std::string> operands;
    const bool broadcast = broadcasts_numbers(*t.node);
    for (const Typed& a : t.args) {
      std::string name = emit(a);
      if (broadcast && a.node->kind == TNode::Kind::kNumber && t.type.rank() > 0) {
        const ir::Type to = ir::Type::array(a.type.dtype(), t.type.dims());
        name = line(to, "broadcast(" + name + "), dimensions={}");
      }
      operands.push_back(std::move(name));
    }
    const std::string& op = t.node->op;
    const auto code = ir::parse_opcode(op);
    if (code && ir::opcode_family(*code) == ir::OpcodeFamily::kBinary && operands.size() > 2) {
      // An n-ary application of an associative-commutative operator, folded from the left.
      std::string acc = operands[0];
      for (size_t i = 1; i + 1 < operands.size(); ++i) {
        acc = line(t.type, op + "(" + acc + ", " + operands[i] + ")");
      }
      return line(t.type, op + "(" + acc + ", " + operands.back() + ")");
    }
    std::string text = op + "(";
    for (size_t i = 0; i < operands.size(); ++i) text += (i ? ", " : "") + operands[i];
    text += ")" + attributes(t);
    return line(t.type, text);
  }

  std::string module(const Typed& root, const RuleVars& vars, const Binding& b,
                     std::string_view name) {
    vars_ = &vars;
    std::string params;
    for (size_t i = 0; i < vars.operands.size(); ++i) {
      const ir::Type type = b.types[i] ? *b.types[i] : ir::Type::array(ir::DType::kF32, {});
      params += "  %" + param_name(static_cast<uint32_t>(i)) + " = " + type.to_string(false) +
                " parameter(" + std::to_string(i) + ")\n";
    }
    std::string result = emit(root);
    std::string out = "HloModule " + std::string(name) + "\n\n";
    for (const auto& [reducer, text] : reducers_) out += text + "\n";
    out += "ENTRY %main {\n" + params + body_;
    out += "  ROOT %result = " + root.type.to_string(false) + " copy(" + result + ")\n}\n";
    return out;
  }

 private:
  std::string param_name(uint32_t var) const { return vars_->operands[var]; }

  std::string line(const ir::Type& type, const std::string& text) {
    const std::string name = "%n." + std::to_string(++count_);
    body_ += "  " + name + " = " + type.to_string(false) + " " + text + "\n";
    return name;
  }

  std::string reducer(const std::string& op, ir::DType dtype) {
    const std::string t = std::string(ir::dtype_name(dtype)) + "[]";
    const std::string name = "%reducer." + op + "." + std::string(ir::dtype_name(dtype));
    if (!reducers_.count(name)) {
      reducers_[name] = name + " {\n  %a = " + t + " parameter(0)\n  %b = " + t +
                        " parameter(1)\n  ROOT %r = " + t + " " + op + "(%a, %b)\n}\n";
    }
    return name;
  }

  std::string attributes(const Typed& t) {
    const std::string& op = t.node->op;
    std::string s;
    if (op == "transpose" || op == "broadcast" || op == "concatenate" || op == "reverse" ||
        op == "reduce") {
      s += ", dimensions=" + dims_text(list_attr(t, "dimensions"));
    }
    if (op == "reduce") {
      s += ", to_apply=" + reducer(word_attr(t, "to_apply"), t.args[0].type.dtype());
    }
    if (op == "slice") {
      const List& start = list_attr(t, "start_indices");
      const List& limit = list_attr(t, "limit_indices");
      const List& strides = list_attr(t, "strides");
      s += ", slice={";
      for (size_t i = 0; i < start.size() && i < limit.size() && i < strides.size(); ++i) {
        s += std::string(i ? ", " : "") + "[" + std::to_string(start[i]) + ":" +
             std::to_string(limit[i]) + ":" + std::to_string(strides[i]) + "]";
      }
      s += "}";
    }
    if (op == "dot") {
      for (const char* key :
           {"lhs_batch_dims", "rhs_batch_dims", "lhs_contracting_dims", "rhs_contracting_dims"}) {
        if (find_attr(t.attrs, key))
          s += std::string(", ") + key + "=" + dims_text(list_attr(t, key));
      }
    }
    if (op == "compare") s += ", direction=" + word_attr(t, "direction");
    if (op == "custom-call") {
      s += ", custom_call_target=" + ir::quote(word_attr(t, "custom_call_target"));
      if (find_attr(t.attrs, "backend_config")) {
        s += ", backend_config=" + ir::quote(word_attr(t, "backend_config"));
      }
    }
    return s;
  }

  const RuleVars* vars_ = nullptr;
  std::string body_;
  int count_ = 0;
  std::map<std::string, std::string> reducers_;
};

}  // namespace

std::string to_hlo_module(const Typed& side, const RuleVars& vars, const Binding& b,
                          std::string_view module_name) {
  return Emitter().module(side, vars, b, module_name);
}

}  // namespace scalify::rules::check
