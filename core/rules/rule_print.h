// Rule syntax trees written back as rule-language text, on one line: for listings, messages and
// counterexamples.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rules/rule_ast.h"

namespace scalify::rules {

/// The term in rule-language syntax: `(transpose ?x :dimensions [1 0])`, `2.5`, `"text"`.
///
///   to_string(*parse_term("(f  ?x\n :k [1,0])", "t")) == "(f ?x :k [1 0])"
std::string to_string(const Term& t);

/// The rule without its name, on one line:
///   `(transpose (transpose ?x :dimensions ?p) :dimensions ?q) => (transpose ?x …)`,
///   `?r = (all-reduce ?x), Partial(?x, ?X, tp, sum) => Rep(?r, ?X)`, guards as `if (…)`.
std::string to_string(const Rule& r);

/// "rewrite", "birewrite" or "rule".
const char* kind_name(Rule::Kind k);

}  // namespace scalify::rules

namespace scalify::rules {

/// The comment lines right above line `line` of `text` (each without `#` and the space after
/// it, joined by spaces): a rule's description in listings. Empty if the line above is not a
/// comment.
///
///   comment_above("# x + 0 is x\nrewrite add-zero: …", 2) == "x + 0 is x"
std::string comment_above(std::string_view text, uint32_t line);

}  // namespace scalify::rules
