// The parser of the rule language (rules/README.md): text in, a RuleFile or one positioned error
// out. It checks what a single file can show (syntax, declared relations and their arity,
// variables bound before use, unique names); operator and guard names are the compiler's job.
#pragma once

#include <string_view>

#include "rules/rule_ast.h"
#include "support/expected.h"

namespace scalify::rules {

/// Parses one rule file. `file` only labels diagnostics (and becomes RuleFile::path). Linear in
/// the size of the text; any input gives a RuleFile or a Diagnostic, never a crash.
///
///   auto f = parse_rules("relation Rep(class, class)\n"
///                        "rewrite add-comm: (add ?a ?b) => (add ?b ?a)\n"
///                        "rule ar: ?r = (all-reduce ?x), Rep(?x, ?X) => Rep(?r, ?X)\n",
///                        "core.rules");
///   if (!f) std::cerr << f.error().format();   // "core.rules:2:38: error: …"
///   else    assert(f->rules.size() == 2 && f->relations[0].name == "Rep");
Expected<RuleFile> parse_rules(std::string_view text, std::string_view file);

/// Parses a single term, e.g. a goal or a step of an exported proof:
///
///   auto t = parse_term("(+ x (* 2 y))", "<goal>");
///   t->kind == Term::Kind::kApply && t->name == "+";
Expected<Term> parse_term(std::string_view text, std::string_view file);

}  // namespace scalify::rules
