// Relations: facts kept canonical across merges, joined with terms by rules, evaluated
// semi-naively.
#include "relations/relation.h"

#include <catch2/catch.hpp>

#include "egraph/runner.h"
#include "relations/fact_proof.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"

using namespace scalify;
using egraph::ClassId;
using egraph::Reason;

namespace {

constexpr Reason kAxiom{Reason::Kind::kAxiom, 0, 0};

struct Setup {
  egraph::Vocabulary vocab;
  egraph::EGraph g;
  relations::Database db;
  rules::RuleFile file;
  rules::CompiledRules compiled;
  std::function<egraph::TypeId(const egraph::ENode&)> type_of = [](const egraph::ENode&) {
    return egraph::TypeId{0};
  };

  explicit Setup(const char* text) {
    auto parsed = rules::parse_rules(text, "t.rules");
    if (!parsed) FAIL(parsed.error().format());
    file = std::move(*parsed);
    auto c = rules::compile_rules(file, vocab, type_of, &db);
    if (!c) FAIL(c.error().format());
    compiled = std::move(*c);
  }
  ClassId add(const char* text) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(t);
    auto id = rules::add_term(g, vocab, *t, type_of);
    REQUIRE(id);
    return g.find(*id);
  }
  relations::Relation& rel(const char* name) { return db.relation(*db.find(name)); }
  bool holds(const char* name, std::vector<uint32_t> row) {
    for (uint32_t& v : row) v = g.find(v);
    return rel(name).contains(row);
  }
  egraph::RunReport run(size_t iterations = 30) {
    egraph::RunOptions options;
    options.db = &db;
    options.limits.iterations = iterations;
    return egraph::run(g, compiled.rules, options);
  }
};

}  // namespace

TEST_CASE("relations: facts follow merges and duplicates collapse", "[relations]") {
  egraph::EGraph g;
  const ClassId a = g.add({1, 0, {}}, 0), b = g.add({2, 0, {}}, 0), x = g.add({3, 0, {}}, 0);
  relations::Relation rep("Rep", {relations::Column::kClass, relations::Column::kClass});
  CHECK(rep.insert(std::vector<uint32_t>{a, x}, kAxiom, 0));
  CHECK(rep.insert(std::vector<uint32_t>{b, x}, kAxiom, 0));
  CHECK_FALSE(rep.insert(std::vector<uint32_t>{a, x}, kAxiom, 0));
  CHECK(rep.with(1, x).size() == 2);
  REQUIRE_FALSE(g.merge(a, b).has_value());
  g.rebuild();
  CHECK(rep.canonicalize(g, 7) == 1);
  REQUIRE(rep.size() == 1);
  CHECK(rep.row(0)[0] == g.find(a));
  CHECK(rep.contains(std::vector<uint32_t>{g.find(b), x}));
  CHECK(rep.with(1, x).size() == 1);  // the index follows
  // The surviving fact is the one that did not move; a moved fact gets the new stamp.
  CHECK((rep.stamp(0) == 0 || rep.stamp(0) == 7));
  CHECK(rep.canonicalize(g, 8) == 0);  // already canonical
}

TEST_CASE("relations: a Datalog rule joins facts with terms and adds both", "[relations]") {
  Setup s(R"(
relation Rep(class, class)
rule rep-exp: ?d = (exp ?x), Rep(?x, ?X) => ?D = (exp ?X), Rep(?d, ?D)
rule rep-add: ?d = (add ?x ?y), Rep(?x, ?X), Rep(?y, ?Y) => ?D = (add ?X ?Y), Rep(?d, ?D)
)");
  const ClassId d = s.add("(add (exp a) b)");
  const ClassId a = s.add("a"), b = s.add("b"), A = s.add("A"), B = s.add("B");
  s.rel("Rep").insert(std::vector<uint32_t>{a, A}, kAxiom, 0);
  s.rel("Rep").insert(std::vector<uint32_t>{b, B}, kAxiom, 0);
  const auto report = s.run();
  CHECK(report.stop == egraph::StopReason::kSaturated);
  const ClassId D = s.add("(add (exp A) B)");
  CHECK(s.holds("Rep", {d, D}));
  CHECK(s.rel("Rep").size() == 4);  // a, b, exp a, the sum

  // Its proof: rep-add from Rep(exp a, exp A) (by rep-exp from the axiom) and the axiom on b.
  const uint32_t rep = *s.db.find("Rep");
  const auto fact = s.rel("Rep").find(std::vector<uint32_t>{s.g.find(d), s.g.find(D)});
  REQUIRE(fact >= 0);
  auto proof = relations::explain_fact(s.db, s.g, s.compiled.rules, report.matches, rep,
                                       static_cast<uint32_t>(fact));
  REQUIRE(proof);
  const std::string text = relations::fact_proof_to_text(*proof, s.db);
  INFO(text);
  CHECK(proof->by == "rep-add");
  REQUIRE(proof->premises.size() == 2);
  CHECK(proof->premises[0].by == "rep-exp");
  REQUIRE(proof->premises[0].premises.size() == 1);
  CHECK(proof->premises[0].premises[0].by == "axiom:0");
  CHECK(proof->premises[1].by == "axiom:0");
  CHECK(relations::fact_proof_to_json(*proof, s.db)["premises"].as_array().size() == 2);
}

TEST_CASE("relations: facts about merged classes fire rules that join on the merge",
          "[relations]") {
  Setup s(R"(
relation Rep(class, class)
rewrite id: (copy ?x) => ?x
rule rep-neg: ?d = (neg ?x), Rep(?x, ?X) => ?D = (neg ?X), Rep(?d, ?D)
)");
  const ClassId d = s.add("(neg (copy a))");
  const ClassId a = s.add("a"), A = s.add("A");
  s.rel("Rep").insert(std::vector<uint32_t>{a, A}, kAxiom, 0);
  s.run();
  CHECK(s.holds("Rep", {d, s.add("(neg A)")}));
}

