// `scalify rules` end to end: the built binary lists and checks the bundled rules and files.
#include <catch2/catch.hpp>
#include <string>

#include "rules/bundled_rules.h"
#include "rules/rule_parser.h"
#include "support/json.h"
#include "test_support.h"

using scalify::test::CommandResult;
using scalify::test::run_cli;
using scalify::test::TempDir;

namespace {

constexpr const char* kWrong =
    "# A transpose dropped.\n"
    "rewrite drop-transpose: (transpose ?x :dimensions [1 0]) => ?x\n"
    "# Operands of a dot swapped.\n"
    "rewrite dot-swapped: (dot ?a ?b :lhs_contracting_dims [1] :rhs_contracting_dims [0])\n"
    "  => (dot ?b ?a :lhs_contracting_dims [1] :rhs_contracting_dims [0])\n"
    "# A sum over the wrong dimension.\n"
    "rewrite sum-wrong-dim:\n"
    "  (reduce (transpose ?x :dimensions [1 0]) 0 :dimensions [0] :to_apply add)\n"
    "  => (reduce ?x 0 :dimensions [0] :to_apply add)\n"
    "# The wrong part of a concatenation.\n"
    "rewrite slice-wrong-part:\n"
    "  (slice (concatenate ?a ?b :dimensions ?d) :start_indices ?s :limit_indices ?l\n"
    "         :strides ?t)\n"
    "  => (slice ?b :start_indices ?s :limit_indices ?l :strides ?t)\n"
    "  if (less-equal ?l (shape ?a))\n"
    "# A wrong constant fold.\n"
    "rewrite fold-wrong: (multiply (constant :value ?a) (constant :value ?b))\n"
    "  => (constant :value (+ ?a ?b))\n"
    "# An RMS norm moved through a transpose, its axis mapped forwards instead of back.\n"
    "rewrite rms-norm-axis-wrong:\n"
    "  (transpose (custom-call ?x ?w ?e :custom_call_target AwsNeuronRmsNorm :backend_config ?a)\n"
    "             :dimensions ?p)\n"
    "  => (custom-call (transpose ?x :dimensions ?p) ?w ?e :custom_call_target AwsNeuronRmsNorm\n"
    "                  :backend_config (str (at ?p (int ?a))))\n"
    "# A right one.\n"
    "rewrite add-zero: (add ?x 0) => ?x\n";

/// True if a line of `out` starts with `verdict` and then holds `name` and `where`, as columns.
bool has_row(const std::string& out, const std::string& verdict, const std::string& name,
             const std::string& where) {
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    if (!line.starts_with(verdict + " ")) continue;
    const size_t n = line.find("  " + name + " ");
    if (n != std::string::npos && line.find("  " + where, n) != std::string::npos) return true;
  }
  return false;
}

std::vector<std::string> bundled_rule_names() {
  std::vector<std::string> names;
  for (const scalify::rules::RuleText& f : scalify::rules::bundled_rule_files()) {
    auto file = scalify::rules::parse_rules(f.text, f.name);
    REQUIRE(file);
    for (const auto& r : file->rules) names.push_back(r.name);
  }
  return names;
}

}  // namespace

TEST_CASE("rules: the listing shows every bundled rule", "[app]") {
  const CommandResult r = run_cli("rules");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> names = bundled_rule_names();
  REQUIRE(names.size() >= 60);
  for (const std::string& name : names) {
    INFO(name);
    CHECK(r.out.find("  " + name + " ") != std::string::npos);
  }
  CHECK_THAT(r.out, Catch::Contains("rules/layout.rules:") && Catch::Contains("rewrite") &&
                        Catch::Contains("birewrite") &&
                        Catch::Contains(std::to_string(names.size()) + " rules in 3 files"));
  CHECK_THAT(r.out, Catch::Contains("(transpose (transpose ?x :dimensions ?p) :dimensions ?q) => "
                                    "(transpose ?x :dimensions (compose ?p ?q))"));
}

TEST_CASE("rules --json: one object with every rule", "[app]") {
  const CommandResult r = run_cli("rules --json");
  REQUIRE(r.exit_code == 0);
  auto j = scalify::json::parse(r.out, "stdout");
  if (!j) FAIL(j.error().format());
  const auto& rules = *j->find("rules");
  CHECK(rules.size() == bundled_rule_names().size());
  const auto& first = rules[0];
  CHECK(first.find("name")->is_string());
  CHECK(first.find("kind")->is_string());
  CHECK_THAT(first.find("file")->as_string(), Catch::StartsWith("rules/"));
  CHECK(first.find("line")->as_int() > 0);
  CHECK_FALSE(first.find("comment")->as_string().empty());
}

TEST_CASE("rules --check: the bundled rules pass", "[app]") {
  const CommandResult r = run_cli("rules --check");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(" 0 failed, 0 could not be instantiated"));
  CHECK(has_row(r.out, "passed", "transpose-transpose", "rules/layout.rules:"));
}

