// The rule compiler with attribute functions and guards, on a typed e-graph: computed
// right-hand-side attributes, guards on attributes and operand types, constants as attributes.
#include <catch2/catch.hpp>

#include "egraph/runner.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"

using namespace scalify;
using List = std::vector<int64_t>;

namespace {

/// An e-graph whose classes carry real HLO types: leaves `x` (f32[2,3,4]) and `y` (f32[6,4]),
/// transposes and reshapes typed from their operands and attributes.
struct Typed {
  egraph::Vocabulary vocab;
  egraph::EGraph g;
  std::vector<ir::Type> types;  ///< by TypeId
  rules::RuleFile file;
  rules::CompiledRules compiled;

  egraph::TypeId intern(const ir::Type& t) {
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] == t) return static_cast<egraph::TypeId>(i);
    }
    types.push_back(t);
    return static_cast<egraph::TypeId>(types.size() - 1);
  }

  egraph::TypeId type_of(const egraph::ENode& n) {
    const std::string& op = vocab.name(n.op);
    if (op == "x") return intern(ir::Type::array(ir::DType::kF32, {2, 3, 4}));
    if (op == "y") return intern(ir::Type::array(ir::DType::kF32, {6, 4}));
    if (n.op == vocab.constant_symbol()) return intern(ir::Type::array(ir::DType::kF32, {}));
    const ir::Type& child = types[g.type_of(n.children[0])];
    if (op == "transpose") {
      const auto& p = std::get<List>(*vocab.attr(n.payload, "dimensions"));
      List dims;
      for (int64_t d : p) dims.push_back(child.dim(d));
      return intern(ir::Type::array(child.dtype(), dims));
    }
    if (op == "reshape") {
      return intern(
          ir::Type::array(child.dtype(), std::get<List>(*vocab.attr(n.payload, "shape"))));
    }
    return g.type_of(n.children[0]);  // elementwise
  }

  rules::TypeOracle oracle() {
    return [this](const egraph::ENode& n) { return type_of(n); };
  }

  explicit Typed(const char* text) {
    auto parsed = rules::parse_rules(text, "t.rules");
    if (!parsed) FAIL(parsed.error().format());
    file = std::move(*parsed);
    auto c = rules::compile_rules(file, vocab, oracle(), nullptr,
                                  [this](egraph::TypeId t) -> std::optional<ir::Type> {
                                    if (t >= types.size()) return std::nullopt;
                                    return types[t];
                                  });
    if (!c) FAIL(c.error().format());
    compiled = std::move(*c);
  }
  egraph::ClassId add(const char* text) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(t);
    auto id = rules::add_term(g, vocab, *t, oracle());
    REQUIRE(id);
    return g.find(*id);
  }
  egraph::RunReport run() { return egraph::run(g, compiled.rules, {}); }
  bool same(const char* a, const char* b) { return g.find(add(a)) == g.find(add(b)); }
};

Diagnostic compile_error(const char* text, bool with_types = true) {
  egraph::Vocabulary vocab;
  auto file = rules::parse_rules(text, "t.rules");
  REQUIRE(file);
  rules::TypeLookup types;
  if (with_types) types = [](egraph::TypeId) { return std::optional<ir::Type>(); };
  auto c = rules::compile_rules(
      *file, vocab, [](const egraph::ENode&) { return 0u; }, nullptr, types);
  REQUIRE_FALSE(c);
  return c.error();
}

}  // namespace

TEST_CASE("rule compiler: a right-hand side computes its attributes per match", "[rules]") {
  Typed s(
      "rewrite tt: (transpose (transpose ?x :dimensions ?p) :dimensions ?q)\n"
      "  => (transpose ?x :dimensions (compose ?p ?q))\n"
      "rewrite t-id: (transpose ?x :dimensions ?p) => ?x if (identity-permutation ?p)\n");
  s.add("(transpose (transpose x :dimensions [1 2 0]) :dimensions [2 0 1])");
  s.add("(transpose (transpose x :dimensions [1 2 0]) :dimensions [1 0 2])");
  const auto report = s.run();
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(report.conflicts.empty());
  // [1 2 0] then [2 0 1] is the identity: the double transpose is x itself.
  CHECK(s.same("(transpose (transpose x :dimensions [1 2 0]) :dimensions [2 0 1])", "x"));
  // [1 2 0] then [1 0 2] is [2 1 0].
  CHECK(s.same("(transpose (transpose x :dimensions [1 2 0]) :dimensions [1 0 2])",
               "(transpose x :dimensions [2 1 0])"));
  CHECK_FALSE(s.same("(transpose x :dimensions [2 1 0])", "x"));
  // Its computed attribute reads the match beyond its classes: the runner applies every
  // match of it, repeats too (Rule::idempotent); a plain rewrite may have repeats skipped.
  CHECK_FALSE(s.compiled.rules[0].idempotent);
  CHECK(s.compiled.rules[1].idempotent);
}

