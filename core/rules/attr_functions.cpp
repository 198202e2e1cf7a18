// The built-in attribute functions and guards (rules/README.md lists them): what each computes
// from attribute values and, for (shape ?x) and the like, from an operand's type.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

#include "rules/attr_expr.h"

namespace scalify::rules {
namespace {

using egraph::AttrValue;
using List = std::vector<int64_t>;
using Result = std::optional<AttrValue>;
using Args = std::span<const AttrValue>;

// Values far beyond any tensor's dimensions are refused, so that no function overflows.
constexpr int64_t kMaxMagnitude = int64_t{1} << 40;
constexpr size_t kMaxList = 1024;

const List* as_list(const AttrValue& v) { return std::get_if<List>(&v); }

std::optional<int64_t> as_int(const AttrValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return *i;
  if (const double* d = std::get_if<double>(&v)) {
    if (std::trunc(*d) == *d && std::abs(*d) <= static_cast<double>(kMaxMagnitude)) {
      return static_cast<int64_t>(*d);
    }
  }
  return std::nullopt;
}

std::optional<double> as_number(const AttrValue& v) {
  if (const int64_t* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const double* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

bool small(int64_t x) { return x >= -kMaxMagnitude && x <= kMaxMagnitude; }

/// True if `l` holds each of 0 … size-1 once.
bool is_permutation(const List& l) {
  std::vector<bool> seen(l.size(), false);
  for (int64_t x : l) {
    if (x < 0 || static_cast<size_t>(x) >= l.size() || seen[static_cast<size_t>(x)]) return false;
    seen[static_cast<size_t>(x)] = true;
  }
  return true;
}

AttrValue truth(bool b) { return AttrValue(int64_t{b ? 1 : 0}); }

// ---- type functions: the first argument is an operand variable ----

Result fn_shape(const ir::Type* t, Args) {
  if (!t || !t->is_array()) return std::nullopt;
  return AttrValue(t->dims());
}

Result fn_rank(const ir::Type* t, Args) {
  if (!t || !t->is_array()) return std::nullopt;
  return AttrValue(t->rank());
}

Result fn_dim(const ir::Type* t, Args a) {
  const auto i = as_int(a[0]);
  if (!t || !t->is_array() || !i || *i < 0 || *i >= t->rank()) return std::nullopt;
  return AttrValue(t->dim(*i));
}

Result fn_element_type(const ir::Type* t, Args) {
  if (!t || !t->is_array()) return std::nullopt;
  return AttrValue(std::string(ir::dtype_name(t->dtype())));
}

// ---- conversions and lists ----

Result fn_int(const ir::Type*, Args a) {
  if (auto i = as_int(a[0])) return AttrValue(*i);
  const std::string* s = std::get_if<std::string>(&a[0]);
  if (!s || s->empty()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size() || !small(v)) return std::nullopt;
  return AttrValue(v);
}

Result fn_str(const ir::Type*, Args a) {
  const auto i = as_int(a[0]);
  if (!i) return std::nullopt;
  Result out(std::in_place, std::in_place_type<std::string>);
  std::get<std::string>(*out) = std::to_string(*i);
  return out;
}

Result fn_list(const ir::Type*, Args a) {
  List out;
  for (const AttrValue& v : a) {
    const auto i = as_int(v);
    if (!i) return std::nullopt;
    out.push_back(*i);
  }
  return AttrValue(std::move(out));
}

Result fn_range(const ir::Type*, Args a) {
  const auto n = as_int(a[0]);
  if (!n || *n < 0 || static_cast<size_t>(*n) > kMaxList) return std::nullopt;
  List out(static_cast<size_t>(*n));
  for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int64_t>(i);
  return AttrValue(std::move(out));
}

Result fn_repeat(const ir::Type*, Args a) {
  const auto n = as_int(a[0]);
  const auto x = as_int(a[1]);
  if (!n || !x || *n < 0 || static_cast<size_t>(*n) > kMaxList) return std::nullopt;
  return AttrValue(List(static_cast<size_t>(*n), *x));
}

Result fn_length(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  return AttrValue(static_cast<int64_t>(l->size()));
}

Result fn_at(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto i = as_int(a[1]);
  if (!l || !i || *i < 0 || static_cast<size_t>(*i) >= l->size()) return std::nullopt;
  return AttrValue((*l)[static_cast<size_t>(*i)]);
}

Result fn_take(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto n = as_int(a[1]);
  if (!l || !n || *n < 0 || static_cast<size_t>(*n) > l->size()) return std::nullopt;
  return AttrValue(List(l->begin(), l->begin() + *n));
}

Result fn_drop(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto n = as_int(a[1]);
  if (!l || !n || *n < 0 || static_cast<size_t>(*n) > l->size()) return std::nullopt;
  return AttrValue(List(l->begin() + *n, l->end()));
}

Result fn_concat(const ir::Type*, Args a) {
  List out;
  for (const AttrValue& v : a) {
    const List* l = as_list(v);
    if (!l || out.size() + l->size() > kMaxList) return std::nullopt;
    out.insert(out.end(), l->begin(), l->end());
  }
  return AttrValue(std::move(out));
}

Result fn_remove(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto i = as_int(a[1]);
  if (!l || !i || *i < 0 || static_cast<size_t>(*i) >= l->size()) return std::nullopt;
  List out = *l;
  out.erase(out.begin() + *i);
  return AttrValue(std::move(out));
}

Result fn_insert(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto i = as_int(a[1]);
  const auto x = as_int(a[2]);
  if (!l || !i || !x || *i < 0 || static_cast<size_t>(*i) > l->size() || l->size() >= kMaxList) {
    return std::nullopt;
  }
  List out = *l;
  out.insert(out.begin() + *i, *x);
  return AttrValue(std::move(out));
}

Result fn_set(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto i = as_int(a[1]);
  const auto x = as_int(a[2]);
  if (!l || !i || !x || *i < 0 || static_cast<size_t>(*i) >= l->size()) return std::nullopt;
  List out = *l;
  out[static_cast<size_t>(*i)] = *x;
  return AttrValue(std::move(out));
}

Result fn_where_not(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto x = as_int(a[1]);
  if (!l || !x) return std::nullopt;
  List out;
  for (size_t i = 0; i < l->size(); ++i) {
    if ((*l)[i] != *x) out.push_back(static_cast<int64_t>(i));
  }
  return AttrValue(std::move(out));
}

Result fn_unit(const ir::Type*, Args a) {
  const auto n = as_int(a[0]);
  const auto i = as_int(a[1]);
  const auto x = as_int(a[2]);
  if (!n || !i || !x || *n < 0 || static_cast<size_t>(*n) > kMaxList || *i < 0 || *i >= *n) {
    return std::nullopt;
  }
  List out(static_cast<size_t>(*n), 0);
  out[static_cast<size_t>(*i)] = *x;
  return AttrValue(std::move(out));
}

Result fn_sort(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  List out = *l;
  std::sort(out.begin(), out.end());
  return AttrValue(std::move(out));
}

Result fn_complement(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const auto n = as_int(a[1]);
  if (!l || !n || *n < 0 || static_cast<size_t>(*n) > kMaxList) return std::nullopt;
  List out;
  for (int64_t i = 0; i < *n; ++i) {
    if (std::find(l->begin(), l->end(), i) == l->end()) out.push_back(i);
  }
  return AttrValue(std::move(out));
}

Result fn_product(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  int64_t p = 1;
  for (int64_t x : *l) {
    if (x < 0 || (x != 0 && p > kMaxMagnitude / x)) return std::nullopt;
    p *= x;
  }
  return AttrValue(p);
}

Result fn_compose(const ir::Type*, Args a) {
  const List* p = as_list(a[0]);
  const List* q = as_list(a[1]);
  if (!p || !q) return std::nullopt;
  List out;
  for (int64_t i : *q) {
    if (i < 0 || static_cast<size_t>(i) >= p->size()) return std::nullopt;
    out.push_back((*p)[static_cast<size_t>(i)]);
  }
  return AttrValue(std::move(out));
}

Result fn_inverse(const ir::Type*, Args a) {
  const List* p = as_list(a[0]);
  if (!p || !is_permutation(*p)) return std::nullopt;
  List out(p->size());
  for (size_t i = 0; i < p->size(); ++i)
    out[static_cast<size_t>((*p)[i])] = static_cast<int64_t>(i);
  return AttrValue(std::move(out));
}

// ---- arithmetic: integers stay integers (except /), reals otherwise; lists elementwise ----

enum class Arith { kAdd, kSub, kMul, kDiv };

Result arith_scalar(Arith op, const AttrValue& x, const AttrValue& y) {
  const int64_t* a = std::get_if<int64_t>(&x);
  const int64_t* b = std::get_if<int64_t>(&y);
  if (a && b && op != Arith::kDiv && small(*a) && small(*b)) {
    if (op == Arith::kAdd) return AttrValue(*a + *b);
    if (op == Arith::kSub) return AttrValue(*a - *b);
    const double p = static_cast<double>(*a) * static_cast<double>(*b);
    if (std::abs(p) > static_cast<double>(kMaxMagnitude)) return std::nullopt;
    return AttrValue(*a * *b);
  }
  const auto u = as_number(x), v = as_number(y);
  if (!u || !v) return std::nullopt;
  double r = 0;
  switch (op) {
    case Arith::kAdd:
      r = *u + *v;
      break;
    case Arith::kSub:
      r = *u - *v;
      break;
    case Arith::kMul:
      r = *u * *v;
      break;
    case Arith::kDiv:
      if (*v == 0) return std::nullopt;
      r = *u / *v;
      break;
  }
  if (!std::isfinite(r)) return std::nullopt;
  return AttrValue(r);
}

Result arith(Arith op, Args a) {
  const List* l = as_list(a[0]);
  const List* m = as_list(a[1]);
  if (!l && !m) return arith_scalar(op, a[0], a[1]);
  if (!l || !m || l->size() != m->size() || op == Arith::kDiv) return std::nullopt;
  List out;
  for (size_t i = 0; i < l->size(); ++i) {
    const Result r = arith_scalar(op, AttrValue((*l)[i]), AttrValue((*m)[i]));
    const int64_t* x = r ? std::get_if<int64_t>(&*r) : nullptr;
    if (!x) return std::nullopt;
    out.push_back(*x);
  }
  return AttrValue(std::move(out));
}

Result fn_add(const ir::Type*, Args a) { return arith(Arith::kAdd, a); }
Result fn_sub(const ir::Type*, Args a) { return arith(Arith::kSub, a); }
Result fn_mul(const ir::Type*, Args a) { return arith(Arith::kMul, a); }
Result fn_div(const ir::Type*, Args a) { return arith(Arith::kDiv, a); }

Result fn_max(const ir::Type*, Args a) {
  const auto u = as_number(a[0]), v = as_number(a[1]);
  if (!u || !v) return std::nullopt;
  return *u >= *v ? a[0] : a[1];
}

Result fn_min(const ir::Type*, Args a) {
  const auto u = as_number(a[0]), v = as_number(a[1]);
  if (!u || !v) return std::nullopt;
  return *u <= *v ? a[0] : a[1];
}

// ---- guards ----

Result g_equal(const ir::Type*, Args a) { return truth(attr_equal(a[0], a[1])); }
Result g_not_equal(const ir::Type*, Args a) { return truth(!attr_equal(a[0], a[1])); }

Result g_identity_permutation(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  for (size_t i = 0; i < l->size(); ++i) {
    if ((*l)[i] != static_cast<int64_t>(i)) return truth(false);
  }
  return truth(true);
}

Result g_permutation(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  return truth(is_permutation(*l));
}

Result g_ascending(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  if (!l) return std::nullopt;
  for (size_t i = 1; i < l->size(); ++i) {
    if ((*l)[i - 1] >= (*l)[i]) return truth(false);
  }
  return truth(true);
}

Result g_less_equal(const ir::Type*, Args a) {
  const List* l = as_list(a[0]);
  const List* m = as_list(a[1]);
  if (l && m) {
    if (l->size() != m->size()) return std::nullopt;
    for (size_t i = 0; i < l->size(); ++i) {
      if ((*l)[i] > (*m)[i]) return truth(false);
    }
    return truth(true);
  }
  const auto u = as_number(a[0]), v = as_number(a[1]);
  if (!u || !v) return std::nullopt;
  return truth(*u <= *v);
}

Result g_less(const ir::Type*, Args a) {
  const auto u = as_number(a[0]), v = as_number(a[1]);
  if (!u || !v) return std::nullopt;
  return truth(*u < *v);
}

Result g_floating(const ir::Type* t, Args) {
  if (!t || !t->is_array()) return std::nullopt;
  return truth(ir::is_float(t->dtype()));
}

// clang-format off
constexpr std::array kFunctions = {
    AttrFunction{"shape", 1, 1, false, true, "(shape ?x)", "the dimensions of operand ?x", fn_shape},
    AttrFunction{"rank", 1, 1, false, true, "(rank ?x)", "the rank of operand ?x", fn_rank},
    AttrFunction{"dim", 2, 2, false, true, "(dim ?x I)", "the size of dimension I of operand ?x", fn_dim},
    AttrFunction{"element-type", 1, 1, false, true, "(element-type ?x)",
                 "the element type of operand ?x, as a word (f32)", fn_element_type},
    AttrFunction{"int", 1, 1, false, false, "(int S)",
                 "the integer written in the string S (\"2\" is 2)", fn_int},
    AttrFunction{"str", 1, 1, false, false, "(str I)",
                 "the integer I written as a string (2 is \"2\"): a backend_config", fn_str},
    AttrFunction{"list", 0, -1, false, false, "(list I …)", "the list of the integers I …", fn_list},
    AttrFunction{"range", 1, 1, false, false, "(range N)", "[0 1 … N-1]", fn_range},
    AttrFunction{"repeat", 2, 2, false, false, "(repeat N X)", "N copies of X", fn_repeat},
    AttrFunction{"length", 1, 1, false, false, "(length L)", "the number of entries of L", fn_length},
    AttrFunction{"at", 2, 2, false, false, "(at L I)", "entry I of L (from 0)", fn_at},
    AttrFunction{"take", 2, 2, false, false, "(take L N)", "the first N entries of L", fn_take},
    AttrFunction{"drop", 2, 2, false, false, "(drop L N)", "L without its first N entries", fn_drop},
    AttrFunction{"concat", 0, -1, false, false, "(concat L …)", "the lists one after the other",
                 fn_concat},
    AttrFunction{"remove", 2, 2, false, false, "(remove L I)", "L without entry I", fn_remove},
    AttrFunction{"insert", 3, 3, false, false, "(insert L I X)",
                 "L with X inserted before entry I (I = length: at the end)", fn_insert},
    AttrFunction{"set", 3, 3, false, false, "(set L I X)", "L with entry I replaced by X",
                 fn_set},
    AttrFunction{"where-not", 2, 2, false, false, "(where-not L X)",
                 "the indices of the entries of L that are not X", fn_where_not},
    AttrFunction{"unit", 3, 3, false, false, "(unit N I X)",
                 "N zeros, except X at entry I", fn_unit},
    AttrFunction{"sort", 1, 1, false, false, "(sort L)", "L in ascending order", fn_sort},
    AttrFunction{"complement", 2, 2, false, false, "(complement L N)",
                 "the integers of [0, N) not in L, ascending", fn_complement},
    AttrFunction{"product", 1, 1, false, false, "(product L)", "the product of L's entries (1 for [])",
                 fn_product},
    AttrFunction{"compose", 2, 2, false, false, "(compose P Q)",
                 "[P[Q[0]] P[Q[1]] …]: transpose by P then by Q is transpose by (compose P Q); "
                 "also P's entries picked by Q", fn_compose},
    AttrFunction{"inverse", 1, 1, false, false, "(inverse P)",
                 "the inverse permutation of P (P must be a permutation)", fn_inverse},
    AttrFunction{"+", 2, 2, false, false, "(+ A B)",
                 "sum: integers stay integers, lists add entry by entry", fn_add},
    AttrFunction{"-", 2, 2, false, false, "(- A B)", "difference (as +)", fn_sub},
    AttrFunction{"*", 2, 2, false, false, "(* A B)", "product (as +)", fn_mul},
    AttrFunction{"/", 2, 2, false, false, "(/ A B)", "quotient, a real; B must not be 0", fn_div},
    AttrFunction{"max", 2, 2, false, false, "(max A B)", "the larger number", fn_max},
    AttrFunction{"min", 2, 2, false, false, "(min A B)", "the smaller number", fn_min},
    AttrFunction{"equal", 2, 2, true, false, "(equal A B)",
                 "A and B are equal (numbers by value: 2 equals 2.0)", g_equal},
    AttrFunction{"not-equal", 2, 2, true, false, "(not-equal A B)", "A and B differ", g_not_equal},
    AttrFunction{"identity-permutation", 1, 1, true, false, "(identity-permutation P)",
                 "P is [0 1 … n-1]", g_identity_permutation},
    AttrFunction{"permutation", 1, 1, true, false, "(permutation P)",
                 "P holds each of 0 … n-1 once", g_permutation},
    AttrFunction{"ascending", 1, 1, true, false, "(ascending L)", "L is strictly ascending",
                 g_ascending},
    AttrFunction{"less-equal", 2, 2, true, false, "(less-equal A B)",
                 "A <= B (numbers), or entry by entry (lists of one length)", g_less_equal},
    AttrFunction{"less", 2, 2, true, false, "(less A B)", "A < B (numbers)", g_less},
    AttrFunction{"floating", 1, 1, true, true, "(floating ?x)",
                 "operand ?x has a floating-point element type (an identity of real arithmetic "
                 "that integer rounding or wrapping breaks)", g_floating},
};
// clang-format on

}  // namespace

std::span<const AttrFunction> attr_functions() { return kFunctions; }

const AttrFunction* find_attr_function(std::string_view name) {
  for (const AttrFunction& f : kFunctions) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool attr_equal(const AttrValue& a, const AttrValue& b) {
  const auto x = as_number(a), y = as_number(b);
  if (x && y) return *x == *y;
  return a == b;
}

}  // namespace scalify::rules