TEST_CASE("rules --check: wrong rules fail, each named with a counterexample", "[app]") {
  TempDir dir;
  const std::string path = dir.write("wrong.rules", kWrong);
  const CommandResult r = run_cli("rules --check '" + path + "'");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  for (const char* name : {"drop-transpose", "dot-swapped", "sum-wrong-dim", "slice-wrong-part",
                           "fold-wrong", "rms-norm-axis-wrong"}) {
    INFO(name);
    CHECK(has_row(r.out, "FAILED", name, path + ":"));
  }
  CHECK(has_row(r.out, "passed", "add-zero", path + ":"));
  CHECK_THAT(r.out, Catch::Contains("counterexample (drop-transpose") &&
                        Catch::Contains("      ?x : f32[") && Catch::Contains("      left   (") &&
                        Catch::Contains("      right  "));
  CHECK_THAT(r.out, Catch::Contains("1 passed, 6 failed, 0 could not be instantiated"));

  // The same as JSON, with the evaluated HLO modules.
  const CommandResult j = run_cli("rules --check --json '" + path + "'");
  CHECK(j.exit_code == 1);
  auto v = scalify::json::parse(j.out, "stdout");
  if (!v) FAIL(v.error().format());
  CHECK(v->find("summary")->find("failed")->as_int() == 6);
  const auto& drop = (*v->find("rules"))[0];
  CHECK(drop.find("verdict")->as_string() == "failed");
  const auto& c = *(*drop.find("directions"))[0].find("counterexample");
  CHECK_THAT(c.find("lhs_hlo")->as_string(), Catch::Contains("HloModule lhs"));
  CHECK_FALSE(c.find("mismatch")->as_string().empty());
}

TEST_CASE("rules --check: Datalog rules are checked on a simulated mesh", "[app]") {
  TempDir dir;
  const std::string relations =
      "relation Rep(class, class)\nrelation Partial(class, class, word, word)\n";
  const std::string good = dir.write(
      "good.rules", relations +
                        "rule ar: ?r = (all-reduce ?x), Partial(?x, ?X, tp, sum) => Rep(?r, ?X)\n"
                        "rewrite mul-one: (multiply ?x 1) => ?x\n");
  CommandResult r = run_cli("rules --check '" + good + "'");
  CHECK(r.exit_code == 0);
  CHECK(has_row(r.out, "passed", "ar", good + ":"));
  CHECK_THAT(r.out, Catch::Contains("checked 2 rules"));

  // An all-reduce of a replicated value multiplies it by the number of ranks.
  const std::string wrong = dir.write(
      "wrong.rules", relations + "rule ar: ?r = (all-reduce ?x), Rep(?x, ?X) => Rep(?r, ?X)\n");
  r = run_cli("rules --check '" + wrong + "'");
  CHECK(r.exit_code == 1);
  CHECK(has_row(r.out, "FAILED", "ar", wrong + ":"));
  CHECK_THAT(r.out, Catch::Contains("head   Rep(?r, ?X) does not hold"));
  CHECK_THAT(r.out, Catch::Contains("ranks = "));
  const CommandResult j = run_cli("rules --check --json '" + wrong + "'");
  auto doc = scalify::json::parse(j.out, "stdout");
  REQUIRE(doc);
  CHECK(doc->find("summary")->find("failed")->as_int() == 1);
}

TEST_CASE("rules: bad files and arguments exit 2 with a position", "[app]") {
  TempDir dir;
  const std::string syntax = dir.write("syntax.rules", "rewrite r: (transpose ?x => ?x\n");
  CommandResult r = run_cli("rules --check '" + syntax + "'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(syntax + ":1:") && Catch::Contains(": error: "));
  const std::string function =
      dir.write("function.rules",
                "# ok\nrewrite r: (transpose ?x :dimensions ?p)\n  => (transpose ?x :dimensions "
                "(frob ?p))\n");
  r = run_cli("rules '" + function + "'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::StartsWith(function + ":3:32: error: unknown attribute function"));
  CHECK_THAT(r.err, Catch::Contains("(frob ?p)") && Catch::Contains("^"));
  r = run_cli("rules '" + dir.path() + "/missing.rules'");
  CHECK(r.exit_code == 2);
  CHECK(run_cli("rules --frobnicate").exit_code == 2);
  CHECK(run_cli("rules --seed").exit_code == 2);
  CHECK(run_cli("rules --trials 0").exit_code == 2);
  const CommandResult help = run_cli("rules --help");
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("--seed N"));
}

TEST_CASE("rules --check --seed: deterministic counterexamples", "[app]") {
  TempDir dir;
  const std::string path =
      dir.write("w.rules", "rewrite drop: (transpose ?x :dimensions ?p) => ?x\n");
  const CommandResult a = run_cli("rules --check --seed 3 '" + path + "'");
  const CommandResult b = run_cli("rules --check --seed 3 '" + path + "'");
  CHECK(a.exit_code == 1);
  auto without_time = [](const std::string& s) { return s.substr(0, s.find("\nchecked ")); };
  CHECK(without_time(a.out) == without_time(b.out));
}
