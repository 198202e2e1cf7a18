// Attribute functions and attribute guards: their values, their errors, and the README's list.
#include "rules/attr_expr.h"

#include <catch2/catch.hpp>
#include <map>

#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "test_support.h"

using namespace scalify;
using egraph::AttrValue;
using List = std::vector<int64_t>;

namespace {

/// Attribute variables ?p ?q ?s (0, 1, 2) and operand variables ?x ?y (0, 1), with values.
class Scope final : public rules::AttrScope {
 public:
  std::map<uint32_t, AttrValue> attrs;
  std::map<uint32_t, ir::Type> types;
  const AttrValue* attr(uint32_t v) const override {
    auto it = attrs.find(v);
    return it == attrs.end() ? nullptr : &it->second;
  }
  std::optional<ir::Type> type(uint32_t v) const override {
    auto it = types.find(v);
    return it == types.end() ? std::nullopt : std::optional(it->second);
  }
};

std::optional<rules::VarRef> resolve(const std::string& name) {
  static const std::map<std::string, rules::VarRef> kVars = {
      {"p", {rules::VarRef::Kind::kAttr, 0}},  {"q", {rules::VarRef::Kind::kAttr, 1}},
      {"s", {rules::VarRef::Kind::kAttr, 2}},  {"x", {rules::VarRef::Kind::kClass, 0}},
      {"y", {rules::VarRef::Kind::kClass, 1}},
  };
  auto it = kVars.find(name);
  return it == kVars.end() ? std::nullopt : std::optional(it->second);
}

rules::AttrExpr compile(const std::string& text) {
  auto t = rules::parse_term(text, "<t>");
  REQUIRE(t);
  auto e = rules::compile_attr_expr(*t, resolve, "t.rules");
  if (!e) FAIL(e.error().format());
  return std::move(*e);
}

Diagnostic compile_error(const std::string& text, bool guard = false) {
  auto t = rules::parse_term(text, "<t>");
  REQUIRE(t);
  auto e = guard ? rules::compile_attr_guard(*t, resolve, "t.rules")
                 : rules::compile_attr_expr(*t, resolve, "t.rules");
  REQUIRE_FALSE(e);
  return e.error();
}

Scope example_scope() {
  Scope s;
  s.attrs[0] = List{1, 2, 0};
  s.attrs[1] = List{2, 0, 1};
  s.attrs[2] = std::string("2");
  s.types[0] = ir::Type::array(ir::DType::kBF16, {2, 3, 4});
  return s;
}

std::optional<AttrValue> eval(const std::string& text) {
  return rules::evaluate(compile(text), example_scope());
}

bool holds(const std::string& text) {
  auto t = rules::parse_term(text, "<t>");
  REQUIRE(t);
  auto g = rules::compile_attr_guard(*t, resolve, "t.rules");
  if (!g) FAIL(g.error().format());
  return rules::holds(*g, example_scope());
}

}  // namespace

TEST_CASE("attribute functions: permutations", "[rules]") {
  // transpose by p then by q is transpose by (compose p q): result dim i is operand dim p[q[i]].
  CHECK(eval("(compose ?p ?q)") == AttrValue(List{0, 1, 2}));
  CHECK(eval("(compose ?q ?p)") == AttrValue(List{0, 1, 2}));
  CHECK(eval("(compose ?p [1 0 2])") == AttrValue(List{2, 1, 0}));
  CHECK(eval("(inverse ?p)") == AttrValue(List{2, 0, 1}));
  CHECK(eval("(inverse [0 0 1])") == std::nullopt);  // not a permutation: the rule does not fire
  CHECK(eval("(compose ?p [3])") == std::nullopt);   // out of range
  CHECK(eval("(compose (shape ?x) ?p)") == AttrValue(List{3, 4, 2}));
}

