// The rule parser: every construct of the language, positions, each error with its exact place
// and message, and robustness on truncated and random input.
#include "rules/rule_parser.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "test_support.h"

using namespace scalify;
using namespace scalify::rules;
using Kind = Term::Kind;

namespace {

RuleFile parse_ok(const std::string& text) {
  auto f = parse_rules(text, "t.rules");
  if (!f) FAIL(f.error().format());
  return std::move(*f);
}

Diagnostic parse_error(const std::string& text) {
  auto f = parse_rules(text, "bad.rules");
  REQUIRE_FALSE(f.has_value());
  return f.error();
}

const Rule& only_rule(const RuleFile& f) {
  REQUIRE(f.rules.size() == 1);
  return f.rules[0];
}

// The lines of the declarations every rule test needs.
const std::string kRelations =
    "relation Shard(class, class, int, word)\n"
    "relation Rep(class, class)\n"
    "relation Partial(class, class, word, word)\n";

}  // namespace

TEST_CASE("rule parser: an empty file, or one with only comments, has no rules", "[rules]") {
  CHECK(parse_ok("").rules.empty());
  CHECK(parse_ok("\n  \n\t\n").rules.empty());
  const RuleFile f = parse_ok("# the default rules\n\n   # indented comment\n#last, no newline");
  CHECK(f.rules.empty());
  CHECK(f.relations.empty());
  CHECK(f.path == "t.rules");
}

TEST_CASE("rule parser: relation declarations", "[rules]") {
  const RuleFile f = parse_ok(
      "relation Shard(class, class, int, word)\n"
      "  relation Rep (class,class)   # a space before '(' is fine here\n"
      "relation _one(word)\n");
  REQUIRE(f.relations.size() == 3);
  using C = RelationDecl::Column;
  CHECK(f.relations[0].name == "Shard");
  CHECK(f.relations[0].columns == std::vector<C>{C::kClass, C::kClass, C::kInt, C::kWord});
  CHECK(f.relations[0].pos == SourcePos{1, 1});
  CHECK(f.relations[1].name == "Rep");
  CHECK(f.relations[1].columns == std::vector<C>{C::kClass, C::kClass});
  CHECK(f.relations[1].pos == SourcePos{2, 3});
  CHECK(f.relations[2].columns == std::vector<C>{C::kWord});
}

TEST_CASE("rule parser: a rewrite with nested applications, attributes and guards", "[rules]") {
  const RuleFile f = parse_ok(
      "rewrite transpose-twice: (transpose (transpose ?x :dimensions [1 0]) :dimensions [1, 0])"
      " => ?x if (rank-is ?x 2)\n");
  const Rule& r = only_rule(f);
  CHECK(r.kind == Rule::Kind::kRewrite);
  CHECK(r.name == "transpose-twice");
  CHECK(r.pos == SourcePos{1, 1});
  const Term& outer = r.lhs;
  CHECK(outer.kind == Kind::kApply);
  CHECK(outer.name == "transpose");
  CHECK(outer.pos == SourcePos{1, 26});
  REQUIRE(outer.args.size() == 1);
  REQUIRE(outer.attrs.size() == 1);
  CHECK(outer.attrs[0].key == "dimensions");
  CHECK(outer.attrs[0].pos == SourcePos{1, 70});
  CHECK(outer.attrs[0].value.kind == Kind::kList);
  CHECK(outer.attrs[0].value.list == std::vector<int64_t>{1, 0});
  CHECK(outer.attrs[0].value.pos == SourcePos{1, 82});
  const Term& inner = outer.args[0];
  CHECK(inner.name == "transpose");
  CHECK(inner.pos == SourcePos{1, 37});
  REQUIRE(inner.args.size() == 1);
  CHECK(inner.args[0].kind == Kind::kVar);
  CHECK(inner.args[0].name == "x");
  CHECK(inner.args[0].pos == SourcePos{1, 48});
  CHECK(inner.attrs[0].value.list == std::vector<int64_t>{1, 0});
  CHECK(r.rhs.kind == Kind::kVar);
  CHECK(r.rhs.name == "x");
  CHECK(r.rhs.pos == SourcePos{1, 93});
  REQUIRE(r.guards.size() == 1);
  CHECK(r.guards[0].name == "rank-is");
  CHECK(r.guards[0].pos == SourcePos{1, 99});
  CHECK(r.guards[0].args[1].integer == 2);
  CHECK(r.body.empty());
  CHECK(r.head.empty());
}

