// `scalify check REF DIST [--json] [--spec SPEC.json] [--mesh tp=8] [--strict]
//  [--budget-seconds S] [-j N]`: prove that the distributed program computes the reference, or
// show the first node where it stops doing so.
#pragma once

#include <iosfwd>
#include <span>
#include <string_view>

namespace scalify::cli {

inline constexpr std::string_view kCheckUsage =
    "check REF DIST [--json] [--report OUT.html|OUT.md] [--proof OUT.json] [--spec SPEC.json] "
    "[--mesh tp=8] [--strict] [--explain] "
    "[--budget-seconds S] [-j N] [--cache DB.sqlite | --no-cache] [--whole]";
inline constexpr std::string_view kCheckHelp =
    "prove DIST computes REF, or show the first divergent node";

/// Runs `check` with the arguments after the command name; returns the exit code: 0
/// equivalent, 1 divergent, 2 bad input or usage, 3 inconclusive.
int run_check(std::span<const std::string_view> args, std::ostream& out, std::ostream& err);

}  // namespace scalify::cli
