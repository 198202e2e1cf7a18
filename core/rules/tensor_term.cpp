// Compiling tensor rule sides, and writing instances back as text (typing: tensor_types.cpp).
#include "rules/tensor_term.h"

#include <algorithm>

namespace scalify::rules::check {
namespace {

using egraph::AttrValue;

class SideCompiler {
 public:
  SideCompiler(RuleVars& vars, const std::vector<std::string>& ac_ops, std::string_view file)
      : vars_(vars), ac_ops_(ac_ops), file_(file) {}

  Expected<TNode> node(const Term& t) {
    TNode n;
    n.pos = t.pos;
    switch (t.kind) {
      case Term::Kind::kVar: {
        if (std::find(vars_.attrs.begin(), vars_.attrs.end(), t.name) != vars_.attrs.end()) {
          return error(t.pos, "?" + t.name + " is an attribute variable; it cannot be an operand");
        }
        n.kind = TNode::Kind::kOperand;
        n.var = index_of(vars_.operands, t.name);
        return n;
      }
      case Term::Kind::kNumber: {
        n.kind = TNode::Kind::kNumber;
        n.value.literal = AttrValue(t.number);
        return n;
      }
      case Term::Kind::kWord:
        return error(t.pos, "'" + t.name +
                                "' is a nullary operator: a tensor rule's leaves are operand "
                                "variables and numbers");
      case Term::Kind::kList:
      case Term::Kind::kString:
        return error(t.pos, "a list or string can only be an attribute value");
      case Term::Kind::kApply:
        break;
    }
    if (t.name == "constant" && t.args.empty() && t.attrs.size() == 1 &&
        t.attrs[0].key == "value") {
      n.kind = TNode::Kind::kNumber;
      auto v = value(t.attrs[0].value);
      if (!v) return v.error();
      n.value = std::move(*v);
      return n;
    }
    n.kind = TNode::Kind::kApply;
    n.op = t.name;
    for (const Term& a : t.args) {
      auto child = node(a);
      if (!child) return child.error();
      // Nested applications of an associative-commutative operator are one n-ary application.
      const bool ac = std::find(ac_ops_.begin(), ac_ops_.end(), t.name) != ac_ops_.end();
      if (ac && child->kind == TNode::Kind::kApply && child->op == t.name && child->attrs.empty() &&
          t.attrs.empty()) {
        for (TNode& grandchild : child->args) n.args.push_back(std::move(grandchild));
      } else {
        n.args.push_back(std::move(*child));
      }
    }
    for (const Term::Attr& a : t.attrs) {
      auto v = value(a.value);
      if (!v) return v.error();
      n.attrs.emplace_back(a.key, std::move(*v));
    }
    return n;
  }

 private:
  Diagnostic error(SourcePos pos, std::string message) const {
    return Diagnostic{std::string(file_), pos, std::move(message), ""};
  }

  static uint32_t index_of(std::vector<std::string>& names, const std::string& name) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) return static_cast<uint32_t>(it - names.begin());
    names.push_back(name);
    return static_cast<uint32_t>(names.size() - 1);
  }

  /// An attribute value: a literal, a variable (a new one is an attribute variable), or a
  /// function call over bound variables.
  Expected<AttrExpr> value(const Term& t) {
    if (t.kind == Term::Kind::kVar) {
      if (std::find(vars_.operands.begin(), vars_.operands.end(), t.name) != vars_.operands.end()) {
        return error(t.pos, "?" + t.name + " is an operand variable; it cannot be an attribute");
      }
      AttrExpr e;
      e.kind = AttrExpr::Kind::kAttrVar;
      e.var = index_of(vars_.attrs, t.name);
      e.pos = t.pos;
      return e;
    }
    return compile_attr_expr(
        t, [this](const std::string& name) { return vars_.resolve(name); }, file_);
  }

  RuleVars& vars_;
  const std::vector<std::string>& ac_ops_;
  std::string_view file_;
};

}  // namespace

std::optional<VarRef> RuleVars::resolve(const std::string& name) const {
  auto a = std::find(attrs.begin(), attrs.end(), name);
  if (a != attrs.end())
    return VarRef{VarRef::Kind::kAttr, static_cast<uint32_t>(a - attrs.begin())};
  auto o = std::find(operands.begin(), operands.end(), name);
  if (o != operands.end()) {
    return VarRef{VarRef::Kind::kClass, static_cast<uint32_t>(o - operands.begin())};
  }
  return std::nullopt;
}

Expected<TNode> compile_side(const Term& side, RuleVars& vars,
                             const std::vector<std::string>& ac_ops, std::string_view file) {
  return SideCompiler(vars, ac_ops, file).node(side);
}

std::string to_string(const Typed& t, const RuleVars& vars) {
  if (!t.node) return "?";
  switch (t.node->kind) {
    case TNode::Kind::kOperand:
      return "?" + vars.operands[t.node->var];
    case TNode::Kind::kNumber:
      return egraph::to_string(AttrValue(t.number));
    case TNode::Kind::kApply:
      break;
  }
  std::string s = "(" + t.node->op;
  for (const Typed& a : t.args) s += " " + to_string(a, vars);
  for (const auto& [key, value] : t.attrs) {
    const std::string* word = std::get_if<std::string>(&value);
    const bool quote =
        word && (word->empty() || word->find_first_of(" ()[],:#\"?") != std::string::npos);
    s += " :" + key + " " + (quote ? "\"" + *word + "\"" : egraph::to_string(value));
  }
  return s + ")";
}

}  // namespace scalify::rules::check