TEST_CASE("rule parser: a declaration may span lines, with guards on their own line", "[rules]") {
  const RuleFile f = parse_ok(
      "rewrite d-power:\n"
      "  (d ?x (pow ?f ?g)) => (* (pow ?f ?g) (+ (* (d ?x ?f) (/ ?g ?f)) (* (d ?x ?g) (ln ?f))))\n"
      "  if (not-zero ?f) if (not-zero ?g)\n"
      "rewrite\n"
      "  next.one\n"
      "  :\n"
      "  (f ?x)   # the left-hand side\n"
      "  =>\n"
      "  ?x\n");
  REQUIRE(f.rules.size() == 2);
  const Rule& r = f.rules[0];
  CHECK(r.lhs.name == "d");
  CHECK(r.lhs.pos == SourcePos{2, 3});
  CHECK(r.rhs.name == "*");
  CHECK(r.rhs.args[1].name == "+");
  CHECK(r.rhs.args[1].args[0].args[1].name == "/");
  REQUIRE(r.guards.size() == 2);
  CHECK(r.guards[0].name == "not-zero");
  CHECK(r.guards[1].pos == SourcePos{3, 23});
  CHECK(f.rules[1].name == "next.one");
  CHECK(f.rules[1].pos == SourcePos{4, 1});
  CHECK(f.rules[1].rhs.pos == SourcePos{9, 3});
}

TEST_CASE("rule parser: a birewrite", "[rules]") {
  const Rule r = only_rule(parse_ok("birewrite mul-comm: (* ?a ?b) <=> (* ?b ?a)"));
  CHECK(r.kind == Rule::Kind::kBirewrite);
  CHECK(r.lhs.args[0].name == "a");
  CHECK(r.rhs.args[0].name == "b");
  // Without spaces around the arrow, too.
  const Rule tight = only_rule(parse_ok("birewrite id: (f ?x)<=>?x"));
  CHECK(tight.rhs.kind == Kind::kVar);
}

TEST_CASE("rule parser: operator names are any word, numbers are numbers", "[rules]") {
  const Rule r = only_rule(parse_ok(
      "rewrite ops: (f (+ 1 2) (- ?x) (* -1 +2) (/ 2.5 -0.5e2) (pow 1e3 ?x) (all-reduce ?x)\n"
      "  (dynamic-update-slice ?x) (AwsNeuronRmsNorm ?x) (get-tuple-element ?x :index 0)\n"
      "  (- 99999999999999999999) (< x) (=> a) (if b) (= c)) => ?x"));
  const auto& a = r.lhs.args;
  REQUIRE(a.size() == 14);
  CHECK(a[0].name == "+");
  CHECK(a[0].args[0].kind == Kind::kNumber);
  CHECK(a[0].args[0].is_integer);
  CHECK(a[0].args[0].integer == 1);
  CHECK(a[0].args[0].number == 1.0);
  CHECK(a[1].name == "-");
  CHECK(a[2].args[0].integer == -1);
  CHECK(a[2].args[1].integer == 2);  // a leading '+' is allowed
  CHECK(a[3].name == "/");
  CHECK_FALSE(a[3].args[0].is_integer);
  CHECK(a[3].args[0].number == 2.5);
  CHECK(a[3].args[1].number == -50.0);
  CHECK(a[4].args[0].kind == Kind::kNumber);
  CHECK_FALSE(a[4].args[0].is_integer);  // an exponent makes a double
  CHECK(a[4].args[0].number == 1000.0);
  CHECK(a[5].name == "all-reduce");
  CHECK(a[6].name == "dynamic-update-slice");
  CHECK(a[7].name == "AwsNeuronRmsNorm");
  CHECK(a[8].name == "get-tuple-element");
  CHECK(a[8].attrs[0].key == "index");
  CHECK(a[8].attrs[0].value.integer == 0);
  // Too large for int64: a double, not an integer.
  CHECK(a[9].args[0].kind == Kind::kNumber);
  CHECK_FALSE(a[9].args[0].is_integer);
  CHECK(a[9].args[0].number == 1e20);
  // Keywords are words where the grammar does not expect them.
  CHECK(a[10].name == "<");
  CHECK(a[10].args[0].kind == Kind::kWord);
  CHECK(a[10].args[0].name == "x");
  CHECK(a[11].name == "=>");
  CHECK(a[12].name == "if");
  CHECK(a[13].name == "=");
}

