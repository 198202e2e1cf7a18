#include "rules/rule_ast.h"

#include <algorithm>

namespace scalify::rules {

bool same_attrs(const std::vector<Term::Attr>& a, const std::vector<Term::Attr>& b) {
  if (a.size() != b.size()) return false;
  for (const Term::Attr& x : a) {
    auto it = std::find_if(b.begin(), b.end(), [&](const Term::Attr& y) { return y.key == x.key; });
    if (it == b.end() || !same_term(x.value, it->value)) return false;
  }
  return true;
}

bool same_term(const Term& a, const Term& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Term::Kind::kNumber:
      return a.number == b.number;
    case Term::Kind::kList:
      return a.list == b.list;
    case Term::Kind::kVar:
    case Term::Kind::kWord:
    case Term::Kind::kString:
      return a.name == b.name;
    case Term::Kind::kApply:
      if (a.name != b.name || a.args.size() != b.args.size()) return false;
      for (size_t i = 0; i < a.args.size(); ++i) {
        if (!same_term(a.args[i], b.args[i])) return false;
      }
      return same_attrs(a.attrs, b.attrs);
  }
  return false;
}

std::vector<const Term*> ac_operands(const Term& t, bool ac) {
  std::vector<const Term*> out;
  for (const Term& arg : t.args) {
    if (ac && arg.kind == Term::Kind::kApply && arg.name == t.name &&
        same_attrs(arg.attrs, t.attrs)) {
      for (const Term* inner : ac_operands(arg, ac)) out.push_back(inner);
    } else {
      out.push_back(&arg);
    }
  }
  return out;
}

}  // namespace scalify::rules
