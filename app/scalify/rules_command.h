// `scalify rules [--check] [--json] [--seed N] [--trials N] [FILE…]`: list the rewrite and
// layout rules, or check the rewrites numerically.
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

namespace scalify::cli {

inline constexpr std::string_view kRulesUsage = "rules [--check] [--json] [--seed N] [FILE...]";
inline constexpr std::string_view kRulesHelp =
    "list the rules; --check: check every rule numerically";

/// Runs `rules` with the arguments after the command name. Without FILE, the bundled rule set
/// (compiled into the binary); FILEs replace it. Writes the listing or the check (or, with
/// `--json`, one JSON object) to `out` and errors to `err`; returns the exit code: 0 listed or
/// every rule passed, 1 a rule failed or could not be instantiated, 2 bad input or usage.
int run_rules(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
