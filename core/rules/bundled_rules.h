// The bundled rule set: the text of every `rules/*.rules` of the source tree, compiled into the
// binaries at build time (cmake/EmbedRules.cmake generates the definition), so that the tools
// work without the source tree at hand.
#pragma once

#include <span>
#include <string_view>

namespace scalify::rules {

/// A rule file: its name (`rules/layout.rules`, for messages) and its text.
struct RuleText {
  std::string_view name;
  std::string_view text;
};

/// Every bundled rule file, sorted by name.
///
///   for (const RuleText& f : bundled_rule_files()) {
///     auto file = parse_rules(f.text, f.name);   // "rules/algebra.rules", …
///   }
std::span<const RuleText> bundled_rule_files();

}  // namespace scalify::rules