TEST_CASE("attribute functions: types, lists and arithmetic", "[rules]") {
  CHECK(eval("(shape ?x)") == AttrValue(List{2, 3, 4}));
  CHECK(eval("(rank ?x)") == AttrValue(int64_t{3}));
  CHECK(eval("(dim ?x 2)") == AttrValue(int64_t{4}));
  CHECK(eval("(dim ?x 3)") == std::nullopt);
  CHECK(eval("(element-type ?x)") == AttrValue(std::string("bf16")));
  CHECK(eval("(shape ?y)") == std::nullopt);  // no type known
  CHECK(eval("(int ?s)") == AttrValue(int64_t{2}));
  CHECK(eval("(int \"2x\")") == std::nullopt);
  CHECK(eval("(list 1 (dim ?x 0) 7)") == AttrValue(List{1, 2, 7}));
  CHECK(eval("(range 3)") == AttrValue(List{0, 1, 2}));
  CHECK(eval("(repeat 2 5)") == AttrValue(List{5, 5}));
  CHECK(eval("(length ?p)") == AttrValue(int64_t{3}));
  CHECK(eval("(at ?p 1)") == AttrValue(int64_t{2}));
  CHECK(eval("(take ?p 2)") == AttrValue(List{1, 2}));
  CHECK(eval("(drop ?p 2)") == AttrValue(List{0}));
  CHECK(eval("(concat ?p [9] ?q)") == AttrValue(List{1, 2, 0, 9, 2, 0, 1}));
  CHECK(eval("(remove ?p 0)") == AttrValue(List{2, 0}));
  CHECK(eval("(insert ?p 3 7)") == AttrValue(List{1, 2, 0, 7}));
  CHECK(eval("(set ?p 1 7)") == AttrValue(List{1, 7, 0}));
  CHECK(eval("(unit 3 1 5)") == AttrValue(List{0, 5, 0}));
  CHECK(eval("(where-not [1 4 1 2] 1)") == AttrValue(List{1, 3}));
  CHECK(eval("(sort ?p)") == AttrValue(List{0, 1, 2}));
  CHECK(eval("(complement [2 0] 4)") == AttrValue(List{1, 3}));
  CHECK(eval("(product (shape ?x))") == AttrValue(int64_t{24}));
  CHECK(eval("(+ 2 3)") == AttrValue(int64_t{5}));
  CHECK(eval("(- ?p [1 1 0])") == AttrValue(List{0, 1, 0}));
  CHECK(eval("(* 2 1.5)") == AttrValue(3.0));
  CHECK(eval("(/ 1 4)") == AttrValue(0.25));
  CHECK(eval("(/ 1 0)") == std::nullopt);
  CHECK(eval("(max 2 3.5)") == AttrValue(3.5));
  CHECK(eval("(min 2 3.5)") == AttrValue(int64_t{2}));
}

TEST_CASE("attribute guards", "[rules]") {
  CHECK(holds("(identity-permutation (compose ?p ?q))"));
  CHECK_FALSE(holds("(identity-permutation ?p)"));
  CHECK(holds("(permutation ?p)"));
  CHECK_FALSE(holds("(permutation [0 0])"));
  CHECK(holds("(equal (inverse ?p) ?q)"));
  CHECK(holds("(equal 2 2.0)"));  // numbers by value
  CHECK(holds("(not-equal ?p ?q)"));
  CHECK(holds("(ascending (sort ?p))"));
  CHECK_FALSE(holds("(ascending [0 0])"));
  CHECK(holds("(less-equal [1 2] (take (shape ?x) 2))"));
  CHECK_FALSE(holds("(less-equal [3 2] (take (shape ?x) 2))"));
  CHECK(holds("(less 1 2)"));
  CHECK_FALSE(holds("(equal (shape ?y) [1])"));  // an unknown type: the guard fails
}

TEST_CASE("attribute functions: errors point at the call", "[rules]") {
  Diagnostic d = compile_error("(frobnicate ?p)");
  CHECK(d.pos.col == 1);
  CHECK_THAT(d.message, Catch::Contains("unknown attribute function 'frobnicate'") &&
                            Catch::Contains("compose"));
  d = compile_error("(compose ?p)");
  CHECK_THAT(d.message, Catch::Contains("'compose' takes 2 arguments: (compose P Q)"));
  d = compile_error("(compose ?p ?x)");
  CHECK(d.pos.col == 13);
  CHECK_THAT(d.message, Catch::Contains("?x is an operand variable"));
  d = compile_error("(shape ?p)");
  CHECK_THAT(d.message, Catch::Contains("first argument must be an operand variable"));
  d = compile_error("(inverse ?nope)");
  CHECK_THAT(d.message, Catch::Contains("?nope is not bound"));
  d = compile_error("(equal ?p ?q)");
  CHECK_THAT(d.message, Catch::Contains("is a guard"));
  d = compile_error("(inverse ?p)", /*guard=*/true);
  CHECK_THAT(d.message, Catch::Contains("unknown attribute guard 'inverse'"));
}

TEST_CASE("built-in guards and functions: the README lists every one", "[rules]") {
  const std::string readme =
      scalify::test::read_file(std::string(SCALIFY_SOURCE_DIR) + "/rules/README.md");
  const std::vector<std::string> guards = rules::builtin_guard_names();
  CHECK(std::find(guards.begin(), guards.end(), "not-zero") != guards.end());
  CHECK(std::find(guards.begin(), guards.end(), "identity-permutation") != guards.end());
  for (const std::string& g : guards) {
    INFO(g);
    CHECK(readme.find("`(" + g + " ") != std::string::npos);
  }
  const std::vector<std::string> functions = rules::builtin_attr_function_names();
  CHECK(std::find(functions.begin(), functions.end(), "compose") != functions.end());
  for (const std::string& f : functions) {
    INFO(f);
    CHECK(readme.find("`(" + f + " ") != std::string::npos);
  }
}