TEST_CASE("rule parser: words, strings and lists as operands and attribute values", "[rules]") {
  const Rule r = only_rule(parse_ok(
      "rewrite lits: (custom-call ?x :target \"Aws\\\"Neuron\\\\Rms # not a comment\" :dtype f32\n"
      "  :dims [] :perm [2,1 , 0] :neg [-1] :f (compose ?x f32) :s \"\") => (nop x 1.5 \"a\")"));
  const Term& lhs = r.lhs;
  REQUIRE(lhs.attrs.size() == 7);
  CHECK(lhs.attrs[0].value.kind == Kind::kString);
  CHECK(lhs.attrs[0].value.name == "Aws\"Neuron\\Rms # not a comment");
  CHECK(lhs.attrs[1].value.kind == Kind::kWord);
  CHECK(lhs.attrs[1].value.name == "f32");
  CHECK(lhs.attrs[2].value.kind == Kind::kList);
  CHECK(lhs.attrs[2].value.list.empty());
  CHECK(lhs.attrs[3].value.list == std::vector<int64_t>{2, 1, 0});
  CHECK(lhs.attrs[4].value.list == std::vector<int64_t>{-1});
  CHECK(lhs.attrs[5].key == "f");
  CHECK(lhs.attrs[5].value.kind == Kind::kApply);
  CHECK(lhs.attrs[5].value.name == "compose");
  CHECK(lhs.attrs[6].value.kind == Kind::kString);
  CHECK(lhs.attrs[6].value.name.empty());
  CHECK(r.rhs.args[0].kind == Kind::kWord);
  CHECK(r.rhs.args[2].kind == Kind::kString);
  CHECK(r.rhs.args[2].name == "a");
  // A bare word or number is a whole term too.
  const Rule w = only_rule(parse_ok("rewrite zero: (* ?x 0) => 0"));
  CHECK(w.rhs.kind == Kind::kNumber);
  CHECK(w.rhs.integer == 0);
}

TEST_CASE("rule parser: a Datalog rule with binds, terms, facts and guards", "[rules]") {
  const RuleFile f = parse_ok(kRelations +
                              "rule all-reduce-partial:\n"
                              "  ?r = (all-reduce ?x :to_apply add), Partial(?x, ?X, tp, sum),\n"
                              "  (exp ?X), Shard(?y, ?X, -1, _)\n"
                              "  if (divisible (dim ?X 0) 2)\n"
                              "  => Rep(?r, ?X), ?r = (add ?x ?y), (mul ?X ?X)\n");
  REQUIRE(f.relations.size() == 3);
  const Rule& r = only_rule(f);
  CHECK(r.kind == Rule::Kind::kRule);
  CHECK(r.pos == SourcePos{4, 1});
  REQUIRE(r.body.size() == 4);
  CHECK(r.body[0].kind == Item::Kind::kBind);
  CHECK(r.body[0].var == "r");
  CHECK(r.body[0].pos == SourcePos{5, 3});
  CHECK(r.body[0].term.name == "all-reduce");
  CHECK(r.body[0].term.pos == SourcePos{5, 8});
  CHECK(r.body[1].kind == Item::Kind::kAtom);
  CHECK(r.body[1].pos == SourcePos{5, 39});
  const Atom& partial = r.body[1].atom;
  CHECK(partial.relation == "Partial");
  CHECK(partial.pos == SourcePos{5, 39});
  REQUIRE(partial.args.size() == 4);
  CHECK(partial.args[0].kind == Kind::kVar);
  CHECK(partial.args[0].pos == SourcePos{5, 47});
  CHECK(partial.args[2].kind == Kind::kWord);
  CHECK(partial.args[2].name == "tp");
  CHECK(r.body[2].kind == Item::Kind::kTerm);
  CHECK(r.body[2].term.name == "exp");
  const Atom& shard = r.body[3].atom;
  CHECK(shard.args[2].kind == Kind::kNumber);
  CHECK(shard.args[2].is_integer);
  CHECK(shard.args[2].integer == -1);
  CHECK(shard.args[3].name == "_");
  REQUIRE(r.guards.size() == 1);
  CHECK(r.guards[0].name == "divisible");
  REQUIRE(r.head.size() == 3);
  CHECK(r.head[0].kind == Item::Kind::kAtom);
  CHECK(r.head[0].atom.relation == "Rep");
  CHECK(r.head[0].pos == SourcePos{8, 6});
  CHECK(r.head[1].kind == Item::Kind::kBind);
  CHECK(r.head[1].var == "r");
  CHECK(r.head[2].kind == Item::Kind::kTerm);
}

TEST_CASE("rule parser: compact spellings", "[rules]") {
  const RuleFile f = parse_ok(kRelations +
                              "rule r1: ?r=(all-reduce ?x),Rep(?x,?X)=> Rep(?r,?X)\n"
                              "rewrite r2: (f ?x)=>?x\n"
                              "rewrite r3:(g ?x)=>(h ?x)if(p ?x)\n");
  REQUIRE(f.rules.size() == 3);
  CHECK(f.rules[0].body[0].kind == Item::Kind::kBind);
  CHECK(f.rules[0].body[1].kind == Item::Kind::kAtom);
  CHECK(f.rules[0].head[0].kind == Item::Kind::kAtom);
  CHECK(f.rules[2].guards.size() == 1);
}

