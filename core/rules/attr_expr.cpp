// Attribute expressions: compiled from rule terms, evaluated on a match (the built-in functions
// themselves are in attr_functions.cpp).
#include "rules/attr_expr.h"

#include <algorithm>

namespace scalify::rules {
namespace {

using egraph::AttrValue;

std::string arity_text(const AttrFunction& f) {
  if (f.max_args < 0) return "at least " + std::to_string(f.min_args) + " arguments";
  if (f.min_args == f.max_args) {
    return std::to_string(f.min_args) + (f.min_args == 1 ? " argument" : " arguments");
  }
  return std::to_string(f.min_args) + " to " + std::to_string(f.max_args) + " arguments";
}

Diagnostic error(std::string_view file, SourcePos pos, std::string message) {
  return Diagnostic{std::string(file), pos, std::move(message), ""};
}

std::string known_functions(bool guards) {
  std::string s;
  for (const AttrFunction& f : attr_functions()) {
    if (f.guard != guards) continue;
    s += (s.empty() ? "" : ", ") + std::string(f.name);
  }
  return s;
}

Expected<AttrExpr> compile_call(const Term& t, const AttrFunction& fn, const VarResolver& resolve,
                                std::string_view file) {
  if (!t.attrs.empty()) {
    return error(file, t.attrs[0].pos, "'" + t.name + "' takes no `:key value` attributes");
  }
  const int n = static_cast<int>(t.args.size());
  if (n < fn.min_args || (fn.max_args >= 0 && n > fn.max_args)) {
    return error(file, t.pos,
                 "'" + t.name + "' takes " + arity_text(fn) + ": " + std::string(fn.usage));
  }
  AttrExpr e;
  e.kind = AttrExpr::Kind::kCall;
  e.fn = &fn;
  e.pos = t.pos;
  for (size_t i = 0; i < t.args.size(); ++i) {
    const Term& arg = t.args[i];
    if (fn.reads_type && i == 0) {
      const auto ref = arg.kind == Term::Kind::kVar ? resolve(arg.name) : std::nullopt;
      if (!ref || ref->kind != VarRef::Kind::kClass) {
        return error(file, arg.pos,
                     "'" + t.name +
                         "' reads an operand's type: its first argument must be an "
                         "operand variable, as in " +
                         std::string(fn.usage));
      }
      AttrExpr v;
      v.kind = AttrExpr::Kind::kClassVar;
      v.var = ref->index;
      v.pos = arg.pos;
      e.args.push_back(std::move(v));
      continue;
    }
    auto sub = compile_attr_expr(arg, resolve, file);
    if (!sub) return sub.error();
    e.args.push_back(std::move(*sub));
  }
  return e;
}

}  // namespace

bool AttrExpr::uses_types() const {
  if (kind == Kind::kClassVar) return true;
  return std::any_of(args.begin(), args.end(), [](const AttrExpr& a) { return a.uses_types(); });
}

bool is_attr_guard(std::string_view name) {
  const AttrFunction* f = find_attr_function(name);
  return f && f->guard;
}

Expected<AttrExpr> compile_attr_expr(const Term& t, const VarResolver& resolve,
                                     std::string_view file) {
  AttrExpr e;
  e.pos = t.pos;
  switch (t.kind) {
    case Term::Kind::kNumber:
      e.literal = t.is_integer ? AttrValue(t.integer) : AttrValue(t.number);
      return e;
    case Term::Kind::kList:
      e.literal = AttrValue(t.list);
      return e;
    case Term::Kind::kWord:
    case Term::Kind::kString:
      e.literal = AttrValue(t.name);
      return e;
    case Term::Kind::kVar: {
      const auto ref = resolve(t.name);
      if (!ref) return error(file, t.pos, "attribute variable ?" + t.name + " is not bound");
      if (ref->kind == VarRef::Kind::kClass) {
        return error(file, t.pos,
                     "?" + t.name +
                         " is an operand variable; it cannot be an attribute (its "
                         "shape is (shape ?" +
                         t.name + "))");
      }
      e.kind = AttrExpr::Kind::kAttrVar;
      e.var = ref->index;
      return e;
    }
    case Term::Kind::kApply: {
      const AttrFunction* fn = find_attr_function(t.name);
      if (!fn) {
        return error(
            file, t.pos,
            "unknown attribute function '" + t.name + "'; built-in: " + known_functions(false));
      }
      if (fn->guard) {
        return error(file, t.pos,
                     "'" + t.name + "' is a guard (it tests, after `if`); it has no value here");
      }
      return compile_call(t, *fn, resolve, file);
    }
  }
  return e;
}

Expected<AttrExpr> compile_attr_guard(const Term& guard, const VarResolver& resolve,
                                      std::string_view file) {
  const AttrFunction* fn =
      guard.kind == Term::Kind::kApply ? find_attr_function(guard.name) : nullptr;
  if (!fn || !fn->guard) {
    return error(
        file, guard.pos,
        "unknown attribute guard '" + guard.name + "'; built-in: " + known_functions(true));
  }
  return compile_call(guard, *fn, resolve, file);
}

std::optional<AttrValue> evaluate(const AttrExpr& e, const AttrScope& scope) {
  switch (e.kind) {
    case AttrExpr::Kind::kLiteral:
      return e.literal;
    case AttrExpr::Kind::kAttrVar: {
      const AttrValue* v = scope.attr(e.var);
      if (!v) return std::nullopt;
      return *v;
    }
    case AttrExpr::Kind::kClassVar:
      return std::nullopt;  // only a type function's first argument, read below
    case AttrExpr::Kind::kCall:
      break;
  }
  std::optional<ir::Type> type;
  std::vector<AttrValue> values;
  for (size_t i = 0; i < e.args.size(); ++i) {
    if (e.fn->reads_type && i == 0) {
      type = scope.type(e.args[0].var);
      if (!type) return std::nullopt;
      continue;
    }
    auto v = evaluate(e.args[i], scope);
    if (!v) return std::nullopt;
    values.push_back(std::move(*v));
  }
  return e.fn->eval(type ? &*type : nullptr, values);
}

bool holds(const AttrExpr& g, const AttrScope& scope) {
  const auto v = evaluate(g, scope);
  const int64_t* i = v ? std::get_if<int64_t>(&*v) : nullptr;
  return i && *i == 1;
}

}  // namespace scalify::rules