TEST_CASE("rule compiler: guards read operands' types", "[rules]") {
  Typed s(
      "rewrite r-id: (reshape ?x :shape ?s) => ?x if (equal ?s (shape ?x))\n"
      "rewrite rr: (reshape (reshape ?x :shape ?s) :shape ?t) => (reshape ?x :shape ?t)\n");
  s.add("(reshape (reshape x :shape [6 4]) :shape [2 3 4])");
  s.add("(reshape x :shape [24])");
  const auto report = s.run();
  CHECK(report.conflicts.empty());
  CHECK(s.same("(reshape (reshape x :shape [6 4]) :shape [2 3 4])", "x"));
  CHECK_FALSE(s.same("(reshape x :shape [24])", "x"));
}

TEST_CASE("rule compiler: matches alike in attributes but not in operand types are told apart",
          "[rules]") {
  // A rule works out what its attributes and their guards conclude once per combination of
  // payloads and operand types: both reshapes to [6 4] share their payload, not their operand's
  // type, in either order.
  const char* rules =
      "rewrite r-id: (reshape ?x :shape ?s) => ?x if (equal ?s (shape ?x))\n"
      "rewrite tag: (negate ?x) => (exponential ?x :shape (shape ?x))\n";
  for (const bool y_first : {true, false}) {
    Typed s(rules);
    const char* y = "(reshape y :shape [6 4])";
    const char* x = "(reshape (reshape x :shape [24]) :shape [6 4])";
    s.add(y_first ? y : x);
    s.add(y_first ? x : y);
    s.add("(negate x)");
    s.add("(negate y)");
    CHECK(s.run().conflicts.empty());
    CHECK(s.same(y, "y"));
    CHECK_FALSE(s.same(x, "(reshape x :shape [24])"));
    CHECK(s.same("(negate x)", "(exponential x :shape [2 3 4])"));
    CHECK(s.same("(negate y)", "(exponential y :shape [6 4])"));
  }
}

TEST_CASE("rule compiler: a function that does not apply keeps the rule from firing", "[rules]") {
  // negate keeps its operand's type; here it only carries the computed attribute.
  Typed s(
      "rewrite inv: (transpose ?x :dimensions ?p)\n"
      "  => (negate (transpose ?x :dimensions ?p) :dimensions (inverse ?p))");
  s.add("(transpose x :dimensions [0 0 1])");  // not a permutation: no inverse
  s.add("(transpose x :dimensions [1 2 0])");
  CHECK(s.run().conflicts.empty());
  CHECK_FALSE(s.same("(transpose x :dimensions [0 0 1])",
                     "(negate (transpose x :dimensions [0 0 1]) :dimensions [0 0 1])"));
  CHECK(s.same("(transpose x :dimensions [1 2 0])",
               "(negate (transpose x :dimensions [1 2 0]) :dimensions [2 0 1])"));
}

TEST_CASE("rule compiler: constants as (constant :value V) fold by rule", "[rules]") {
  Typed s(
      "rewrite fold: (add (constant :value ?a) (constant :value ?b)) => (constant :value (+ ?a "
      "?b))\n"
      "rewrite one: (multiply ?x (constant :value 1)) => ?x\n");
  s.add("(add 2 3.5)");
  s.add("(multiply y 1)");
  s.run();
  CHECK(s.same("(add 2 3.5)", "5.5"));
  CHECK(s.same("(multiply y 1)", "y"));
}

TEST_CASE("rule compiler: attribute function errors", "[rules]") {
  Diagnostic d = compile_error("rewrite r: (t ?x :d ?p) => (t ?x :d (frob ?p))");
  CHECK(d.pos.line == 1);
  CHECK(d.pos.col == 37);
  CHECK_THAT(d.message, Catch::Contains("unknown attribute function 'frob'"));
  d = compile_error("rewrite r: (t ?x :d (inverse ?p)) => ?x");
  CHECK_THAT(d.message, Catch::Contains("computes a right-hand side's attribute"));
  d = compile_error("birewrite r: (t ?x :d ?p) <=> (t ?x :d (inverse ?p))");
  CHECK_THAT(d.message, Catch::Contains("computes a right-hand side's attribute"));
  d = compile_error("rewrite r: (t ?x :d ?p) => ?x if (nonsense ?p)");
  CHECK_THAT(d.message, Catch::Contains("unknown guard 'nonsense'") &&
                            Catch::Contains("identity-permutation"));
  // Reading a type needs the type table.
  d = compile_error("rewrite r: (t ?x :d ?p) => ?x if (equal ?p (shape ?x))", false);
  CHECK(d.pos.col == 34);
  CHECK_THAT(d.message, Catch::Contains("without a type table"));
}