TEST_CASE("rule parser: tabs count one column, CRLF and a byte order mark are fine", "[rules]") {
  const Rule t = only_rule(parse_ok("rewrite\ta:\t(f\t?x) => ?x"));
  CHECK(t.lhs.pos == SourcePos{1, 12});
  CHECK(t.lhs.args[0].pos == SourcePos{1, 15});
  const RuleFile crlf = parse_ok("rewrite a: (f ?x) => ?x\r\nrewrite b:\r\n (g ?x) => ?x\r\n");
  REQUIRE(crlf.rules.size() == 2);
  CHECK(crlf.rules[1].lhs.pos == SourcePos{3, 2});
  const RuleFile bom = parse_ok("\xEF\xBB\xBFrewrite a: (f ?x) => ?x\n");
  CHECK(only_rule(bom).pos == SourcePos{1, 1});
}

TEST_CASE("rule parser: errors point at the offending token", "[rules][errors]") {
  struct Case {
    std::string text;
    SourcePos pos;
    std::string message;
  };
  const std::string r = kRelations;  // 3 lines
  const std::vector<Case> cases = {
      // Declarations
      {"foo",
       {1, 1},
       "expected 'rewrite', 'birewrite', 'rule', 'relation', 'ac' or 'comm', found 'foo'"},
      {"# c\n  (f ?x)",
       {2, 3},
       "expected 'rewrite', 'birewrite', 'rule', 'relation', 'ac' or 'comm', found '('"},
      {"rewrite a: ?x => ?x rewrite b: ?x => ?x",
       {1, 21},
       "'rewrite' must begin a line: one declaration per line"},
      {"rewrite a: (f ?x) => ?x ?y", {1, 25}, "expected 'if' or the next declaration, found '?y'"},
      {"rewrite", {1, 8}, "expected a rule name after 'rewrite', found end of file"},
      {"rewrite : ?x => ?x", {1, 9}, "expected a rule name after 'rewrite', found ':'"},
      {"rewrite a+b: ?x => ?x",
       {1, 9},
       "'a+b' is not a rule name: use letters, digits, '_', '.' and '-'"},
      {"rewrite a ?x => ?x", {1, 11}, "expected ':' after the rule name 'a', found '?x'"},
      {"rewrite a: ?x => ?x\n\n  rewrite a: ?y => ?y",
       {3, 11},
       "duplicate rule name 'a' (first defined at 1:1)"},
      {"rule a: ?x => ?x\nrewrite a: ?y => ?y",
       {2, 9},
       "duplicate rule name 'a' (first defined at 1:1)"},
      // Arrows
      {"rewrite a: (f ?x) ?x", {1, 19}, "expected '=>' after the left-hand side, found '?x'"},
      {"rewrite a: (f ?x)", {1, 18}, "expected '=>' after the left-hand side, found end of file"},
      {"rewrite a: (f ?x)\nrewrite b: ?x => ?x",
       {1, 18},
       "expected '=>' after the left-hand side, found the next declaration ('rewrite' at 2:1)"},
      {"rewrite a: (f ?x) <=> ?x",
       {1, 19},
       "'<=>' in a rewrite: use '=>' (or 'birewrite' for both directions)"},
      {"birewrite a: (f ?x) => ?x",
       {1, 21},
       "'=>' in a birewrite: use '<=>' (or 'rewrite' for one direction)"},
      {"birewrite a: (f ?x) = ?x", {1, 21}, "expected '<=>' after the left-hand side, found '='"},
      {"rewrite a: (f ?x) =>(g ?x)x", {1, 27}, "expected 'if' or the next declaration, found 'x'"},
      {"rewrite a: (f ?x) =>x", {1, 19}, "put a space after '=>' in '=>x'"},
      {"birewrite a: (f ?x) <=>x", {1, 21}, "put a space after '<=>' in '<=>x'"},
      {"rule a: (f ?x) =>Rep(?x)", {1, 16}, "put a space after '=>' in '=>Rep'"},
      {"rule a: (f ?x) <=> ?x", {1, 16}, "'<=>' in a rule: a rule has one direction, use '=>'"},
      {"rewrite a: => ?x", {1, 12}, "expected the left-hand side, found '=>'"},
      {"rewrite a: (f ?x) =>",
       {1, 21},
       "expected the right-hand side after '=>', found end of file"},
      {"rewrite a: (f ?x) => if (p ?x)",
       {1, 22},
       "expected the right-hand side after '=>', found 'if'"},
      {"rewrite a: (f ?x) => ?x if", {1, 27}, "expected a guard after 'if', found end of file"},
      // Terms
      {"rewrite a: (f ?x", {1, 17}, "unterminated '(' opened at 1:12"},
      {"rewrite a: (f (g ?x) ?x\n\nrewrite b: ?x => ?x",
       {1, 24},
       "unterminated '(' opened at 1:12"},
      {"rewrite a: (f (g ?x", {1, 20}, "unterminated '(' opened at 1:15"},
      {"rewrite a: (", {1, 13}, "unterminated '(' opened at 1:12"},
      {"rewrite a: (f ?x)) => ?x", {1, 18}, "')' without a matching '('"},
      {"rewrite a: ) => ?x", {1, 12}, "')' without a matching '('"},
      {"rewrite a: (f ?x ]) => ?x", {1, 18}, "']' without a matching '['"},
      {"rewrite a: () => ?x", {1, 12}, "empty application '()': write an operator name after '('"},
      {"rewrite a: ( ) => ?x", {1, 12}, "empty application '()': write an operator name after '('"},
      {"rewrite a: (?f ?x) => ?x", {1, 13}, "expected an operator name after '(', found '?f'"},
      {"rewrite a: (1 ?x) => ?x", {1, 13}, "expected an operator name after '(', found '1'"},
      {"rewrite a: ((f) ?x) => ?x", {1, 13}, "expected an operator name after '(', found '('"},
      {"rewrite a: (f ?x, ?y) => ?x",
       {1, 17},
       "expected an operand, ':key value' or ')', found ','"},
      {"rewrite a: (f :k ?x ?y) => ?x",
       {1, 21},
       "operand '?y' after an attribute: write the operands first, then the ':key value' pairs"},
      {"rewrite a: (f :k 1 (g ?x)) => ?x",
       {1, 20},
       "operand '(' after an attribute: write the operands first, then the ':key value' pairs"},
      {"rewrite a: (f ?x :k 1 :j 2 :k 3) => ?x",
       {1, 28},
       "duplicate attribute ':k' (first given at 1:18)"},
      {"rewrite a: (f ?x :) => ?x", {1, 19}, "expected an attribute name after ':', found ')'"},
      {"rewrite a: (f ?x :1 2) => ?x", {1, 19}, "expected an attribute name after ':', found '1'"},
      {"rewrite a: (f ?x :k) => ?x", {1, 20}, "expected a value for ':k', found ')'"},
      {"rewrite a: (f ?x :k", {1, 20}, "unterminated '(' opened at 1:12"},
      {"rewrite a: (f [1 2) => ?x",
       {1, 19},
       "expected an integer or ']' in the list opened at 1:15, found ')'"},
      {"rewrite a: (f [1 2", {1, 19}, "unterminated '[' opened at 1:15"},
      {"rewrite a: (f [1 x]) => ?x", {1, 18}, "a list holds integers, found 'x'"},
      {"rewrite a: (f [1 2.5]) => ?x", {1, 18}, "a list holds integers, found '2.5'"},
      {"rewrite a: (f [1,,2]) => ?x",
       {1, 18},
       "expected an integer or ']' in the list opened at 1:15, found ','"},
      {"rewrite a: (f [99999999999999999999]) => ?x",
       {1, 16},
       "integer '99999999999999999999' does not fit in 64 bits"},
      {"rewrite a: (f 1e999) => ?x", {1, 15}, "number '1e999' does not fit in a double"},
      {"rewrite a: (f -1e400) => ?x", {1, 15}, "number '-1e400' does not fit in a double"},
      // Lexical
      {"rewrite a: (f \"abc) => ?x",
       {1, 15},
       "unterminated string: a string ends with '\"' on the line it starts"},
      {"rewrite a: (f \"abc\n\") => ?x",
       {1, 15},
       "unterminated string: a string ends with '\"' on the line it starts"},
      {"rewrite a: (f \"a\\nb\") => ?x",
       {1, 17},
       "unknown escape '\\n' in a string: only \\\" and \\\\ are allowed"},
      {"rewrite a: (f ?) => ?x", {1, 15}, "'?' must be followed by a variable name"},
      {"rewrite a: (f ?1x) => ?x",
       {1, 15},
       "'?1x' is not a variable: write '?' then a letter or '_', then letters, digits or '_'"},
      {"rewrite a: (f ?x-y) => ?x",
       {1, 15},
       "'?x-y' is not a variable: write '?' then a letter or '_', then letters, digits or '_'"},
      {"rewrite a: (f ?x?y) => ?x", {1, 17}, "put a space between two variables"},
      {"rewrite a: (f a?b) => ?x", {1, 16}, "put a space between 'a' and the variable after it"},
      {"rewrite a: (f \x01) => ?x", {1, 15}, "unexpected control character 0x01"},
      {"rewrite a: (f ab\x7f) => ?x", {1, 17}, "unexpected control character 0x7f"},
      {"rewrite a: (f \"a\x02\") => ?x", {1, 17}, "unexpected control character 0x02 in a string"},
      // Relations
      {"relation", {1, 9}, "expected a relation name after 'relation', found end of file"},
      {"relation 1R(class)",
       {1, 10},
       "'1R' is not a relation name: write a letter or '_', then letters, digits or '_'"},
      {"relation R", {1, 11}, "expected '(' and the column kinds of 'R', found end of file"},
      {"relation R()", {1, 12}, "expected a column kind ('class', 'int' or 'word'), found ')'"},
      {"relation R(class, float)",
       {1, 19},
       "unknown column kind 'float': use 'class', 'int' or 'word'"},
      {"relation R(class word)", {1, 18}, "expected ',' or ')' after a column kind, found 'word'"},
      {"relation R(class", {1, 17}, "unterminated '(' opened at 1:11"},
      {"relation R(class) foo",
       {1, 19},
       "expected 'rewrite', 'birewrite', 'rule', 'relation', 'ac' or 'comm', found 'foo'"},
      {"relation R(class)\nrelation R(int)", {2, 10}, "relation 'R' is already declared at 1:1"},
      // Facts
      {"rule a: Shrad(?x, ?X) => (f ?x)",
       {1, 9},
       "unknown relation 'Shrad'; no relation is declared before it"},
      {r + "rule a: Shrad(?x, ?X) => (f ?x)",
       {4, 9},
       "unknown relation 'Shrad'; declared relations: Shard, Rep, Partial"},
      {"rule a: (f ?x) => Rep(?x, ?x)\nrelation Rep(class, class)",
       {1, 19},
       "unknown relation 'Rep'; no relation is declared before it"},
      {r + "rule a: Rep(?x) => (f ?x)",
       {4, 15},
       "relation 'Rep' takes 2 arguments (class, class), not 1"},
      {r + "rule a: Shard(?x, ?X, 1, tp, ?z) => (f ?x)",
       {4, 30},
       "relation 'Shard' takes 4 arguments (class, class, int, word), not 5"},
      {r + "rule a: Rep(?x, (f ?y)) => (f ?x)",
       {4, 17},
       "a relation argument is a variable, an integer or a word, not a term: bind the term first "
       "(?t = (f ?x)) and pass ?t"},
      {r + "rule a: Rep(?x, \"s\") => (f ?x)",
       {4, 17},
       "a relation argument is a variable, an integer or a word, not a string"},
      {r + "rule a: Rep(?x, [1]) => (f ?x)",
       {4, 17},
       "a relation argument is a variable, an integer or a word, not a list"},
      {r + "rule a: Shard(?x, ?X, 2.5, tp) => (f ?x)",
       {4, 23},
       "a relation argument is a variable, an integer or a word, found '2.5'"},
      {r + "rule a: Rep(?x ?X) => (f ?x)",
       {4, 16},
       "expected ',' or ')' after an argument of 'Rep', found '?X'"},
      {r + "rule a: Rep(?x, ) => (f ?x)", {4, 17}, "expected an argument of 'Rep', found ')'"},
      {r + "rule a: Rep(?x, ?X", {4, 19}, "unterminated '(' opened at 4:12"},
      {r + "rule a: Rep(x, ?X) => (f ?X)",
       {4, 13},
       "argument 1 of 'Rep' (a class column) must be a variable or '_', not 'x'"},
      {r + "rule a: Shard(?x, ?X, tp, tp) => (f ?x)",
       {4, 23},
       "argument 3 of 'Shard' (an int column) must be a variable, an integer or '_', not 'tp'"},
      {r + "rule a: Shard(?x, ?X, 0, 1) => (f ?x)",
       {4, 26},
       "argument 4 of 'Shard' (a word column) must be a variable, a word or '_', not '1'"},
      {r + "rule a: Rep(?x, ?X) => Rep(?x, _)",
       {4, 32},
       "'_' (any value) in a head fact: a fact is asserted whole"},
      {r + "rule a: Rep (?x, ?X) => (f ?x)",
       {4, 13},
       "expected ',', 'if' or '=>' after a body item, found '(' (a relation fact has no space "
       "before its '(': Rep(…))"},
      // Rule structure
      {"rule a: (f ?x) (g ?x) => (h ?x)",
       {1, 16},
       "expected ',', 'if' or '=>' after a body item, found '('"},
      {"rule a: (f ?x) if (p ?x), (g ?x) => (h ?x)",
       {1, 25},
       "expected 'if' or '=>' after a guard, found ','"},
      {"rule a: (f ?x)",
       {1, 15},
       "expected ',', 'if' or '=>' after a body item, found end of file"},
      {"rule a: (f ?x), => (h ?x)", {1, 17}, "expected a body item, found '=>'"},
      {"rule a: (f ?x) => (h ?x),", {1, 26}, "expected a head item, found end of file"},
      {"rule a: (f ?x) => (h ?x) (k ?x)",
       {1, 26},
       "expected ',' or the next declaration, found '('"},
      {"rule a: ?r = => (h ?r)", {1, 14}, "expected a term after '=', found '=>'"},
      // Variables
      {"rewrite a: (f ?x) => (g ?x ?y)",
       {1, 28},
       "variable '?y' on the right of '=>' is not bound by the left-hand side"},
      {"rewrite a: (f ?x) => (g ?x :k (h ?z))",
       {1, 34},
       "variable '?z' on the right of '=>' is not bound by the left-hand side"},
      {"rewrite a: (f ?x) => ?x if (p ?y)",
       {1, 31},
       "variable '?y' in a guard is not bound by the left-hand side"},
      {"birewrite a: (f ?x ?y) <=> (g ?x)",
       {1, 20},
       "variable '?y' is on the left of '<=>' but not on the right: both sides of a birewrite "
       "need the same variables"},
      {"birewrite a: (f ?x) <=> (g ?x ?y)",
       {1, 31},
       "variable '?y' is on the right of '<=>' but not on the left: both sides of a birewrite "
       "need the same variables"},
      {"birewrite a: (f ?x) <=> ?x if (p ?z)",
       {1, 34},
       "variable '?z' in a guard is not bound by the left-hand side"},
      {r + "rule a: Rep(?x, ?X) => Rep(?y, ?X)",
       {4, 28},
       "variable '?y' in the head is not bound by the body or an earlier '?v = term'"},
      {r + "rule a: Rep(?x, ?X) if (p ?z) => Rep(?x, ?X)",
       {4, 27},
       "variable '?z' in a guard is not bound by the body"},
      {r + "rule a: Rep(?x, ?X) => ?y = (f ?Z)", {4, 32}, "variable '?Z' in the head is not bound"},
      {r + "rule a: Rep(?x, ?X) => Rep(?y, ?X), ?y = (f ?X)",
       {4, 28},
       "variable '?y' in the head is not bound by the body or an earlier '?v = term'"},
      {r + "rule a: ?r = (f ?x) => (g ?r ?q)",
       {4, 30},
       "variable '?q' in the head is not bound by the body or an earlier '?v = term'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    const Diagnostic d = parse_error(c.text);
    INFO(d.format());
    CHECK(d.pos == c.pos);
    CHECK(d.message == c.message);
    CHECK(d.file == "bad.rules");
    CHECK(d.line_text == line_of(c.text, d.pos.line));
  }
}

TEST_CASE("rule parser: the diagnostic prints FILE:LINE:COL, the line and a caret", "[rules]") {
  const Diagnostic d = parse_error("rewrite a: (f ?x) => ?x\nrewrite b: (g ?x) => ?y\n");
  CHECK(d.format() ==
        "bad.rules:2:22: error: variable '?y' on the right of '=>' is not bound by the "
        "left-hand side\n"
        "  rewrite b: (g ?x) => ?y\n"
        "                       ^\n");
}

TEST_CASE("rule parser: the first error in the text wins, even a lexical one later", "[rules]") {
  // The lexer runs ahead, but its error is reported only when the parser gets there.
  const Diagnostic d = parse_error("rewrite a: (f ?x) => ?y\nrewrite b: \"open\n");
  CHECK(d.pos == SourcePos{1, 22});
  const Diagnostic lexical = parse_error("rewrite a: (f ?x) => ?x\nrewrite b: \"open\n");
  CHECK(lexical.pos == SourcePos{2, 12});
}

namespace {

// A file that uses every construct, to cut and corrupt.
const std::string kValid =
    kRelations +
    "# a comment\n"
    "rewrite t2: (transpose (transpose ?x :dimensions [1 0]) :dimensions "
    "[1, 0]) => ?x if (rank-is ?x 2)\n"
    "birewrite mul-comm: (* ?a ?b) <=> (* ?b ?a)\n"
    "rewrite s: (custom-call ?x :target \"Rms\\\"Norm\" :eps 1e-6) => (nop ?x)\n"
    "rule ar:\n"
    "  ?r = (all-reduce ?x), Partial(?x, ?X, tp, sum), (exp ?X)\n"
    "  if (not-zero ?X)\n"
    "  => Rep(?r, ?X), ?r = (add ?x -1)\n";

// Any input gives a rule file or a diagnostic on a line that exists.
void check_robust(const std::string& text) {
  auto f = parse_rules(text, "fuzz.rules");
  if (f) return;
  const Diagnostic& d = f.error();
  INFO(d.format());
  const auto lines = static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n') + 1);
  CHECK(d.pos.line >= 1);
  CHECK(d.pos.line <= lines);
  CHECK(d.pos.col >= 1);
  CHECK(d.line_text == line_of(text, d.pos.line));
  CHECK_FALSE(d.message.empty());
}

}  // namespace

TEST_CASE("rule parser: the robustness sample parses", "[rules]") {
  const RuleFile f = parse_ok(kValid);
  CHECK(f.rules.size() == 4);
  CHECK(f.rules[2].lhs.attrs[0].value.name == "Rms\"Norm");
}

TEST_CASE("rule parser: every prefix of a valid file gives a result or a good error",
          "[rules][robust]") {
  for (size_t n = 0; n <= kValid.size(); ++n) {
    INFO("prefix of " << n << " bytes");
    check_robust(kValid.substr(0, n));
  }
}

TEST_CASE("rule parser: random bytes and corrupted files never crash", "[rules][robust]") {
  std::mt19937 rng(20240611);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 300; ++round) {
    std::string text(static_cast<size_t>(byte(rng)) * 4, '\0');
    for (char& c : text) c = static_cast<char>(byte(rng));
    check_robust(text);
  }
  // Corruptions of the valid file reach deeper: swap, delete or insert a meaningful character.
  const std::string alphabet = "()[],:#\"?\\=><- \n\tx1_";
  std::uniform_int_distribution<size_t> where(0, kValid.size() - 1);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  for (int round = 0; round < 3000; ++round) {
    std::string text = kValid;
    for (int k = 0; k < 1 + round % 3; ++k) {
      const size_t at = where(rng) % text.size();
      switch (byte(rng) % 3) {
        case 0:
          text[at] = alphabet[pick(rng)];
          break;
        case 1:
          text.erase(at, 1);
          break;
        default:
          text.insert(at, 1, alphabet[pick(rng)]);
      }
    }
    check_robust(text);
  }
}

