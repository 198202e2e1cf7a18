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

/// Checks that two runs made the same iterations, each ending with the same classes and nodes
/// (the same e-graph, however differently the runs got there).
inline void check_same_iterations(const egraph::RunReport& a, const egraph::RunReport& b) {
  REQUIRE(a.iterations.size() == b.iterations.size());
  for (size_t i = 0; i < a.iterations.size(); ++i) {
    INFO("iteration " << i + 1);
    CHECK(a.iterations[i].classes_after == b.iterations[i].classes_after);
    CHECK(a.iterations[i].nodes_after == b.iterations[i].nodes_after);
  }
}

/// The matches a run skipped as repeats (Scheduling::skip_repeats), over every iteration.
inline size_t total_repeats(const egraph::RunReport& report) {
  size_t n = 0;
  for (const egraph::Iteration& it : report.iterations) {
    for (const egraph::RuleIteration& r : it.rules) n += r.repeats;
  }
  return n;
}

}  // namespace scalify::test