TEST_CASE("relations: evaluation is semi-naive (old facts do not fire again)", "[relations]") {
  Setup s(R"(
relation Edge(class, class)
relation Path(class, class)
rule base: Edge(?a, ?b) => Path(?a, ?b)
rule step: Path(?a, ?b), Edge(?b, ?c) => Path(?a, ?c)
)");
  constexpr int n = 24;
  std::vector<ClassId> v;
  for (int i = 0; i < n; ++i) v.push_back(s.add(("v" + std::to_string(i)).c_str()));
  for (int i = 0; i + 1 < n; ++i) {
    s.rel("Edge").insert(std::vector<uint32_t>{v[i], v[i + 1]}, kAxiom, 0);
  }
  const auto report = s.run(100);
  CHECK(report.stop == egraph::StopReason::kSaturated);
  const size_t paths = s.rel("Path").size();
  CHECK(paths == n * (n - 1) / 2);
  size_t step_matches = 0;
  for (const auto& it : report.iterations) step_matches += it.rules[1].matches;
  // Naive evaluation would re-derive every path in every iteration (thousands of matches);
  // semi-naive finds each derivation about once.
  CHECK(step_matches <= 2 * paths);
  CHECK(s.holds("Path", {v[0], v[n - 1]}));
  CHECK_FALSE(s.holds("Path", {v[n - 1], v[0]}));
}

TEST_CASE("relations: plain values, wildcards and literal arguments", "[relations]") {
  Setup s(R"(
relation Shard(class, class, int, word)
relation Sharded(class)
rule any-shard: Shard(?x, _, ?d, tp) => Sharded(?x)
rule dim0: Shard(?x, ?X, 0, ?axis) => ?y = (marker ?x)
)");
  const ClassId x = s.add("x"), y = s.add("y"), X = s.add("X");
  const uint32_t tp = s.vocab.symbol("tp"), dp = s.vocab.symbol("dp");
  s.rel("Shard").insert(std::vector<uint32_t>{x, X, 0, tp}, kAxiom, 0);
  s.rel("Shard").insert(std::vector<uint32_t>{y, X, 1, dp}, kAxiom, 0);
  s.run();
  CHECK(s.holds("Sharded", {x}));
  CHECK_FALSE(s.holds("Sharded", {y}));  // sharded over dp, not tp
  CHECK(s.g.lookup({s.vocab.symbol("marker"), 0, {x}}).has_value());
  CHECK_FALSE(s.g.lookup({s.vocab.symbol("marker"), 0, {y}}).has_value());
}

TEST_CASE("relations: declaration and use errors", "[relations]") {
  egraph::Vocabulary vocab;
  auto parsed = rules::parse_rules("relation Rep(class, class)\nrule r: Rep(?x, ?y) => Rep(?y, ?x)",
                                   "t.rules");
  REQUIRE(parsed);
  auto no_db = rules::compile_rules(*parsed, vocab, [](const egraph::ENode&) { return 0u; });
  REQUIRE_FALSE(no_db);
  CHECK_THAT(no_db.error().message, Catch::Contains("database"));
  relations::Database db;
  REQUIRE(db.declare("Rep", {relations::Column::kClass}));
  auto clash = rules::compile_rules(
      *parsed, vocab, [](const egraph::ENode&) { return 0u; }, &db);
  REQUIRE_FALSE(clash);
  CHECK_THAT(clash.error().message, Catch::Contains("different columns"));
}

TEST_CASE("relations: a term new to the e-graph joins facts that are not", "[relations]") {
  // Rep(a, A) is stamped before `neg a` exists: the rule that joins them must still fire.
  Setup s(R"(
relation Rep(class, class)
rewrite wrap: (copy ?x) => (neg ?x)
rule rep-neg: ?d = (neg ?x), Rep(?x, ?X) => ?D = (neg ?X), Rep(?d, ?D)
)");
  const ClassId d = s.add("(copy a)");
  const ClassId a = s.add("a"), A = s.add("A");
  s.rel("Rep").insert(std::vector<uint32_t>{a, A}, kAxiom, 0);
  CHECK(s.run().stop == egraph::StopReason::kSaturated);
  CHECK(s.holds("Rep", {d, s.add("(neg A)")}));
}

TEST_CASE("relations: a rule banned by back-off still sees the facts it was banned on",
          "[relations]") {
  // 40 new facts exceed the match limit of 10: the rule is banned, and the facts it searched
  // then must fire it when the ban ends (a delta that moved past them would lose them).
  Setup s(R"(
relation Edge(class, class)
relation Path(class, class)
rule base: Edge(?a, ?b) => Path(?a, ?b)
)");
  constexpr int n = 40;
  for (int i = 0; i < n; ++i) {
    const ClassId from = s.add(("u" + std::to_string(i)).c_str());
    const ClassId to = s.add(("w" + std::to_string(i)).c_str());
    s.rel("Edge").insert(std::vector<uint32_t>{from, to}, kAxiom, 0);
  }
  egraph::RunOptions options;
  options.db = &s.db;
  options.scheduling.backoff = true;
  options.scheduling.match_limit = 10;
  options.scheduling.ban_length = 1;
  const auto report = egraph::run(s.g, s.compiled.rules, options);
  CHECK(report.stop == egraph::StopReason::kSaturated);
  CHECK(report.iterations.front().rules[0].banned);
  CHECK(s.rel("Path").size() == n);
}
