// The bundled rule set: compiled into the library, identical to rules/*.rules, parsed, compiled,
// documented, and numerically sound.
#include "rules/bundled_rules.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "relations/relation.h"
#include "rules/rule_check.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"
#include "rules/rule_print.h"
#include "test_support.h"

using namespace scalify;

TEST_CASE("bundled rules: every rules/*.rules file, as in the source tree", "[rules]") {
  std::set<std::string> on_disk;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SCALIFY_SOURCE_DIR) + "/rules")) {
    if (entry.path().extension() == ".rules") {
      on_disk.insert("rules/" + entry.path().filename().string());
    }
  }
  std::set<std::string> bundled;
  for (const rules::RuleText& f : rules::bundled_rule_files()) {
    bundled.insert(std::string(f.name));
    INFO(f.name);
    CHECK(f.text == test::read_file(std::string(SCALIFY_SOURCE_DIR) + "/" + std::string(f.name)));
  }
  CHECK(bundled == on_disk);
  CHECK(bundled.count("rules/layout.rules") == 1);
  CHECK(bundled.count("rules/algebra.rules") == 1);
  CHECK(bundled.count("rules/custom_calls.rules") == 1);
}

TEST_CASE("bundled rules: parse, compile, and every rule has a name and a comment", "[rules]") {
  std::set<std::string> names;
  for (const rules::RuleText& f : rules::bundled_rule_files()) {
    INFO(f.name);
    auto file = rules::parse_rules(f.text, f.name);
    if (!file) FAIL(file.error().format());
    egraph::Vocabulary vocab;
    relations::Database db;
    auto compiled = rules::compile_rules(
        *file, vocab, [](const egraph::ENode&) { return 0u; }, &db,
        [](egraph::TypeId) { return std::optional<ir::Type>(); });
    if (!compiled) FAIL(compiled.error().format());
    for (const rules::Rule& r : file->rules) {
      INFO(r.name);
      CHECK(names.insert(r.name).second);  // unique across the set
      CHECK_FALSE(rules::comment_above(f.text, r.pos.line).empty());
    }
  }
  CHECK(names.size() >= 60);
}

TEST_CASE("bundled rules: commutative operators are declared 'comm', never 'ac'", "[rules]") {
  // The checker's term bridge writes each HLO op as one binary node: the n-ary form an `ac`
  // declaration gives rule sides would not match it.
  std::set<std::string> comm;
  for (const rules::RuleText& f : rules::bundled_rule_files()) {
    auto file = rules::parse_rules(f.text, f.name);
    REQUIRE(file);
    for (const rules::AcDecl& d : file->ac) {
      INFO(f.name << ": " << d.op);
      CHECK_FALSE(d.associative);
      comm.insert(d.op);
    }
  }
  CHECK(comm == std::set<std::string>{"add", "maximum", "minimum", "multiply"});
}

TEST_CASE("bundled rules: every rewrite passes the numeric check", "[rules]") {
  for (const rules::RuleText& f : rules::bundled_rule_files()) {
    auto file = rules::parse_rules(f.text, f.name);
    REQUIRE(file);
    for (const rules::RuleCheck& r : rules::check_rules(*file)) {
      INFO(f.name << ": " << r.rule.name);
      for (const rules::DirectionCheck& d : r.directions) {
        INFO(d.name << ": " << d.note
                    << (d.counterexample ? d.counterexample->mismatch : std::string()));
        CHECK(d.verdict == rules::Verdict::kPassed);
        CHECK(d.trials == 50);
      }
    }
  }
}

TEST_CASE("comment_above: the comment lines right above a line", "[rules]") {
  const char* text = "# one\n#  two\nrewrite a: x => y\n\nrewrite b: x => y\n";
  CHECK(rules::comment_above(text, 3) == "one  two");
  CHECK(rules::comment_above(text, 5).empty());
  CHECK(rules::comment_above(text, 1).empty());
}
