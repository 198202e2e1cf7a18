// A test fixture for the runner: an e-graph (with constant folding), a rule file compiled for
// it, and terms added by their text.
#pragma once

#include <catch2/catch.hpp>

#include "egraph/runner.h"
#include "rules/rule_compiler.h"
#include "rules/rule_parser.h"

namespace scalify::test {

struct RunnerSetup {
  egraph::Vocabulary vocab;
  egraph::EGraph g;
  rules::RuleFile file;
  rules::CompiledRules compiled;
  std::function<egraph::TypeId(const egraph::ENode&)> type_of = [](const egraph::ENode&) {
    return egraph::TypeId{0};
  };

  explicit RunnerSetup(const std::string& text, bool folding = true) {
    if (folding) g.set_constant_folding(rules::arithmetic_folding(vocab));
    auto parsed = rules::parse_rules(text, "t.rules");
    REQUIRE(parsed);
    file = std::move(*parsed);
    auto c = rules::compile_rules(file, vocab, type_of);
    if (!c) FAIL(c.error().format());
    compiled = std::move(*c);
  }
  egraph::ClassId add(const char* text) {
    auto t = rules::parse_term(text, "<t>");
    REQUIRE(t);
    auto id = rules::add_term(g, vocab, *t, type_of);
    REQUIRE(id);
    return g.find(*id);
  }
  egraph::RunReport run(egraph::RunOptions options = {}) {
    return egraph::run(g, compiled.rules, options);
  }
  bool same(const char* a, const char* b) { return g.find(add(a)) == g.find(add(b)); }
};

}  // namespace scalify::test