TEST_CASE("rule parser: deep nesting is an error, not a stack overflow", "[rules][robust]") {
  std::string deep = "rewrite a: ";
  for (int i = 0; i < 100000; ++i) deep += "(f ";
  const Diagnostic d = parse_error(deep);
  CHECK(d.pos == SourcePos{1, 12 + 3 * 256});
  CHECK(d.message == "terms nested more than 256 deep");
  // 200 levels are fine.
  std::string ok = "rewrite a: ";
  for (int i = 0; i < 200; ++i) ok += "(f ";
  ok += "?x" + std::string(200, ')') + " => ?x";
  CHECK(parse_rules(ok, "ok.rules").has_value());
}

TEST_CASE("rule parser: a large file parses in linear time", "[rules]") {
  std::string text = kRelations;
  constexpr int kRules = 20000;
  for (int i = 0; i < kRules; ++i) {
    text += "rule r" + std::to_string(i) +
            ": ?r = (all-reduce ?x), Partial(?x, ?X, tp, sum) => Rep(?r, ?X)\n"
            "rewrite w" +
            std::to_string(i) + ": (add ?a (mul ?b [1 2 3])) => (add (mul ?b [1 2 3]) ?a)\n";
  }
  const RuleFile f = parse_ok(text);
  CHECK(f.rules.size() == 2 * kRules);
  CHECK(f.rules.back().pos == SourcePos{3 + 2 * kRules, 1});
}

TEST_CASE("rule parser: the examples of rules/README.md parse", "[rules]") {
  const std::string readme = test::read_file(std::string(SCALIFY_SOURCE_DIR) + "/rules/README.md");
  int examples = 0;
  for (size_t open = readme.find("```\n"); open != std::string::npos;) {
    const size_t body = open + 4;
    const size_t close = readme.find("```", body);
    REQUIRE(close != std::string::npos);
    const std::string block = readme.substr(body, close - body);
    open = readme.find("```\n", close + 3);
    // Rule examples start with a declaration or a comment; the others show terms or errors.
    const size_t start = block.find_first_not_of(' ');  // examples in lists are indented
    const std::string first = block.substr(start, block.find_first_of(" :\n", start) - start);
    if (first != "relation" && first != "rewrite" && first != "birewrite" && first != "rule" &&
        first != "#") {
      continue;
    }
    INFO(block);
    // Fragments use the relations of the first example.
    const bool declares = block.find("relation ") != std::string::npos;
    CHECK(parse_rules(declares ? block : kRelations + block, "README.md").has_value());
    ++examples;
  }
  CHECK(examples >= 6);
}
